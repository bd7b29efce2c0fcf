/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.spark.flow;

import io.icebergprotector.spark.paths.PathScope;
import java.util.List;
import java.util.Set;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan;

/** Recognizes the plan nodes whose output is a protector view of protected data. */
public interface FlowSources {
  /**
   * The flows of each output column of {@code node} (by position) when it is a protected source,
   * else null. A source node is not walked further: what lies below it is the view's input.
   */
  List<Set<Flow>> flowsOf(LogicalPlan node);

  /**
   * The protected sources of {@code session}: its protecting catalogs' Iceberg tables, Parquet
   * paths under its policy's prefixes, and DataFrames made from RDDs of either. The session's path
   * scope is looked up once, when first needed.
   */
  static FlowSources ofSession(SparkSession session) {
    return new SessionFlowSources(
        session, DataFlowCheck.memoize(() -> PathScope.fromSession(session)));
  }
}
