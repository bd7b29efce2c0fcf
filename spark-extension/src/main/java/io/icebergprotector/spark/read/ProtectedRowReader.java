package io.icebergprotector.spark.read;

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
 * not cover (nested types) or when vectorization is off.
 */
public final class ProtectedRowReader extends BaseProtectedReader<InternalRow> {
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
  InternalRow mask(InternalRow row) {
    InternalRow clear = detokenizer != null ? detokenizer.apply(row) : row;
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
}
