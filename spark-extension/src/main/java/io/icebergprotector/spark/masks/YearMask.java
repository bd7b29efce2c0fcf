/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.spark.masks;

import io.icebergprotector.policy.masks.YearKernel;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DateType;
import org.apache.spark.sql.types.TimestampNTZType;
import org.apache.spark.sql.types.TimestampType;

/**
 * {@code year}: dates to January 1st of their year, timestamps (with or without zone) to January
 * 1st 00:00 of their year, in UTC ({@link YearKernel}).
 */
public final class YearMask {
  private YearMask() {}

  /** The value kernel of dates (days since 1970-01-01). Public for Catalyst. */
  public static int ofEpochDay(int epochDay) {
    return YearKernel.ofEpochDay(epochDay);
  }

  /** The value kernel of timestamps (microseconds since 1970-01-01T00:00Z). Public for Catalyst. */
  public static long ofEpochMicros(long epochMicros) {
    return YearKernel.ofEpochMicros(epochMicros);
  }

  static ColumnMask bind(MaskType type) {
    return isDate(type)
        ? ColumnMask.ints(type, YearKernel::ofEpochDay)
        : ColumnMask.longs(type, YearKernel::ofEpochMicros);
  }

  static Expression expression(Expression value, MaskType type) {
    String kernel = isDate(type) ? "ofEpochDay" : "ofEpochMicros";
    return MaskEngine.staticInvoke(YearMask.class, type.sparkType(), kernel, value);
  }

  private static boolean isDate(MaskType type) {
    DataType t = type.sparkType();
    if (t instanceof DateType) {
      return true;
    } else if (t instanceof TimestampType || t instanceof TimestampNTZType) {
      return false;
    }
    throw new IllegalStateException("No year mask for type " + type);
  }
}
