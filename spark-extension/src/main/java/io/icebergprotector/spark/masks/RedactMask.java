/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.spark.masks;

import io.icebergprotector.policy.masks.RedactKernel;
import java.util.Map;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.expressions.If;
import org.apache.spark.sql.catalyst.expressions.IsNull;
import org.apache.spark.sql.catalyst.expressions.Literal;
import org.apache.spark.sql.types.BinaryType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.Decimal;
import org.apache.spark.sql.types.DecimalType;
import org.apache.spark.sql.types.StringType;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * {@code redact}: a constant of the column's type for every non-null value ({@link RedactKernel}),
 * as a Spark internal value.
 */
final class RedactMask {
  static final UTF8String REDACTED_STRING = UTF8String.fromBytes(RedactKernel.stringUtf8());

  /** The constants of the types whose Spark values are boxed primitives. */
  private static final Map<DataType, Object> PRIMITIVES =
      Map.of(
          DataTypes.BooleanType, RedactKernel.BOOLEAN,
          DataTypes.ByteType, RedactKernel.BYTE,
          DataTypes.ShortType, RedactKernel.SHORT,
          DataTypes.IntegerType, RedactKernel.INT,
          DataTypes.LongType, RedactKernel.LONG,
          DataTypes.FloatType, RedactKernel.FLOAT,
          DataTypes.DoubleType, RedactKernel.DOUBLE,
          DataTypes.DateType, RedactKernel.EPOCH_DAY,
          DataTypes.TimestampType, RedactKernel.EPOCH_MICROS,
          DataTypes.TimestampNTZType, RedactKernel.EPOCH_MICROS);

  private RedactMask() {}

  /** The value kernel: the constant of {@code type} as a Spark internal value. */
  static Object constant(MaskType type) {
    DataType t = type.sparkType();
    if (t instanceof StringType) {
      return REDACTED_STRING;
    } else if (t instanceof BinaryType) {
      return RedactKernel.binary(type.fixedLength());
    } else if (t instanceof DecimalType) {
      DecimalType decimal = (DecimalType) t;
      return Decimal.apply(RedactKernel.DECIMAL_UNSCALED, decimal.precision(), decimal.scale());
    } else if (PRIMITIVES.containsKey(t)) {
      return PRIMITIVES.get(t);
    }
    throw new IllegalStateException("No redaction constant for type " + type);
  }

  static ColumnMask bind(MaskType type) {
    Object value = constant(type);
    if (value instanceof byte[]) {
      byte[] bytes = (byte[]) value;
      // callers may keep what they get: a fresh array per value
      return ColumnMask.constant(
          type, bytes::clone, (in, row, out) -> out.putByteArray(row, bytes));
    }
    return ColumnMask.constant(type, () -> value, writer(type, value));
  }

  /** Writes {@code value} (the constant of {@code type}) at a row, never reading the input. */
  private static ColumnMask.RowMask writer(MaskType type, Object value) {
    if (value instanceof UTF8String) {
      byte[] bytes = ((UTF8String) value).getBytes();
      return (in, row, out) -> out.putByteArray(row, bytes);
    } else if (value instanceof Boolean) {
      boolean b = (Boolean) value;
      return (in, row, out) -> out.putBoolean(row, b);
    } else if (value instanceof Byte) {
      byte b = (Byte) value;
      return (in, row, out) -> out.putByte(row, b);
    } else if (value instanceof Short) {
      short s = (Short) value;
      return (in, row, out) -> out.putShort(row, s);
    } else if (value instanceof Integer) {
      int i = (Integer) value;
      return (in, row, out) -> out.putInt(row, i);
    } else if (value instanceof Long) {
      long l = (Long) value;
      return (in, row, out) -> out.putLong(row, l);
    } else if (value instanceof Float) {
      float f = (Float) value;
      return (in, row, out) -> out.putFloat(row, f);
    } else if (value instanceof Double) {
      double d = (Double) value;
      return (in, row, out) -> out.putDouble(row, d);
    } else if (value instanceof Decimal) {
      Decimal decimal = (Decimal) value;
      int precision = decimal.precision();
      if (precision > Decimal.MAX_LONG_DIGITS()) {
        // what putDecimal stores for a wide decimal, computed once instead of per row
        byte[] unscaled = decimal.toJavaBigDecimal().unscaledValue().toByteArray();
        return (in, row, out) -> out.putByteArray(row, unscaled);
      }
      return (in, row, out) -> out.putDecimal(row, decimal, precision);
    }
    throw new IllegalStateException("No vector writer for the redaction constant of " + type);
  }

  static Expression expression(Expression value, MaskType type) {
    DataType t = type.sparkType();
    return new If(new IsNull(value), new Literal(null, t), new Literal(constant(type), t));
  }
}
