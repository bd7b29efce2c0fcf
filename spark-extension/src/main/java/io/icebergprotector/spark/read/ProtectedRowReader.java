/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.spark.read;

import java.io.IOException;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.CloseableIterator;
import org.apache.iceberg.parquet.ParquetValueReader;
import org.apache.iceberg.spark.data.SparkParquetReaders;
import org.apache.spark.sql.catalyst.InternalRow;

/**
 * The row-based protected reader: Iceberg's Spark value readers over the principal's columns, masks
 * applied per value ({@link RowMasker}) at any depth. Used for projections the columnar reader does
 * not cover (nested types) or when vectorization is off. Tokenized columns are detokenized per row
 * in local token mode; in server token mode the reader reads ahead up to {@link #READ_AHEAD} rows
 * (copies) and detokenizes each tokenized column of them with one key-server request.
 */
public final class ProtectedRowReader extends BaseProtectedReader<InternalRow> {
  /** Rows read ahead and detokenized together in server token mode. */
  static final int READ_AHEAD = 1024;

  private final RowMasker masker;
  private final Detokenizer detokenizer;

  /**
   * @param table the table (on executors: the broadcast copy), whose FileIO opens every file
   * @param tasks the file splits to read, in order
   * @param filterSchema the schema the tasks' residual filters bind to
   */
  public ProtectedRowReader(
      Table table,
      List<FileScanTask> tasks,
      ProtectedProjection projection,
      Schema filterSchema,
      boolean caseSensitive,
      boolean cacheDeletes) {
    super(table, tasks, projection, filterSchema, caseSensitive, cacheDeletes);
    this.masker = projection.newMasker();
    this.detokenizer = projection.newDetokenizer();
  }

  @Override
  CloseableIterator<InternalRow> items(
      ProtectedParquetFile file, Schema readSchema, Map<Integer, ?> constants) {
    ParquetValueReader<InternalRow> model =
        SparkParquetReaders.buildReader(readSchema, file.typeWithIds(), constants);
    return file.rows(model, true);
  }

  @Override
  CloseableIterator<InternalRow> withDeletes(
      CloseableIterator<InternalRow> items, ProtectedDeleteFilter deletes) {
    // rows are reused: each is filtered (by its _pos) before the next is read
    CloseableIterable<InternalRow> rows = CloseableIterable.combine(() -> items, items);
    return deletes.filter(rows).iterator();
  }

  @Override
  CloseableIterator<InternalRow> readAhead(CloseableIterator<InternalRow> read) {
    if (detokenizer == null || !detokenizer.batchesRows()) {
      return read;
    }
    return new ReadAhead(read, detokenizer);
  }

  @Override
  InternalRow mask(InternalRow row) {
    InternalRow clear =
        detokenizer != null && !detokenizer.batchesRows() ? detokenizer.apply(row) : row;
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
    if (detokenizer != null) {
      detokenizer.close();
    }
  }

  /**
   * Copies up to {@link #READ_AHEAD} rows of the file (its readers reuse their row), detokenizes
   * them in one batch per tokenized column, then hands them out one by one.
   */
  private static final class ReadAhead implements CloseableIterator<InternalRow> {
    private final CloseableIterator<InternalRow> in;
    private final Detokenizer detokenizer;
    private final InternalRow[] rows = new InternalRow[READ_AHEAD];
    private int count = 0;
    private int next = 0;

    ReadAhead(CloseableIterator<InternalRow> in, Detokenizer detokenizer) {
      this.in = in;
      this.detokenizer = detokenizer;
    }

    @Override
    public boolean hasNext() {
      if (next < count) {
        return true;
      }
      Arrays.fill(rows, 0, count, null);
      count = 0;
      next = 0;
      while (count < READ_AHEAD && in.hasNext()) {
        rows[count] = in.next().copy();
        count += 1;
      }
      if (count > 0) {
        detokenizer.applyAll(rows, count);
      }
      return count > 0;
    }

    @Override
    public InternalRow next() {
      if (!hasNext()) {
        throw new java.util.NoSuchElementException();
      }
      InternalRow row = rows[next];
      rows[next] = null;
      next += 1;
      return row;
    }

    @Override
    public void close() throws IOException {
      in.close();
    }
  }
}
