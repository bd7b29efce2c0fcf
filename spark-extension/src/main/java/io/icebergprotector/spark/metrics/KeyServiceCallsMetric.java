/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.spark.metrics;

import org.apache.spark.sql.connector.metric.CustomMetric;
import org.apache.spark.sql.connector.metric.CustomSumMetric;
import org.apache.spark.sql.connector.metric.CustomTaskMetric;

/**
 * Calls that reached the key service during a write or scan, summed over tasks; shown in the SQL
 * tab of the Spark UI as "key service calls" on the write or scan node.
 */
public class KeyServiceCallsMetric extends CustomSumMetric {
  public static final String NAME = "keyServiceCalls";
  public static final String DESCRIPTION = "key service calls";
  public static final CustomMetric[] ALL = {new KeyServiceCallsMetric()};

  /** The metrics a protected write or scan reports (for {@code supportedCustomMetrics}). */
  public static CustomMetric[] all() {
    return ALL.clone();
  }

  /** A task's value of this metric. */
  public static CustomTaskMetric taskValue(long calls) {
    return new CustomTaskMetric() {
      @Override
      public String name() {
        return NAME;
      }

      @Override
      public long value() {
        return calls;
      }
    };
  }

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public String description() {
    return DESCRIPTION;
  }
}
