/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.spark.masks;

import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.expressions.Literal;

/**
 * {@code null}: every value reads as NULL. The readers never read such a column at all (it is a
 * constant NULL, and its key is never requested); the kernels are here for completeness.
 */
final class NullMask {
  private NullMask() {}

  static ColumnMask bind(MaskType type) {
    return ColumnMask.nulls(type);
  }

  static Expression expression(MaskType type) {
    return new Literal(null, type.sparkType());
  }
}
