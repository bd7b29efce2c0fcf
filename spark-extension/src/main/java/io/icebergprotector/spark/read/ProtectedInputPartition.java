/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.spark.read;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.List;
import org.apache.iceberg.FileScanTask;
import org.apache.spark.sql.connector.read.InputPartition;

/**
 * One combined scan task of a protected scan: only its file splits. Everything the splits share
 * (table, projection, protection, key scope, policy) travels once per scan, in the {@link
 * ProtectedReaderFactory}. On the driver it also knows the scan it came from: an RDD made from a
 * protected read keeps its partitions, and the data-flow check follows them back to the view the
 * scan returns.
 */
public final class ProtectedInputPartition implements InputPartition, Serializable {
  private static final long serialVersionUID = 2L;

  private final List<FileScanTask> tasks;
  // the driver's scan; executors need only the tasks
  private final transient ProtectedScan origin;

  ProtectedInputPartition(List<FileScanTask> tasks, ProtectedScan origin) {
    this.tasks = new ArrayList<>(tasks);
    this.origin = origin;
  }

  public List<FileScanTask> tasks() {
    return tasks;
  }

  /** The scan that planned this partition; null once it was serialized (on executors). */
  public ProtectedScan origin() {
    return origin;
  }

  @Override
  public String[] preferredLocations() {
    return new String[0];
  }
}
