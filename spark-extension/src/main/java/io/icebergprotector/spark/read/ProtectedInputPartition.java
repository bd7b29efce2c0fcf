package io.icebergprotector.spark.read;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.List;
import org.apache.iceberg.FileScanTask;
import org.apache.spark.sql.connector.read.InputPartition;

/**
 * One combined scan task of a protected scan: only its file splits. Everything the splits share
 * (table, projection, protection, key scope, policy) travels once per scan, in the {@link
 * ProtectedReaderFactory}.
 */
public final class ProtectedInputPartition implements InputPartition, Serializable {
  private static final long serialVersionUID = 2L;

  private final List<FileScanTask> tasks;

  ProtectedInputPartition(List<FileScanTask> tasks) {
    this.tasks = new ArrayList<>(tasks);
  }

  public List<FileScanTask> tasks() {
    return tasks;
  }

  @Override
  public String[] preferredLocations() {
    return new String[0];
  }
}
