package io.icebergprotector.spark.read;

import java.util.List;
import java.util.Map;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.io.CloseableIterator;
import org.apache.iceberg.parquet.ParquetValueReader;
import org.apache.iceberg.spark.data.SparkParquetReaders;
import org.apache.spark.sql.catalyst.InternalRow;

/**
 * The row-based protected reader: Iceberg's Spark value readers over the principal's columns,
 * masks applied per value ({@link RowMasker}) at any depth. Used for projections the columnar
 * reader does not cover (nested types) or when vectorization is off.
 */
public final class ProtectedRowReader extends BaseProtectedReader<InternalRow> {
  private final RowMasker masker;

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
      boolean caseSensitive) {
    super(table, tasks, projection, filterSchema, caseSensitive);
    this.masker = projection.newMasker();
  }

  @Override
  CloseableIterator<InternalRow> items(ProtectedParquetFile file, Map<Integer, ?> constants) {
    ParquetValueReader<InternalRow> model =
        SparkParquetReaders.buildReader(
            projection().outputSchema(), file.typeWithIds(), constants);
    return file.rows(model, true);
  }

  @Override
  InternalRow mask(InternalRow row) {
    return masker != null ? masker.mask(row) : row;
  }
}
