package io.icebergprotector.spark.masks;

import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.expressions.If;
import org.apache.spark.sql.catalyst.expressions.IsNull;
import org.apache.spark.sql.catalyst.expressions.Literal;
import org.apache.spark.sql.types.BinaryType;
import org.apache.spark.sql.types.BooleanType;
import org.apache.spark.sql.types.ByteType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DateType;
import org.apache.spark.sql.types.Decimal;
import org.apache.spark.sql.types.DecimalType;
import org.apache.spark.sql.types.DoubleType;
import org.apache.spark.sql.types.FloatType;
import org.apache.spark.sql.types.IntegerType;
import org.apache.spark.sql.types.LongType;
import org.apache.spark.sql.types.ShortType;
import org.apache.spark.sql.types.StringType;
import org.apache.spark.sql.types.TimestampNTZType;
import org.apache.spark.sql.types.TimestampType;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * {@code redact}: a constant of the column's type for every non-null value: {@code "****"}, 0, 0.0,
 * {@code false}, 1970-01-01, 1970-01-01T00:00:00Z, an empty byte array ({@code fixed(L)}: L zero
 * bytes), decimal 0 with the column's scale.
 */
final class RedactMask {
  static final UTF8String REDACTED_STRING = UTF8String.fromString("****");

  private RedactMask() {}

  /** The value kernel: the constant of {@code type} as a Spark internal value. */
  static Object constant(MaskType type) {
    DataType t = type.sparkType();
    if (t instanceof StringType) {
      return REDACTED_STRING;
    } else if (t instanceof BinaryType) {
      return new byte[type.fixedLength()];
    } else if (t instanceof BooleanType) {
      return false;
    } else if (t instanceof ByteType) {
      return (byte) 0;
    } else if (t instanceof ShortType) {
      return (short) 0;
    } else if (t instanceof IntegerType || t instanceof DateType) {
      return 0;
    } else if (t instanceof LongType
        || t instanceof TimestampType
        || t instanceof TimestampNTZType) {
      return 0L;
    } else if (t instanceof FloatType) {
      return 0f;
    } else if (t instanceof DoubleType) {
      return 0d;
    } else if (t instanceof DecimalType) {
      DecimalType decimal = (DecimalType) t;
      return Decimal.apply(0L, decimal.precision(), decimal.scale());
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
