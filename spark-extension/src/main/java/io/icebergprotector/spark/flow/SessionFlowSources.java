/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.spark.flow;

import io.icebergprotector.policy.Access;
import io.icebergprotector.policy.AccessLevel;
import io.icebergprotector.policy.ColumnPolicy;
import io.icebergprotector.policy.TablePolicy;
import io.icebergprotector.spark.compat.ScalaCollections;
import io.icebergprotector.spark.paths.PathProtection;
import io.icebergprotector.spark.paths.PathScope;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;
import org.apache.spark.rdd.RDD;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.expressions.Attribute;
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan;
import org.apache.spark.sql.catalyst.plans.logical.Project;
import org.apache.spark.sql.execution.ExternalRDD;
import org.apache.spark.sql.execution.LogicalRDD;
import org.apache.spark.sql.execution.datasources.LogicalRelation;
import org.apache.spark.sql.execution.datasources.v2.DataSourceV2Relation;

/**
 * The protected sources of a session: Iceberg tables of a protecting catalog ({@link
 * IcebergTables}; their scan applies the view) and Parquet relations under a policy prefix (whose
 * view is the {@code Project} the analyzer put right above them), and DataFrames made from RDDs of
 * them ({@link RddLineage}).
 */
final class SessionFlowSources implements FlowSources {
  private final SparkSession session;
  private final Supplier<Optional<PathScope>> pathScope;

  SessionFlowSources(SparkSession session, Supplier<Optional<PathScope>> pathScope) {
    this.session = session;
    this.pathScope = pathScope;
  }

  @Override
  public List<Set<Flow>> flowsOf(LogicalPlan node) {
    if (node instanceof DataSourceV2Relation && IcebergFlows.INSTANCE != null) {
      return IcebergFlows.INSTANCE.sourceFlows((DataSourceV2Relation) node, session);
    }
    if (node instanceof LogicalRDD) {
      return rddFlows(node, ((LogicalRDD) node).rdd());
    }
    if (node instanceof ExternalRDD) {
      return rddFlows(node, ((ExternalRDD<?>) node).rdd());
    }
    if (node instanceof Project && PathProtection.hasView(((Project) node).child())) {
      // the principal's view of a Parquet relation: column i of the view is column i of the files
      return pathFlows(((Project) node).child());
    }
    return pathFlows(node);
  }

  /** A DataFrame made from an RDD: each column may hold any protected column behind the RDD. */
  private List<Set<Flow>> rddFlows(LogicalPlan node, RDD<?> rdd) {
    Set<Flow> behind = RddLineage.of(rdd, this::filesUnder);
    if (behind.isEmpty()) {
      return null;
    }
    List<Set<Flow>> out = new ArrayList<>();
    for (int i = 0; i < node.output().size(); i++) {
      out.add(behind);
    }
    return out;
  }

  /** Every protected column of the path-prefix entry that governs {@code location}, as read. */
  private Set<Flow> filesUnder(String location) {
    Optional<PathScope> maybeScope = pathScope.get();
    Optional<TablePolicy> entry =
        maybeScope.isEmpty() ? Optional.empty() : maybeScope.get().policyFor(location);
    if (entry.isEmpty()) {
      return Set.of();
    }
    PathScope scope = maybeScope.get();
    FlowSource source = pathSource(FlowSource.RDD_OF_PATH, entry.get(), scope);
    Set<Flow> flows = new LinkedHashSet<>();
    for (ColumnPolicy column : entry.get().columns()) {
      flows.add(flow(source, column, scope, List.of()));
    }
    return flows;
  }

  private static FlowSource pathSource(String kind, TablePolicy entry, PathScope scope) {
    return new FlowSource(
        kind, entry.name(), entry, scope.policy(), scope.principal(), scope.context().kms());
  }

  private static Flow flow(
      FlowSource source, ColumnPolicy column, PathScope scope, List<String> subPath) {
    Access access = column.accessFor(scope.roles());
    return new Flow(
        source,
        column.path(),
        column.path(),
        access.level(),
        access.level() == AccessLevel.MASKED ? access.mask().spec() : null,
        subPath);
  }

  private List<Set<Flow>> pathFlows(LogicalPlan relation) {
    if (!(relation instanceof LogicalRelation)) {
      return null;
    }
    Optional<PathScope> maybeScope = pathScope.get();
    if (maybeScope.isEmpty()) {
      return null;
    }
    PathScope scope = maybeScope.get();
    Optional<TablePolicy> entry = PathProtection.governingEntry(relation, scope, session);
    if (entry.isEmpty()) {
      return null;
    }
    FlowSource source = pathSource("path prefix", entry.get(), scope);
    List<Set<Flow>> out = new ArrayList<>();
    for (Attribute attribute : ScalaCollections.asJava(relation.output())) {
      Set<Flow> flows = new LinkedHashSet<>();
      for (ColumnPolicy column : entry.get().columns()) {
        List<String> parts = column.pathParts();
        if (!parts.get(0).equalsIgnoreCase(attribute.name())) {
          continue;
        }
        flows.add(flow(source, column, scope, parts.subList(1, parts.size())));
      }
      out.add(flows);
    }
    return out;
  }
}
