/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.spark.masks;

import io.icebergprotector.policy.Mask;
import io.icebergprotector.policy.masks.HashKernel;
import io.icebergprotector.spark.compat.ScalaCollections;
import io.icebergprotector.spark.compat.SparkCompat;
import io.icebergprotector.spark.core.ProtectorException;
import java.util.Arrays;
import java.util.List;
import java.util.function.Supplier;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.expressions.Literal;
import org.apache.spark.sql.catalyst.expressions.objects.Invoke;
import org.apache.spark.sql.types.AbstractDataType;
import org.apache.spark.sql.types.DataType;

/**
 * The masks of every read path: one adapter per mask ({@link NullMask}, {@link RedactMask}, {@link
 * PartialMask}, {@link HashMask} with {@link SharedHash}, {@link YearMask}) that gives the mask
 * library's value kernel ({@code io.icebergprotector.policy.masks}, which the key server calls too)
 * Spark's values: as the value kernel of the Iceberg row reader, in the vector kernel of the
 * Iceberg columnar reader ({@link #columnMask}), and from Catalyst on the plain-Parquet path
 * ({@link #expression}), so a value masks alike on every path and engine. Whether a mask fits a
 * column is decided in one place, {@link Mask#appliesTo} on the column's {@link
 * MaskType#columnType()}. Free of Iceberg classes: the plain-Parquet path runs without Iceberg.
 */
public final class MaskEngine {
  private MaskEngine() {}

  /**
   * Refuses a mask that does not fit a column's type.
   *
   * @param column the column path, for the message
   * @param where where the column is, for the message ({@code "in table db.t"}, {@code "under
   *     s3://b/p"}); may be empty
   * @throws ProtectorException naming the mask, the column, its type and the types the mask fits
   */
  public static void checkFits(Mask mask, MaskType type, String column, String where) {
    if (!mask.appliesTo(type.columnType())) {
      throw new ProtectorException(
          String.format(
              "Mask '%s' of column '%s'%s cannot be applied to type %s; fix the policy (the mask"
                  + " fits: %s)",
              mask.spec(),
              column,
              where == null || where.isEmpty() ? "" : " " + where,
              type,
              mask.applicableTypes()));
    }
  }

  /**
   * The value and vector kernels of {@code mask} on values of {@code type}.
   *
   * @param hashKey the column's HMAC key (a copy the mask wipes), fetched on the first hashed value
   * @throws ProtectorException if the mask does not fit the type ({@link #checkFits})
   */
  public static ColumnMask columnMask(
      Mask mask, MaskType type, String column, String where, Supplier<byte[]> hashKey) {
    checkFits(mask, type, column, where);
    switch (mask.kind()) {
      case NULL:
        return NullMask.bind(type);
      case REDACT:
        return RedactMask.bind(type);
      case PARTIAL:
        return PartialMask.bind(type, mask.keepLast());
      case YEAR:
        return YearMask.bind(type);
      case HASH:
        return HashMask.bind(type, new HashKernel(hashKey));
      default:
        throw new IllegalStateException("Unknown mask " + mask.spec());
    }
  }

  /**
   * {@code mask} over {@code value} of {@code type} as a Catalyst expression that calls the mask's
   * value kernel; NULL stays NULL.
   *
   * @param hashKey the column's HMAC key, derived where the plan runs
   * @throws ProtectorException if the mask does not fit the type ({@link #checkFits})
   */
  public static Expression expression(
      Mask mask,
      Expression value,
      MaskType type,
      String column,
      String where,
      HashKeySource hashKey) {
    checkFits(mask, type, column, where);
    switch (mask.kind()) {
      case NULL:
        return NullMask.expression(type);
      case REDACT:
        return RedactMask.expression(value, type);
      case PARTIAL:
        return PartialMask.expression(value, type, mask.keepLast());
      case YEAR:
        return YearMask.expression(value, type);
      case HASH:
        return HashMask.expression(value, type, hashKey);
      default:
        throw new IllegalStateException("Unknown mask " + mask.spec());
    }
  }

  /** A null-propagating, deterministic call of a public static kernel. */
  static Expression staticInvoke(
      Class<?> kernel, DataType type, String method, Expression... arguments) {
    return SparkCompat.staticInvoke(kernel, type, method, Arrays.asList(arguments));
  }

  /** A null-propagating, deterministic call of a kernel object's public method. */
  static Expression invoke(
      Object kernel, DataType type, String method, List<Expression> arguments) {
    return new Invoke(
        Literal.fromObject(kernel),
        method,
        type,
        seq(arguments),
        seq(List.<AbstractDataType>of()),
        true,
        true,
        true);
  }

  private static <T> scala.collection.immutable.List<T> seq(List<T> list) {
    return ScalaCollections.asScalaList(list);
  }
}
