package io.icebergprotector.spark.read;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.List;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.spark.broadcast.Broadcast;
import org.apache.spark.sql.connector.read.InputPartition;

/** One combined scan task of a protected scan, with what an executor needs to read it. */
public final class ProtectedInputPartition implements InputPartition, Serializable {
  private static final long serialVersionUID = 1L;

  private final List<FileScanTask> tasks;
  private final Broadcast<Table> table;
  private final ProtectedProjection projection;
  private final Schema filterSchema;
  private final boolean caseSensitive;

  ProtectedInputPartition(
      List<FileScanTask> tasks,
      Broadcast<Table> table,
      ProtectedProjection projection,
      Schema filterSchema,
      boolean caseSensitive) {
    this.tasks = new ArrayList<>(tasks);
    this.table = table;
    this.projection = projection;
    this.filterSchema = filterSchema;
    this.caseSensitive = caseSensitive;
  }

  public List<FileScanTask> tasks() {
    return tasks;
  }

  /** The broadcast table: its FileIO (e.g. S3FileIO with vended credentials) opens the files. */
  public Table table() {
    return table.value();
  }

  public ProtectedProjection projection() {
    return projection;
  }

  public Schema filterSchema() {
    return filterSchema;
  }

  public boolean caseSensitive() {
    return caseSensitive;
  }

  @Override
  public String[] preferredLocations() {
    return new String[0];
  }
}
