/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.spark.masks;

import java.util.function.IntUnaryOperator;
import java.util.function.LongUnaryOperator;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;
import org.apache.spark.sql.execution.vectorized.WritableColumnVector;
import org.apache.spark.sql.types.Decimal;
import org.apache.spark.sql.types.DecimalType;
import org.apache.spark.sql.vectorized.ColumnVector;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * One mask bound to one column type, with its two kernels over Spark's internal values: the value
 * kernel {@link #apply} masks one value (row reads), the vector kernel {@link #fill} a column
 * vector (columnar reads). Both run the same per-value function of the mask, so a row and a vector
 * of the same value always mask alike; the vector kernel reads and writes each row with the
 * primitive accessors of its type (no boxing). Nulls stay null. Build one with {@link
 * MaskEngine#columnMask}; not thread-safe (a hash mask keeps one keyed HMAC): one per reader.
 */
public final class ColumnMask {
  private final MaskType type;
  private final UnaryOperator<Object> value;
  private final RowMask row;

  private ColumnMask(MaskType type, UnaryOperator<Object> value, RowMask row) {
    this.type = type;
    this.value = value;
    this.row = row;
  }

  /** The type of the values, and of the masked values (a mask keeps the column's type). */
  public MaskType type() {
    return type;
  }

  /** The masked form of one non-null value (null for the {@code null} mask). */
  public Object apply(Object input) {
    return value.apply(input);
  }

  /**
   * Writes the masked form of the first {@code numRows} values of {@code in} to {@code out}, a
   * vector of {@link #type()} with room for them; a NULL input is a NULL output.
   */
  public void fill(ColumnVector in, int numRows, WritableColumnVector out) {
    if (row == null) {
      out.putNulls(0, numRows);
      return;
    }
    boolean nulls = in.hasNull();
    for (int i = 0; i < numRows; i++) {
      if (nulls && in.isNullAt(i)) {
        out.putNull(i);
      } else {
        row.mask(in, i, out);
      }
    }
  }

  /** Masks the non-null value at one row of a vector into the same row of another. */
  @FunctionalInterface
  interface RowMask {
    void mask(ColumnVector in, int row, WritableColumnVector out);
  }

  // One factory per value type: each takes a primitive or reference function of the mask and
  // gives it the accessors of that type.

  static ColumnMask ints(MaskType type, IntUnaryOperator fn) {
    return new ColumnMask(
        type,
        v -> fn.applyAsInt((Integer) v),
        (in, i, out) -> out.putInt(i, fn.applyAsInt(in.getInt(i))));
  }

  static ColumnMask longs(MaskType type, LongUnaryOperator fn) {
    return new ColumnMask(
        type,
        v -> fn.applyAsLong((Long) v),
        (in, i, out) -> out.putLong(i, fn.applyAsLong(in.getLong(i))));
  }

  /** Bytes: {@code fn} returns a value in the byte range. */
  static ColumnMask bytes(MaskType type, IntUnaryOperator fn) {
    return new ColumnMask(
        type,
        v -> (byte) fn.applyAsInt((Byte) v),
        (in, i, out) -> out.putByte(i, (byte) fn.applyAsInt(in.getByte(i))));
  }

  /** Shorts: {@code fn} returns a value in the short range. */
  static ColumnMask shorts(MaskType type, IntUnaryOperator fn) {
    return new ColumnMask(
        type,
        v -> (short) fn.applyAsInt((Short) v),
        (in, i, out) -> out.putShort(i, (short) fn.applyAsInt(in.getShort(i))));
  }

  static ColumnMask strings(MaskType type, UnaryOperator<UTF8String> fn) {
    return new ColumnMask(
        type,
        v -> fn.apply((UTF8String) v),
        (in, i, out) -> out.putByteArray(i, fn.apply(in.getUTF8String(i)).getBytes()));
  }

  static ColumnMask binaries(MaskType type, UnaryOperator<byte[]> fn) {
    return new ColumnMask(
        type,
        v -> fn.apply((byte[]) v),
        (in, i, out) -> out.putByteArray(i, fn.apply(in.getBinary(i))));
  }

  static ColumnMask decimals(MaskType type, UnaryOperator<Decimal> fn) {
    DecimalType decimal = (DecimalType) type.sparkType();
    int precision = decimal.precision();
    int scale = decimal.scale();
    return new ColumnMask(
        type,
        v -> fn.apply((Decimal) v),
        (in, i, out) -> out.putDecimal(i, fn.apply(in.getDecimal(i, precision, scale)), precision));
  }

  /**
   * The same value for every non-null input, which is never read.
   *
   * @param constant a fresh copy of the value per call (arrays are mutable)
   * @param put writes the value at a row of the output vector, never reading the input
   */
  static ColumnMask constant(MaskType type, Supplier<Object> constant, RowMask put) {
    return new ColumnMask(type, v -> constant.get(), put);
  }

  /** The {@code null} mask: every value reads as NULL. */
  static ColumnMask nulls(MaskType type) {
    return new ColumnMask(type, v -> null, null);
  }
}
