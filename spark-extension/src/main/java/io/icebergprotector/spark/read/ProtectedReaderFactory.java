package io.icebergprotector.spark.read;

import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.connector.read.InputPartition;
import org.apache.spark.sql.connector.read.PartitionReader;
import org.apache.spark.sql.connector.read.PartitionReaderFactory;
import org.apache.spark.sql.vectorized.ColumnarBatch;

/**
 * Creates the readers of a protected scan. Row-based for now; a columnar reader would be a second
 * consumer of {@link ProtectedParquetFile} with the same projection and constants.
 */
final class ProtectedReaderFactory implements PartitionReaderFactory {
  private static final long serialVersionUID = 1L;

  @Override
  public PartitionReader<InternalRow> createReader(InputPartition partition) {
    if (!(partition instanceof ProtectedInputPartition)) {
      throw new IllegalArgumentException(
          "Unknown input partition type: " + partition.getClass().getName());
    }
    ProtectedInputPartition protectedPartition = (ProtectedInputPartition) partition;
    return new ProtectedRowReader(
        protectedPartition.table(),
        protectedPartition.tasks(),
        protectedPartition.projection(),
        protectedPartition.filterSchema(),
        protectedPartition.caseSensitive());
  }

  @Override
  public PartitionReader<ColumnarBatch> createColumnarReader(InputPartition partition) {
    throw new UnsupportedOperationException(
        "Columnar reads of protected tables are not supported yet");
  }

  @Override
  public boolean supportColumnarReads(InputPartition partition) {
    return false;
  }
}
