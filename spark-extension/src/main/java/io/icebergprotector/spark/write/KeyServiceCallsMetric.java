package io.icebergprotector.spark.write;

import org.apache.spark.sql.connector.metric.CustomMetric;
import org.apache.spark.sql.connector.metric.CustomSumMetric;

/** Calls that reached the key service during a write or scan, summed over tasks (Spark UI). */
public class KeyServiceCallsMetric extends CustomSumMetric {
  public static final String NAME = "keyServiceCalls";
  static final CustomMetric[] ALL = {new KeyServiceCallsMetric()};

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public String description() {
    return "key service calls";
  }
}
