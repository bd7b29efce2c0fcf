/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.spark.write;

import java.util.Arrays;
import org.apache.iceberg.DataFile;
import org.apache.spark.TaskContext;
import org.apache.spark.executor.OutputMetrics;
import org.apache.spark.sql.connector.write.WriterCommitMessage;

/** The data files one write task produced, sent from the executor to the driver's commit. */
public final class ProtectedTaskCommit implements WriterCommitMessage {
  private static final long serialVersionUID = 1L;

  private final DataFile[] files;

  public ProtectedTaskCommit(DataFile[] files) {
    this.files = files.clone();
  }

  public DataFile[] files() {
    return files.clone();
  }

  /** Reports bytes and records written to the running Spark task; a no-op outside a task. */
  void reportOutputMetrics() {
    TaskContext context = TaskContext.get();
    if (context == null) {
      return;
    }
    long bytes = 0L;
    long records = 0L;
    for (DataFile file : files) {
      bytes += file.fileSizeInBytes();
      records += file.recordCount();
    }
    OutputMetrics metrics = context.taskMetrics().outputMetrics();
    metrics.setBytesWritten(bytes);
    metrics.setRecordsWritten(records);
  }

  @Override
  public String toString() {
    return "ProtectedTaskCommit" + Arrays.stream(files).map(f -> f.location()).toList();
  }
}
