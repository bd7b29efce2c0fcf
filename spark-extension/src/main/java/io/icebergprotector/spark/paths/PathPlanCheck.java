package io.icebergprotector.spark.paths;

import io.icebergprotector.spark.ProtectorException;
import java.util.Optional;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.expressions.Literal;
import org.apache.spark.sql.catalyst.expressions.RaiseError;
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan;
import org.apache.spark.sql.execution.SparkPlan;
import org.apache.spark.sql.execution.SparkStrategy;
import org.apache.spark.sql.execution.datasources.HadoopFsRelation;
import org.apache.spark.sql.execution.datasources.LogicalRelation;
import scala.Option;
import scala.runtime.BoxedUnit;
import scala.collection.immutable.Seq;
import scala.jdk.javaapi.CollectionConverters;

/**
 * Planner strategy that plans nothing and checks the optimized plan, node by node:
 *
 * <ul>
 *   <li>an {@code on-denied = fail} column that survived column pruning (the query really reads
 *       it, in its output or a filter) fails the query here, on the driver, before any task;
 *   <li>a Parquet relation under a policy prefix must carry the view of the session's current
 *       principal: a relation without it escaped the analyzer rule, and one analyzed for another
 *       principal (the session's {@code spark.protector.*} changed since) must be analyzed again.
 * </ul>
 */
final class PathPlanCheck extends SparkStrategy {
  private final SparkSession session;

  PathPlanCheck(SparkSession session) {
    this.session = session;
  }

  @Override
  public Seq<SparkPlan> apply(LogicalPlan plan) {
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
    for (Expression expression : CollectionConverters.asJava(node.expressions())) {
      Option<Expression> denied = expression.find(PathPlanCheck::deniedMarker);
      if (denied.isDefined()) {
        String message = String.valueOf(((Literal) ((RaiseError) denied.get()).child()).value());
        throw new ProtectorException(message.substring(PathProjection.DENIED_MARKER.length()));
      }
    }
    HadoopFsRelation fs = PathReadRule.parquetRelation(node);
    if (fs != null) {
      checkRelation((LogicalRelation) node, fs);
    }
  }

  private static boolean deniedMarker(Expression e) {
    if (!(e instanceof RaiseError) || !(((RaiseError) e).child() instanceof Literal)) {
      return false;
    }
    Object value = ((Literal) ((RaiseError) e).child()).value();
    return value != null && value.toString().startsWith(PathProjection.DENIED_MARKER);
  }

  private void checkRelation(LogicalRelation relation, HadoopFsRelation fs) {
    Option<String> tag = relation.getTagValue(PathProtection.VIEW_TAG);
    Optional<PathScope> scope = PathScope.fromSession(session);
    if (scope.isEmpty()) {
      if (tag.isDefined()) {
        throw new ProtectorException(
            "This query was analyzed under spark.protector.* settings that the session no longer"
                + " has; build the DataFrame again");
      }
      return;
    }
    Optional<PathReadRule.Governed> governed = PathReadRule.governed(fs, scope.get());
    if (governed.isEmpty()) {
      return;
    }
    if (tag.isEmpty()) {
      throw new ProtectorException(
          String.format(
              "Refusing to read %s: it is under protected prefix %s of the policy %s, but the read"
                  + " did not get the principal's view (is %s loaded in spark.sql.extensions?)",
              governed.get().location, governed.get().entry.name(), scope.get().policy().origin(),
              "io.icebergprotector.spark.ProtectorSparkSessionExtensions"));
    }
    if (!tag.get().equals(scope.get().identity())) {
      throw new ProtectorException(
          String.format(
              "This query over %s was analyzed for another principal or policy than the session's"
                  + " current one (%s): spark.protector.* changed since; build the DataFrame again",
              governed.get().location, scope.get().principal()));
    }
  }
}
