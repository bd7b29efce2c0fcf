/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.spark.analysis;

import io.icebergprotector.spark.compat.ScalaCollections;
import io.icebergprotector.spark.core.PrincipalBinding;
import io.icebergprotector.spark.read.ProtectedScan;
import io.icebergprotector.spark.table.ProtectingCatalog;
import io.icebergprotector.spark.tokens.TokenCallBinding;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.expressions.ScalaUDF;
import org.apache.spark.sql.catalyst.plans.logical.Filter;
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan;
import org.apache.spark.sql.catalyst.rules.Rule;
import org.apache.spark.sql.execution.SparkPlan;
import org.apache.spark.sql.execution.adaptive.AdaptiveSparkPlanExec;
import org.apache.spark.sql.execution.adaptive.QueryStageExec;
import org.apache.spark.sql.execution.columnar.InMemoryRelation;
import org.apache.spark.sql.execution.columnar.InMemoryTableScanExec;
import org.apache.spark.sql.execution.datasources.v2.BatchScanExec;
import org.apache.spark.sql.types.DataTypes;
import scala.Function1;
import scala.runtime.AbstractFunction0;

/**
 * Optimizer rule for cached data ({@code CACHE TABLE}, {@code df.cache()}): Spark answers a query
 * from the cache by matching plans, without building a scan or binding a token call, so the
 * protected scan or the {@code unprotect} call that filled the cache never sees who reads from it.
 * Cached data of protected tables and of token calls is therefore checked here:
 *
 * <ul>
 *   <li>data cached as another principal than the one the session acts as now is refused at
 *       planning (protected tables compare equal only for the same principal, so a fresh query by
 *       another principal never matches such a cache entry; a view or DataFrame built earlier
 *       does);
 *   <li>where a session names its principal in its settings (local mode), a check above the cached
 *       relation runs on the executors whenever the plan runs, so a DataFrame planned as one
 *       principal and executed again after the session switched is refused too.
 * </ul>
 */
public final class ProtectedCacheCheck extends Rule<LogicalPlan> {
  static final String CHECK_NAME = "iceberg_protector_principal_check";

  private final SparkSession session;

  public ProtectedCacheCheck(SparkSession session) {
    this.session = session;
  }

  @Override
  public LogicalPlan apply(LogicalPlan plan) {
    return rewrite(plan);
  }

  private LogicalPlan rewrite(LogicalPlan node) {
    if (node instanceof Filter
        && isCheck(((Filter) node).condition())
        && ((Filter) node).child() instanceof InMemoryRelation) {
      bindings((InMemoryRelation) ((Filter) node).child()).forEach(this::checkPlanning);
      return node;
    }
    if (node instanceof InMemoryRelation) {
      List<PrincipalBinding> bindings = bindings((InMemoryRelation) node);
      bindings.forEach(this::checkPlanning);
      LogicalPlan checked = node;
      for (PrincipalBinding binding : bindings) {
        if (binding.switchable()) {
          checked = new Filter(checkExpression(binding), checked);
        }
      }
      return checked;
    }
    return node.mapChildren((Function1<LogicalPlan, LogicalPlan>) this::rewrite);
  }

  /** Refuses cached data read as another principal than the session's current one. */
  private void checkPlanning(PrincipalBinding binding) {
    ProtectingCatalog catalog =
        ProtectingCatalog.of(session, binding.catalogName(), binding.table());
    io.icebergprotector.policy.Principal current = catalog.principal(session);
    if (!current.equals(binding.principal())) {
      throw binding.mismatch(current);
    }
  }

  /**
   * The principals whose keys filled a cached relation (usually none or one): those of its
   * protected scans and of its {@code protect}/{@code unprotect} calls.
   */
  static List<PrincipalBinding> bindings(InMemoryRelation relation) {
    List<PrincipalBinding> bindings = new ArrayList<>();
    visit(
        relation.cacheBuilder().cachedPlan(),
        node -> {
          List<PrincipalBinding> found = new ArrayList<>(TokenCallBinding.bindingsIn(node));
          if (node instanceof BatchScanExec
              && ((BatchScanExec) node).scan() instanceof ProtectedScan) {
            found.add(
                ((ProtectedScan) ((BatchScanExec) node).scan()).projection().spec().binding());
          }
          for (PrincipalBinding binding : found) {
            if (binding != null && !bindings.contains(binding)) {
              bindings.add(binding);
            }
          }
        });
    return bindings;
  }

  private static void visit(SparkPlan plan, Consumer<SparkPlan> onNode) {
    onNode.accept(plan);
    List<SparkPlan> next = new ArrayList<>(ScalaCollections.asJava(plan.children()));
    next.addAll(ScalaCollections.asJava(plan.subqueries()));
    if (plan instanceof AdaptiveSparkPlanExec) {
      next.add(((AdaptiveSparkPlanExec) plan).executedPlan());
    } else if (plan instanceof QueryStageExec) {
      next.add(((QueryStageExec) plan).plan());
    } else if (plan instanceof InMemoryTableScanExec) {
      next.add(((InMemoryTableScanExec) plan).relation().cacheBuilder().cachedPlan());
    }
    for (SparkPlan child : next) {
      visit(child, onNode);
    }
  }

  /** A filter that always passes, and fails a task whose session acts as another principal. */
  static Expression checkExpression(PrincipalBinding binding) {
    // A Catalyst ScalaUDF, not a Column: this rule runs in the optimizer, after analysis, and
    // Spark 4.0's Column wraps a UDF in a node only the analyzer resolves
    return new ScalaUDF(
        new TaskCheck(binding),
        DataTypes.BooleanType,
        ScalaCollections.asScalaList(List.<Expression>of()),
        ScalaCollections.asScalaList(List.of()),
        scala.Option.empty(),
        scala.Option.apply(CHECK_NAME),
        false,
        false);
  }

  /** The check's function: shipped to executors with the plan, hence serializable. */
  private static final class TaskCheck extends AbstractFunction0<Object> implements Serializable {
    private static final long serialVersionUID = 1L;

    private final PrincipalBinding binding;

    TaskCheck(PrincipalBinding binding) {
      this.binding = binding;
    }

    @Override
    public Object apply() {
      binding.checkTask();
      return Boolean.TRUE;
    }
  }

  static boolean isCheck(Expression expression) {
    if (!(expression instanceof ScalaUDF)) {
      return false;
    }
    scala.Option<String> name = ((ScalaUDF) expression).udfName();
    return name.isDefined() && name.get().equals(CHECK_NAME);
  }
}
