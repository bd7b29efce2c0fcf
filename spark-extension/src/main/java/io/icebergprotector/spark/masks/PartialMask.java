/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.spark.masks;

import io.icebergprotector.policy.masks.PartialKernel;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.expressions.Literal;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * {@code partial(keep_last=N)} on strings: every code point but the last N becomes {@code '*'}
 * ({@link PartialKernel}).
 */
public final class PartialMask {
  private PartialMask() {}

  /** The value kernel, on the UTF-8 bytes (no round trip through a String). Public for Catalyst. */
  public static UTF8String partial(UTF8String value, int keepLast) {
    byte[] utf8 = value.getBytes();
    byte[] masked = PartialKernel.maskUtf8(utf8, keepLast);
    return masked == utf8 ? value : UTF8String.fromBytes(masked);
  }

  static ColumnMask bind(MaskType type, int keepLast) {
    return ColumnMask.strings(type, value -> partial(value, keepLast));
  }

  static Expression expression(Expression value, MaskType type, int keepLast) {
    return MaskEngine.staticInvoke(
        PartialMask.class,
        type.sparkType(),
        "partial",
        value,
        new Literal(keepLast, DataTypes.IntegerType));
  }
}
