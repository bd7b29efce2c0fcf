/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.spark.masks;

import io.icebergprotector.policy.masks.HashKernel;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.expressions.Literal;
import org.apache.spark.sql.types.BinaryType;
import org.apache.spark.sql.types.ByteType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.DateType;
import org.apache.spark.sql.types.Decimal;
import org.apache.spark.sql.types.DecimalType;
import org.apache.spark.sql.types.IntegerType;
import org.apache.spark.sql.types.LongType;
import org.apache.spark.sql.types.ShortType;
import org.apache.spark.sql.types.StringType;
import org.apache.spark.sql.types.TimestampNTZType;
import org.apache.spark.sql.types.TimestampType;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * {@code hash}: a keyed HMAC-SHA256 of each value, of the column's type; the value kernel and its
 * rules are {@link HashKernel}, which this gives Spark's values (and {@link SharedHash} gives to
 * Catalyst).
 */
final class HashMask {
  private HashMask() {}

  static ColumnMask bind(MaskType type, HashKernel hash) {
    DataType t = type.sparkType();
    int length = type.fixedLength();
    if (t instanceof StringType) {
      return ColumnMask.strings(type, value -> string(hash, value));
    } else if (t instanceof BinaryType) {
      return length > 0
          ? ColumnMask.binaries(type, value -> hash.ofFixed(value, length))
          : ColumnMask.binaries(type, hash::ofBinary);
    } else if (t instanceof ByteType) {
      return ColumnMask.bytes(type, value -> hash.ofByte((byte) value));
    } else if (t instanceof ShortType) {
      return ColumnMask.shorts(type, value -> hash.ofShort((short) value));
    } else if (t instanceof IntegerType) {
      return ColumnMask.ints(type, value -> hash.ofInt(value));
    } else if (t instanceof LongType) {
      return ColumnMask.longs(type, hash::ofLong);
    } else if (t instanceof DecimalType) {
      int precision = ((DecimalType) t).precision();
      int scale = ((DecimalType) t).scale();
      return ColumnMask.decimals(type, value -> decimal(hash, value, precision, scale));
    } else if (t instanceof DateType) {
      return ColumnMask.ints(type, hash::ofEpochDay);
    } else if (t instanceof TimestampType) {
      return ColumnMask.longs(type, value -> hash.ofEpochMicros(value, true));
    } else if (t instanceof TimestampNTZType) {
      return ColumnMask.longs(type, value -> hash.ofEpochMicros(value, false));
    }
    throw new IllegalStateException("No hash mask for type " + type);
  }

  /** The hash of a string: its hex digest, as a string. */
  static UTF8String string(HashKernel hash, UTF8String value) {
    return UTF8String.fromBytes(hash.ofUtf8(value.getBytes()));
  }

  /** The hash of a decimal(precision, scale) value, a decimal of the same type. */
  static Decimal decimal(HashKernel hash, Decimal value, int precision, int scale) {
    long unscaled = hash.unscaledOfDecimal(value.toJavaBigDecimal(), precision, scale);
    return Decimal.apply(unscaled, precision, scale);
  }

  /** An {@code Invoke} of the {@link SharedHash} method of the type, with its extra arguments. */
  static Expression expression(Expression value, MaskType type, HashKeySource key) {
    DataType t = type.sparkType();
    List<Expression> arguments = new ArrayList<>(List.of(value));
    String method;
    if (t instanceof StringType) {
      method = "string";
    } else if (t instanceof BinaryType && type.fixedLength() > 0) {
      method = "fixed";
      arguments.add(new Literal(type.fixedLength(), DataTypes.IntegerType));
    } else if (t instanceof BinaryType) {
      method = "digest";
    } else if (t instanceof ByteType) {
      method = "ofByte";
    } else if (t instanceof ShortType) {
      method = "ofShort";
    } else if (t instanceof IntegerType) {
      method = "ofInt";
    } else if (t instanceof LongType) {
      method = "ofLong";
    } else if (t instanceof DecimalType) {
      method = "ofDecimal";
      arguments.add(new Literal(((DecimalType) t).precision(), DataTypes.IntegerType));
      arguments.add(new Literal(((DecimalType) t).scale(), DataTypes.IntegerType));
    } else if (t instanceof DateType) {
      method = "ofDate";
    } else if (t instanceof TimestampType || t instanceof TimestampNTZType) {
      method = "ofTimestamp";
      arguments.add(new Literal(t instanceof TimestampType, DataTypes.BooleanType));
    } else {
      throw new IllegalStateException("No hash mask for type " + type);
    }
    return MaskEngine.invoke(new SharedHash(key), t, method, arguments);
  }
}
