/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.spark.metrics;

import org.apache.spark.sql.connector.metric.CustomTaskMetric;

/**
 * The key-service calls of one Spark task (a data writer or partition reader), for the {@link
 * KeyServiceCallsMetric}: counted on the task's own thread, so tasks running side by side on one
 * executor do not see each other's calls.
 */
public final class TaskKeyCalls {
  private final Thread owner = Thread.currentThread();
  private final long start = ThreadKeyCalls.ofThisThread();
  private long last = 0L;

  /** Calls since creation; off the task thread, the value last seen on it. */
  public long calls() {
    if (Thread.currentThread() == owner) {
      last = ThreadKeyCalls.ofThisThread() - start;
    }
    return last;
  }

  /** For {@code currentMetricsValues()}. */
  public CustomTaskMetric[] metrics() {
    return new CustomTaskMetric[] {KeyServiceCallsMetric.taskValue(calls())};
  }
}
