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
import org.apache.spark.sql.catalyst.util.ArrayData;
import org.apache.spark.sql.catalyst.util.MapData;
import org.apache.spark.sql.classic.ExpressionUtils;
import org.apache.spark.sql.execution.datasources.LogicalRelation;
import org.apache.spark.sql.sources.BaseRelation;
import org.apache.spark.sql.types.AbstractDataType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.unsafe.types.UTF8String;
import scala.Option;

/**
 * Spark 4.0 and 4.1 version of the Spark calls whose form differs between Spark 3.5 and 4.0 (the
 * Spark 3.5 version, in src/main/spark-3.5, has the same methods). Spark 4.0 split the Dataset and
 * Column API from the classic engine ({@code org.apache.spark.sql.classic}), gave {@code
 * StaticInvoke} a scalar function, {@code RaiseError} an error class with parameters, and {@code
 * LogicalRelation} and {@code LocalRelation} a stream.
 */
public final class SparkCompat {
  private static final String ERROR_MESSAGE = "errorMessage";

  private SparkCompat() {}

  /** The Catalyst expression of a column. */
  public static Expression expression(Column column) {
    return ExpressionUtils.expression(column);
  }

  /** A column of a Catalyst expression. */
  public static Column column(Expression expression) {
    return ExpressionUtils.column(expression);
  }

  /** The rows of a resolved or unresolved logical plan. */
  public static Dataset<Row> ofRows(SparkSession spark, LogicalPlan plan) {
    return org.apache.spark.sql.classic.Dataset.ofRows(
        (org.apache.spark.sql.classic.SparkSession) spark, plan);
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
        true,
        Option.empty());
  }

  /** An expression of type {@code type} that fails the query with {@code message}. */
  public static Expression raiseError(String message, DataType type) {
    // Spark's own form of raise_error(message): USER_RAISED_EXCEPTION with errorMessage
    RaiseError user =
        new RaiseError(new Literal(UTF8String.fromString(message), DataTypes.StringType));
    return new RaiseError(user.errorClass(), user.errorParms(), type);
  }

  /**
   * The message of a {@link #raiseError} expression, or null for any other expression. Its
   * parameters are {@code map('errorMessage', <message>)}: a {@code CreateMap} as built, a map
   * literal once the optimizer has folded it.
   */
  public static String raisedMessage(Expression expression) {
    if (!(expression instanceof RaiseError)) {
      return null;
    }
    Expression parameters = ((RaiseError) expression).errorParms();
    if (!parameters.foldable()) {
      return null;
    }
    Object value = parameters.eval(null);
    if (!(value instanceof MapData)) {
      return null;
    }
    ArrayData keys = ((MapData) value).keyArray();
    ArrayData values = ((MapData) value).valueArray();
    for (int i = 0; i < keys.numElements(); i++) {
      if (ERROR_MESSAGE.equals(keys.getUTF8String(i).toString())) {
        return values.isNullAt(i) ? null : values.getUTF8String(i).toString();
      }
    }
    return null;
  }

  /** {@code relation} reading {@code newRelation} instead, with the same output and table. */
  public static LogicalRelation withRelation(LogicalRelation relation, BaseRelation newRelation) {
    return new LogicalRelation(
        newRelation,
        relation.output(),
        relation.catalogTable(),
        relation.isStreaming(),
        relation.stream());
  }

  /** An empty relation with {@code output}: a stand-in child for resolving expressions. */
  public static LocalRelation emptyRelation(List<Attribute> output) {
    return new LocalRelation(
        ScalaCollections.asScalaList(output),
        ScalaCollections.asScalaList(List.of()),
        false,
        Option.empty());
  }
}
