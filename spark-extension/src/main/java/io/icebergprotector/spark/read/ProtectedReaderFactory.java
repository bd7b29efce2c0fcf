/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.spark.read;

import static io.icebergprotector.policy.Preconditions.checkArgument;

import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.spark.broadcast.Broadcast;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.connector.read.InputPartition;
import org.apache.spark.sql.connector.read.PartitionReader;
import org.apache.spark.sql.connector.read.PartitionReaderFactory;
import org.apache.spark.sql.vectorized.ColumnarBatch;

/**
 * Creates the readers of a protected scan: columnar ({@link ProtectedBatchReader}) when the scan
 * decided for batch reads, as Iceberg would for the same projection and settings; row-based ({@link
 * ProtectedRowReader}) otherwise. The row reader stays available either way.
 */
final class ProtectedReaderFactory implements PartitionReaderFactory {
  private static final long serialVersionUID = 2L;

  private final boolean columnar;
  private final int batchSize;
  private final Broadcast<Table> table;
  private final ProtectedProjection projection;
  private final Schema filterSchema;
  private final boolean caseSensitive;
  private final boolean cacheDeletes;

  /**
   * @param columnar whether every partition of the scan is read in columnar batches
   * @param batchSize rows per batch (Iceberg's {@code read.parquet.vectorization.batch-size})
   * @param table the broadcast table: its FileIO (e.g. S3FileIO with vended credentials) opens the
   *     files
   * @param filterSchema the schema the tasks' residual filters bind to
   * @param cacheDeletes whether executors cache loaded delete files, as Iceberg's readers do
   *     ({@code spark.sql.iceberg.executor-cache.delete-files.enabled})
   */
  ProtectedReaderFactory(
      boolean columnar,
      int batchSize,
      Broadcast<Table> table,
      ProtectedProjection projection,
      Schema filterSchema,
      boolean caseSensitive,
      boolean cacheDeletes) {
    checkArgument(
        !columnar || batchSize > 0, "Invalid batch size for columnar reads: %s", batchSize);
    this.columnar = columnar;
    this.batchSize = batchSize;
    this.table = table;
    this.projection = projection;
    this.filterSchema = filterSchema;
    this.caseSensitive = caseSensitive;
    this.cacheDeletes = cacheDeletes;
  }

  @Override
  public PartitionReader<InternalRow> createReader(InputPartition partition) {
    ProtectedInputPartition p = protectedPartition(partition);
    projection.spec().checkTaskPrincipal();
    return new ProtectedRowReader(
        table.value(), p.tasks(), projection, filterSchema, caseSensitive, cacheDeletes);
  }

  @Override
  public PartitionReader<ColumnarBatch> createColumnarReader(InputPartition partition) {
    if (!columnar) {
      throw new UnsupportedOperationException(
          "This protected scan reads rows: its projection or settings rule out columnar reads");
    }
    ProtectedInputPartition p = protectedPartition(partition);
    projection.spec().checkTaskPrincipal();
    return new ProtectedBatchReader(
        table.value(), p.tasks(), projection, filterSchema, caseSensitive, batchSize, cacheDeletes);
  }

  @Override
  public boolean supportColumnarReads(InputPartition partition) {
    return columnar;
  }

  private static ProtectedInputPartition protectedPartition(InputPartition partition) {
    checkArgument(
        partition instanceof ProtectedInputPartition,
        "Unknown input partition type: %s",
        partition.getClass().getName());
    return (ProtectedInputPartition) partition;
  }
}
