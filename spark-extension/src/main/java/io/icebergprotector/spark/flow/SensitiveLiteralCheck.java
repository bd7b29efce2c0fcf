/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.spark.flow;

import io.icebergprotector.spark.compat.ScalaCollections;
import io.icebergprotector.spark.logs.SensitiveLiterals;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Consumer;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.expressions.Like;
import org.apache.spark.sql.catalyst.expressions.Literal;
import org.apache.spark.sql.catalyst.expressions.Predicate;
import org.apache.spark.sql.catalyst.expressions.SubqueryExpression;
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan;
import org.apache.spark.sql.catalyst.plans.logical.V2WriteCommand;
import org.apache.spark.sql.types.BooleanType;
import org.apache.spark.sql.types.StringType;
import scala.Function1;
import scala.runtime.AbstractFunction1;
import scala.runtime.BoxedUnit;

/**
 * Registers, for each analyzed plan that reads or overwrites protected data, the literals of its
 * conditions in {@link SensitiveLiterals}, before Spark's optimizer and planner log them. Every
 * predicate over a column counts, not only those over protected columns: an equality on another
 * column can be carried over to a protected one by Spark's constraint inference ({@code a = p AND a
 * = 'x'} becomes {@code p = 'x'}), and a literal redacted once too often costs only a log line's
 * detail.
 *
 * <p>A literal is registered in each form Spark and Iceberg print it: as Catalyst shows it ({@code
 * 2024-01-31} for a date), as its internal value ({@code 19753}, which the data source API's {@code
 * LiteralValue} prints), with SQL-escaped quotes, and for a {@code LIKE} pattern each of its fixed
 * parts, since the optimizer turns {@code LIKE 'x%'} into {@code StartsWith(c, x)}.
 */
public final class SensitiveLiteralCheck extends AbstractFunction1<LogicalPlan, BoxedUnit> {
  private final SparkSession session;
  private final SensitiveLiterals literals;

  SensitiveLiteralCheck(SparkSession session, SensitiveLiterals literals) {
    this.session = session;
    this.literals = literals;
  }

  /** For {@code SparkSessionExtensions.injectCheckRule}. */
  public static Function1<LogicalPlan, BoxedUnit> forSession(SparkSession session) {
    return new SensitiveLiteralCheck(session, SensitiveLiterals.global());
  }

  @Override
  public BoxedUnit apply(LogicalPlan plan) {
    if (!touchesProtectedData(plan)) {
      return BoxedUnit.UNIT;
    }
    Set<String> texts = new LinkedHashSet<>();
    forEachNode(
        plan,
        node -> {
          for (Expression expression : ScalaCollections.asJava(node.expressions())) {
            collectConditions(expression, texts);
          }
        });
    literals.register(texts);
    return BoxedUnit.UNIT;
  }

  private boolean touchesProtectedData(LogicalPlan plan) {
    FlowSources sources = FlowSources.ofSession(session);
    boolean[] found = {false};
    forEachNode(
        plan,
        node -> {
          if (!found[0]) {
            found[0] =
                isProtectedSource(sources, node)
                    || (node instanceof V2WriteCommand
                        && ((V2WriteCommand) node).table() instanceof LogicalPlan
                        && isProtectedSource(
                            sources, (LogicalPlan) ((V2WriteCommand) node).table()));
          }
        });
    return found[0];
  }

  /** Every node of {@code plan}, and of the plans of its subqueries. */
  private static void forEachNode(LogicalPlan plan, Consumer<LogicalPlan> action) {
    action.accept(plan);
    for (Expression expression : ScalaCollections.asJava(plan.expressions())) {
      forEachSubquery(expression, subquery -> forEachNode(subquery, action));
    }
    for (LogicalPlan child : ScalaCollections.asJava(plan.children())) {
      forEachNode(child, action);
    }
  }

  private static void forEachSubquery(Expression expression, Consumer<LogicalPlan> action) {
    if (expression instanceof SubqueryExpression) {
      action.accept(((SubqueryExpression) expression).plan());
    }
    for (Expression child : ScalaCollections.asJava(expression.children())) {
      forEachSubquery(child, action);
    }
  }

  private static boolean isProtectedSource(FlowSources sources, LogicalPlan node) {
    List<Set<Flow>> flows = sources.flowsOf(node);
    return flows != null && flows.stream().anyMatch(column -> !column.isEmpty());
  }

  /** The literals of every predicate within {@code expression} that reads a column. */
  private static void collectConditions(Expression expression, Set<String> texts) {
    if (expression instanceof Predicate && !expression.references().isEmpty()) {
      collectValues(expression, expression instanceof Like, texts);
      return;
    }
    for (Expression child : ScalaCollections.asJava(expression.children())) {
      collectConditions(child, texts);
    }
  }

  /** The constant parts of {@code expression}, each evaluated once, as the values they are. */
  private static void collectValues(Expression expression, boolean pattern, Set<String> texts) {
    if (expression.foldable()) {
      Object value;
      try {
        value = expression.eval(null);
      } catch (RuntimeException e) {
        // a constant that cannot be evaluated (a failing cast) is printed as written
        collectLiterals(expression, texts);
        return;
      }
      addForms(new Literal(value, expression.dataType()), pattern, texts);
      collectLiterals(expression, texts);
      return;
    }
    for (Expression child : ScalaCollections.asJava(expression.children())) {
      collectValues(child, pattern || child instanceof Like, texts);
    }
  }

  private static void collectLiterals(Expression expression, Set<String> texts) {
    if (expression instanceof Literal) {
      addForms((Literal) expression, false, texts);
    }
    for (Expression child : ScalaCollections.asJava(expression.children())) {
      collectLiterals(child, texts);
    }
  }

  private static void addForms(Literal literal, boolean pattern, Set<String> texts) {
    Object value = literal.value();
    if (value == null || literal.dataType() instanceof BooleanType) {
      return; // NULL, true and false tell nothing about a value
    }
    String internal = String.valueOf(value);
    texts.add(internal);
    texts.add(literal.toString());
    if (literal.dataType() instanceof StringType) {
      if (internal.indexOf('\'') >= 0) {
        texts.add(internal.replace("'", "''"));
        texts.add(internal.replace("'", "\\'"));
      }
      if (pattern) {
        for (String part : internal.split("(?<!\\\\)[%_]")) {
          texts.add(part.replace("\\", ""));
        }
      }
    }
  }
}
