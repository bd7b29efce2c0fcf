package io.icebergprotector.spark.read;

import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.connector.read.InputPartition;
import org.apache.spark.sql.connector.read.PartitionReader;
import org.apache.spark.sql.connector.read.PartitionReaderFactory;
import org.apache.spark.sql.vectorized.ColumnarBatch;

/**
 * Creates the readers of a protected scan: columnar ({@link ProtectedBatchReader}) when the scan
 * decided for batch reads, as Iceberg would for the same projection and settings; row-based
 * ({@link ProtectedRowReader}) otherwise. The row reader stays available either way.
 */
final class ProtectedReaderFactory implements PartitionReaderFactory {
  private static final long serialVersionUID = 1L;

  private final boolean columnar;
  private final int batchSize;

  /**
   * @param columnar whether every partition of the scan is read in columnar batches
   * @param batchSize rows per batch (Iceberg's {@code read.parquet.vectorization.batch-size})
   */
  ProtectedReaderFactory(boolean columnar, int batchSize) {
    if (columnar && batchSize <= 0) {
      throw new IllegalArgumentException("Invalid batch size for columnar reads: " + batchSize);
    }
    this.columnar = columnar;
    this.batchSize = batchSize;
  }

  @Override
  public PartitionReader<InternalRow> createReader(InputPartition partition) {
    ProtectedInputPartition p = protectedPartition(partition);
    return new ProtectedRowReader(
        p.table(), p.tasks(), p.projection(), p.filterSchema(), p.caseSensitive());
  }

  @Override
  public PartitionReader<ColumnarBatch> createColumnarReader(InputPartition partition) {
    if (!columnar) {
      throw new UnsupportedOperationException(
          "This protected scan reads rows: its projection or settings rule out columnar reads");
    }
    ProtectedInputPartition p = protectedPartition(partition);
    return new ProtectedBatchReader(
        p.table(), p.tasks(), p.projection(), p.filterSchema(), p.caseSensitive(), batchSize);
  }

  @Override
  public boolean supportColumnarReads(InputPartition partition) {
    return columnar;
  }

  private static ProtectedInputPartition protectedPartition(InputPartition partition) {
    if (!(partition instanceof ProtectedInputPartition)) {
      throw new IllegalArgumentException(
          "Unknown input partition type: " + partition.getClass().getName());
    }
    return (ProtectedInputPartition) partition;
  }
}
