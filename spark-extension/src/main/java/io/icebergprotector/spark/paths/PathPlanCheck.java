/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.spark.paths;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import io.icebergprotector.spark.compat.ScalaCollections;
import io.icebergprotector.spark.compat.SparkCompat;
import io.icebergprotector.spark.core.ProtectorException;
import java.util.Optional;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan;
import org.apache.spark.sql.execution.SparkPlan;
import org.apache.spark.sql.execution.SparkStrategy;
import org.apache.spark.sql.execution.datasources.HadoopFsRelation;
import org.apache.spark.sql.execution.datasources.LogicalRelation;
import scala.Option;
import scala.runtime.BoxedUnit;

/**
 * Planner strategy that plans nothing and checks the optimized plan, node by node:
 *
 * <ul>
 *   <li>an {@code on-denied = fail} column that survived column pruning (the query really reads it,
 *       in its output or a filter) fails the query here, on the driver, before any task;
 *   <li>a Parquet relation under a policy prefix must carry the view of the session's current
 *       principal (its {@link PathViewMark}): a relation without it escaped the analyzer rule, and
 *       one analyzed for another principal (the session's {@code spark.protector.*} changed since)
 *       must be analyzed again; a mark this JVM did not issue is refused, and so is a session that
 *       sets the mark's key itself.
 * </ul>
 */
final class PathPlanCheck extends SparkStrategy {
  private final SparkSession session;
  // Relations (by identity) already verified for a principal: the planner calls strategies on
  // every subtree, and deciding which files a relation covers may list catalog partitions.
  private final Cache<HadoopFsRelation, String> verified =
      Caffeine.newBuilder().weakKeys().maximumSize(1_000).build();

  PathPlanCheck(SparkSession session) {
    this.session = session;
  }

  @Override
  public scala.collection.immutable.List<SparkPlan> apply(LogicalPlan plan) {
    // Strategies plan several nodes at once (a scan with its filters and projections), so every
    // call checks its whole subtree.
    plan.foreach(
        node -> {
          check(node);
          return BoxedUnit.UNIT;
        });
    return PathMasks.seq(java.util.List.of());
  }

  private void check(LogicalPlan node) {
    for (Expression expression : ScalaCollections.asJava(node.expressions())) {
      Option<Expression> denied = expression.find(PathPlanCheck::deniedMarker);
      if (denied.isDefined()) {
        String message = SparkCompat.raisedMessage(denied.get());
        throw new ProtectorException(message.substring(PathProjection.DENIED_MARKER.length()));
      }
    }
    HadoopFsRelation fs = PathReadRule.parquetRelation(node);
    if (fs != null) {
      checkRelation((LogicalRelation) node, fs);
    }
  }

  private static boolean deniedMarker(Expression e) {
    String message = SparkCompat.raisedMessage(e);
    return message != null && message.startsWith(PathProjection.DENIED_MARKER);
  }

  private void checkRelation(LogicalRelation relation, HadoopFsRelation fs) {
    String mark = PathViewMark.in(ScalaCollections.asJava(fs.options()));
    if (mark != null && !PathViewMark.isIssued(mark)) {
      throw PathReadRule.reservedOption(relation);
    }
    Optional<PathScope> scope = PathScope.fromSession(session);
    if (scope.isEmpty()) {
      if (mark != null) {
        throw new ProtectorException(
            "This query was analyzed under spark.protector.* settings that the session no longer"
                + " has; build the DataFrame again");
      }
      return;
    }
    checkNoMarkInSettings();
    String identity = scope.get().identity();
    if (mark != null
        && identity.equals(PathViewMark.identityOf(mark))
        && identity.equals(verified.getIfPresent(fs))) {
      return;
    }
    Optional<PathReadRule.Governed> governed =
        PathReadRule.governed(relation, scope.get(), session);
    if (governed.isEmpty()) {
      return;
    }
    if (mark == null) {
      throw new ProtectorException(
          String.format(
              "Refusing to read %s: it is under protected prefix %s of the policy %s, but the read"
                  + " did not get the principal's view (is %s loaded in spark.sql.extensions?)",
              governed.get().location,
              governed.get().entry.name(),
              scope.get().policy().origin(),
              "io.icebergprotector.spark.ProtectorSparkSessionExtensions"));
    }
    if (!identity.equals(PathViewMark.identityOf(mark))) {
      throw new ProtectorException(
          String.format(
              "This query over %s was analyzed for another principal or policy than the session's"
                  + " current one (%s): spark.protector.* changed since; build the DataFrame again",
              governed.get().location, scope.get().principal()));
    }
    verified.put(fs, identity);
  }

  /** SQL could otherwise hand every scan a mark ({@code SET iceberg-protector.path-view=...}). */
  private void checkNoMarkInSettings() {
    if (session.conf().contains(PathViewMark.OPTION)
        || session.sparkContext().hadoopConfiguration().get(PathViewMark.OPTION) != null) {
      throw new ProtectorException(
          String.format(
              "Refusing to plan queries while the session or Hadoop configuration sets %s, which"
                  + " only Iceberg Protector sets (unset it)",
              PathViewMark.OPTION));
    }
  }
}
