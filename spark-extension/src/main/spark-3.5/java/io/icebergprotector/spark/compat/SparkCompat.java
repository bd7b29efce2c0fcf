/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.spark.compat;

import java.util.List;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.expressions.Attribute;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.expressions.Literal;
import org.apache.spark.sql.catalyst.expressions.RaiseError;
import org.apache.spark.sql.catalyst.expressions.objects.StaticInvoke;
import org.apache.spark.sql.catalyst.plans.logical.LocalRelation;
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan;
import org.apache.spark.sql.execution.datasources.LogicalRelation;
import org.apache.spark.sql.sources.BaseRelation;
import org.apache.spark.sql.types.AbstractDataType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * Spark 3.5 version of the Spark calls whose form differs between Spark 3.5 and 4.0 (the Spark 4.0
 * version, in src/main/spark-4.0, has the same methods). Spark 4.0 split the Dataset and Column API
 * from the classic engine ({@code org.apache.spark.sql.classic}), and changed the constructors of
 * {@code StaticInvoke}, {@code RaiseError}, {@code LogicalRelation} and {@code LocalRelation}.
 */
public final class SparkCompat {
  private SparkCompat() {}

  /** The Catalyst expression of a column. */
  public static Expression expression(Column column) {
    return column.expr();
  }

  /** A column of a Catalyst expression. */
  public static Column column(Expression expression) {
    return new Column(expression);
  }

  /** The rows of a resolved or unresolved logical plan. */
  public static Dataset<Row> ofRows(SparkSession spark, LogicalPlan plan) {
    return Dataset.ofRows(spark, plan);
  }

  /** A null-propagating, deterministic call of a public static method. */
  public static Expression staticInvoke(
      Class<?> kernel, DataType type, String method, List<Expression> arguments) {
    return new StaticInvoke(
        kernel,
        type,
        method,
        ScalaCollections.asScalaList(arguments),
        ScalaCollections.asScalaList(List.<AbstractDataType>of()),
        true,
        true,
        true);
  }

  /** An expression of type {@code type} that fails the query with {@code message}. */
  public static Expression raiseError(String message, DataType type) {
    return new RaiseError(new Literal(UTF8String.fromString(message), DataTypes.StringType), type);
  }

  /** The message of a {@link #raiseError} expression, or null for any other expression. */
  public static String raisedMessage(Expression expression) {
    if (!(expression instanceof RaiseError)
        || !(((RaiseError) expression).child() instanceof Literal)) {
      return null;
    }
    Object value = ((Literal) ((RaiseError) expression).child()).value();
    return value == null ? null : value.toString();
  }

  /** {@code relation} reading {@code newRelation} instead, with the same output and table. */
  public static LogicalRelation withRelation(LogicalRelation relation, BaseRelation newRelation) {
    return new LogicalRelation(
        newRelation, relation.output(), relation.catalogTable(), relation.isStreaming());
  }

  /** An empty relation with {@code output}: a stand-in child for resolving expressions. */
  public static LocalRelation emptyRelation(List<Attribute> output) {
    return new LocalRelation(
        ScalaCollections.asScalaList(output), ScalaCollections.asScalaList(List.of()), false);
  }
}
