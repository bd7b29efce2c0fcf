/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.spark.tokens;

import io.icebergprotector.spark.compat.ScalaCollections;
import io.icebergprotector.spark.core.PrincipalBinding;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.expressions.ScalaUDF;
import org.apache.spark.sql.catalyst.plans.logical.AnalysisHelper$;
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan;
import org.apache.spark.sql.catalyst.rules.Rule;
import org.apache.spark.sql.execution.MapPartitionsExec;
import org.apache.spark.sql.execution.SparkPlan;
import scala.Function1;
import scala.PartialFunction;
import scala.runtime.BoxedUnit;

/**
 * Post-hoc resolution rule: binds every {@code protect} and {@code unprotect} call of a query,
 * including those of the views and subqueries it reads, to the principal of the session that
 * analyzes it, which is the session that runs it. Alice's view or global temp view that mallory
 * selects therefore runs with mallory's keys and rights (and is refused when mallory may not), the
 * key server audits the calls as mallory's, and Spark's cache, which matches analyzed plans, never
 * hands mallory data that alice's calls computed. A DataFrame keeps the binding of its analysis;
 * its tasks refuse to run once its session acts as another principal ({@link
 * io.icebergprotector.spark.core.PrincipalBinding}). The optimizer may evaluate bound calls (over a
 * local relation); {@link TokenCallBatching} batches them.
 */
public final class TokenCallBinding extends Rule<LogicalPlan> {
  private final SparkSession session;

  TokenCallBinding(SparkSession session) {
    this.session = session;
  }

  @Override
  public LogicalPlan apply(LogicalPlan plan) {
    // a view's plan was analyzed in the session that created it: rebind it too
    return AnalysisHelper$.MODULE$.allowInvokingTransformsInAnalyzer(
        () ->
            plan.transformUpWithSubqueries(
                ScalaCollections.total(
                    (LogicalPlan node) -> (LogicalPlan) node.transformExpressions(binding()))));
  }

  private PartialFunction<Expression, Expression> binding() {
    return ScalaCollections.total(
        (Expression e) -> {
          if (e instanceof ScalaUDF && ((ScalaUDF) e).function() instanceof TokenCall) {
            ScalaUDF udf = (ScalaUDF) e;
            TokenCall bound =
                TokenFunctions.bind(session, (TokenCall) udf.function(), udf.dataType());
            return new ScalaUDF(
                bound,
                udf.dataType(),
                udf.children(),
                udf.inputEncoders(),
                udf.outputEncoder(),
                udf.udfName(),
                udf.nullable(),
                udf.udfDeterministic());
          }
          return e;
        });
  }

  /**
   * The principals whose keys the token calls of a physical plan node use (a projection's calls, or
   * the batched calls of {@link TokenCallBatching}).
   */
  public static List<PrincipalBinding> bindingsIn(SparkPlan node) {
    List<PrincipalBinding> out = new ArrayList<>();
    for (Expression e : ScalaCollections.asJava(node.expressions())) {
      e.foreach(
          (Function1<Expression, BoxedUnit>)
              x -> {
                if (x instanceof ScalaUDF && ((ScalaUDF) x).function() instanceof TokenCall) {
                  add(out, ((TokenCall) ((ScalaUDF) x).function()).binding());
                }
                return BoxedUnit.UNIT;
              });
    }
    if (node instanceof MapPartitionsExec) {
      Object function = ((MapPartitionsExec) node).func();
      for (TokenCall call : TokenCallBatching.callsOf(function)) {
        add(out, call.binding());
      }
    }
    return out;
  }

  private static void add(List<PrincipalBinding> out, PrincipalBinding binding) {
    if (binding != null && !out.contains(binding)) {
      out.add(binding);
    }
  }
}
