/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.spark.masks;

import java.util.List;
import org.apache.spark.sql.execution.vectorized.OnHeapColumnVector;
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
import org.apache.spark.sql.vectorized.ColumnVector;
import org.apache.spark.unsafe.types.UTF8String;

/** Column vectors of Spark internal values, for the tests of the vector kernels. */
public final class TestVectors {
  private TestVectors() {}

  /** A vector of {@code type} holding {@code values} (null entries are NULLs). */
  public static OnHeapColumnVector vector(DataType type, List<Object> values) {
    OnHeapColumnVector vector = new OnHeapColumnVector(values.size(), type);
    for (int i = 0; i < values.size(); i++) {
      Object value = values.get(i);
      if (value == null) {
        vector.putNull(i);
      } else if (value instanceof UTF8String) {
        vector.putByteArray(i, ((UTF8String) value).getBytes());
      } else if (value instanceof byte[]) {
        vector.putByteArray(i, (byte[]) value);
      } else if (value instanceof Boolean) {
        vector.putBoolean(i, (Boolean) value);
      } else if (value instanceof Byte) {
        vector.putByte(i, (Byte) value);
      } else if (value instanceof Short) {
        vector.putShort(i, (Short) value);
      } else if (value instanceof Integer) {
        vector.putInt(i, (Integer) value);
      } else if (value instanceof Long) {
        vector.putLong(i, (Long) value);
      } else if (value instanceof Float) {
        vector.putFloat(i, (Float) value);
      } else if (value instanceof Double) {
        vector.putDouble(i, (Double) value);
      } else if (value instanceof Decimal) {
        vector.putDecimal(i, (Decimal) value, ((DecimalType) type).precision());
      } else {
        throw new IllegalArgumentException("Unsupported test value " + value);
      }
    }
    return vector;
  }

  /** The value at {@code row} as a Spark internal value (strings copied out of the vector). */
  public static Object read(ColumnVector vector, int row, DataType type) {
    if (vector.isNullAt(row)) {
      return null;
    } else if (type instanceof StringType) {
      return vector.getUTF8String(row).clone();
    } else if (type instanceof BinaryType) {
      return vector.getBinary(row);
    } else if (type instanceof BooleanType) {
      return vector.getBoolean(row);
    } else if (type instanceof ByteType) {
      return vector.getByte(row);
    } else if (type instanceof ShortType) {
      return vector.getShort(row);
    } else if (type instanceof IntegerType || type instanceof DateType) {
      return vector.getInt(row);
    } else if (type instanceof LongType
        || type instanceof TimestampType
        || type instanceof TimestampNTZType) {
      return vector.getLong(row);
    } else if (type instanceof FloatType) {
      return vector.getFloat(row);
    } else if (type instanceof DoubleType) {
      return vector.getDouble(row);
    } else if (type instanceof DecimalType) {
      DecimalType decimal = (DecimalType) type;
      return vector.getDecimal(row, decimal.precision(), decimal.scale());
    }
    throw new IllegalArgumentException("Unsupported test type " + type);
  }
}
