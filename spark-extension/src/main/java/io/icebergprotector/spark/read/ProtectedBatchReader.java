/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.spark.read;

import java.util.List;
import java.util.Map;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.io.CloseableIterator;
import org.apache.iceberg.spark.data.vectorized.ColumnarBatchReader;
import org.apache.iceberg.spark.data.vectorized.VectorizedSparkParquetReaders;
import org.apache.spark.sql.vectorized.ColumnarBatch;

/**
 * The columnar protected reader: Iceberg's vectorized Parquet readers (Arrow vectors exposed as a
 * Spark {@link ColumnarBatch}) over the principal's columns. Clear columns pass through as Iceberg
 * reads them; denied and null-masked columns are constant NULL vectors whose chunks are never read
 * (nor their keys requested); masked columns are masked per vector ({@link BatchMasker}).
 *
 * <p>Row groups are chosen by {@link ProtectedParquetFile}, not by Iceberg's {@code
 * VectorizedParquetReader}: with a filter set, its row-group filters read the metadata of every
 * column chunk, which asks the key service for the keys of denied columns too.
 */
final class ProtectedBatchReader extends BaseProtectedReader<ColumnarBatch> {
  private final int batchSize;
  private final BatchMasker masker;
  private final Detokenizer detokenizer;

  ProtectedBatchReader(
      Table table,
      List<FileScanTask> tasks,
      ProtectedProjection projection,
      Schema filterSchema,
      boolean caseSensitive,
      int batchSize,
      boolean cacheDeletes) {
    super(table, tasks, projection, filterSchema, caseSensitive, cacheDeletes);
    this.batchSize = batchSize;
    this.masker = projection.newBatchMasker();
    this.detokenizer = projection.newDetokenizer();
  }

  @Override
  CloseableIterator<ColumnarBatch> items(
      ProtectedParquetFile file, Schema readSchema, Map<Integer, ?> constants) {
    ColumnarBatchReader model =
        VectorizedSparkParquetReaders.buildReader(readSchema, file.typeWithIds(), constants);
    // Spark consumes each batch before asking for the next: Arrow buffers are reused, as in Iceberg
    return file.batches(model, batchSize, true);
  }

  @Override
  CloseableIterator<ColumnarBatch> withDeletes(
      CloseableIterator<ColumnarBatch> items, ProtectedDeleteFilter deletes) {
    BatchDeletes batchDeletes = new BatchDeletes(deletes);
    return CloseableIterator.transform(items, batchDeletes::apply);
  }

  @Override
  ColumnarBatch mask(ColumnarBatch batch) {
    ColumnarBatch clear = detokenizer != null ? detokenizer.apply(batch) : batch;
    return masker != null ? masker.mask(clear) : clear;
  }

  @Override
  void opened(ProtectedParquetFile file) {
    if (detokenizer != null) {
      detokenizer.open(file.location(), file.keyValueMetadata());
    }
  }

  @Override
  void release() {
    try {
      if (masker != null) {
        masker.close();
      }
    } finally {
      if (detokenizer != null) {
        detokenizer.close();
      }
    }
  }
}
