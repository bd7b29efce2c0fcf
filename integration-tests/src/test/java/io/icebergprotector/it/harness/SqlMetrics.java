/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.it.harness;

import io.icebergprotector.spark.metrics.KeyServiceCallsMetric;
import java.util.HashMap;
import java.util.Map;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.execution.ui.SQLAppStatusStore;
import org.apache.spark.sql.execution.ui.SQLExecutionUIData;
import org.apache.spark.sql.execution.ui.SQLPlanMetric;
import scala.jdk.javaapi.CollectionConverters;

/** SQL metrics of finished executions, as the Spark UI's SQL tab shows them. */
public final class SqlMetrics {
  private SqlMetrics() {}

  /**
   * The sum of the "key service calls" metrics of the latest SQL execution of {@code spark}'s
   * application, or -1 when that execution reports none.
   */
  public static long keyServiceCallsOfLastExecution(SparkSession spark) throws Exception {
    spark.sparkContext().listenerBus().waitUntilEmpty();
    SQLAppStatusStore store = spark.sharedState().statusStore();
    SQLExecutionUIData last =
        CollectionConverters.asJava(store.executionsList()).stream()
            .max((a, b) -> Long.compare(a.executionId(), b.executionId()))
            .orElseThrow();
    scala.collection.Map<Object, String> values = store.executionMetrics(last.executionId());
    Map<Long, Long> byAccumulator = new HashMap<>();
    for (SQLPlanMetric metric : CollectionConverters.asJava(last.metrics())) {
      if (metric.name().equals(KeyServiceCallsMetric.DESCRIPTION)) {
        scala.Option<String> value = values.get(metric.accumulatorId());
        byAccumulator.put(
            metric.accumulatorId(), value.isDefined() ? Long.parseLong(value.get().trim()) : 0L);
      }
    }
    return byAccumulator.isEmpty()
        ? -1
        : byAccumulator.values().stream().mapToLong(Long::longValue).sum();
  }
}
