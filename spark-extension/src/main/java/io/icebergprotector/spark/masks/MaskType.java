/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.spark.masks;

import static io.icebergprotector.policy.Preconditions.checkArgument;

import io.icebergprotector.policy.ColumnType;
import java.io.Serializable;
import java.util.Objects;
import org.apache.spark.sql.types.ArrayType;
import org.apache.spark.sql.types.BinaryType;
import org.apache.spark.sql.types.BooleanType;
import org.apache.spark.sql.types.ByteType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.DateType;
import org.apache.spark.sql.types.DecimalType;
import org.apache.spark.sql.types.DoubleType;
import org.apache.spark.sql.types.FloatType;
import org.apache.spark.sql.types.IntegerType;
import org.apache.spark.sql.types.LongType;
import org.apache.spark.sql.types.MapType;
import org.apache.spark.sql.types.ShortType;
import org.apache.spark.sql.types.StringType;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.types.TimestampNTZType;
import org.apache.spark.sql.types.TimestampType;

/**
 * A column's type as the masks see it: the Spark type of its values, plus the length L of an
 * Iceberg {@code fixed(L)} column (Spark reads it as binary; its masked values keep L bytes). A
 * type no mask can read (Iceberg's {@code time}, or a nested type) has no Spark type, only its
 * policy {@link ColumnType} and a name for errors.
 *
 * <p>{@link #columnType()} is the only mapping from engine types to the policy's {@link
 * ColumnType}, on which {@link io.icebergprotector.policy.Mask#appliesTo} decides whether a mask
 * fits.
 */
public final class MaskType implements Serializable {
  private static final long serialVersionUID = 1L;

  private final DataType sparkType;
  private final int fixedLength;
  private final ColumnType columnType;
  private final String name;

  private MaskType(DataType sparkType, int fixedLength, ColumnType columnType, String name) {
    this.sparkType = sparkType;
    this.fixedLength = fixedLength;
    this.columnType = columnType;
    this.name = name;
  }

  /** Values of a Spark type. */
  public static MaskType of(DataType sparkType) {
    Objects.requireNonNull(sparkType, "sparkType");
    return new MaskType(sparkType, 0, columnType(sparkType), sparkType.simpleString());
  }

  /** Binary values of exactly {@code length} bytes (Iceberg {@code fixed(length)}). */
  public static MaskType fixed(int length) {
    checkArgument(length > 0, "Invalid fixed length: %s", length);
    return new MaskType(DataTypes.BinaryType, length, ColumnType.BINARY, "fixed[" + length + "]");
  }

  /** A type without values a mask can read: nested, or unknown to Spark ({@code name}). */
  public static MaskType unreadable(ColumnType columnType, String name) {
    checkArgument(!columnType.isPrimitive(), "Not an unreadable column type: %s", columnType);
    return new MaskType(null, 0, columnType, name);
  }

  /**
   * This type under the name an engine gives it ({@code long} for an Iceberg column where Spark
   * says {@code bigint}), for the messages that name a column's type.
   */
  public MaskType named(String engineName) {
    return new MaskType(sparkType, fixedLength, columnType, Objects.requireNonNull(engineName));
  }

  /** The policy's name for a Spark type. */
  static ColumnType columnType(DataType type) {
    if (type instanceof StringType) {
      return ColumnType.STRING;
    } else if (type instanceof BinaryType) {
      return ColumnType.BINARY;
    } else if (type instanceof BooleanType) {
      return ColumnType.BOOLEAN;
    } else if (type instanceof ByteType
        || type instanceof ShortType
        || type instanceof IntegerType) {
      return ColumnType.INT;
    } else if (type instanceof LongType) {
      return ColumnType.LONG;
    } else if (type instanceof FloatType) {
      return ColumnType.FLOAT;
    } else if (type instanceof DoubleType) {
      return ColumnType.DOUBLE;
    } else if (type instanceof DecimalType) {
      return ColumnType.DECIMAL;
    } else if (type instanceof DateType) {
      return ColumnType.DATE;
    } else if (type instanceof TimestampType || type instanceof TimestampNTZType) {
      return ColumnType.TIMESTAMP;
    } else if (type instanceof StructType) {
      return ColumnType.STRUCT;
    } else if (type instanceof ArrayType) {
      return ColumnType.LIST;
    } else if (type instanceof MapType) {
      return ColumnType.MAP;
    }
    return ColumnType.OTHER;
  }

  /** The policy's type of this column, which decides the masks that fit it. */
  public ColumnType columnType() {
    return columnType;
  }

  /** The Spark type of the values (and of the masked values), or null for unreadable types. */
  public DataType sparkType() {
    return sparkType;
  }

  /** L for an Iceberg {@code fixed(L)}, 0 otherwise. */
  public int fixedLength() {
    return fixedLength;
  }

  @Override
  public boolean equals(Object o) {
    if (this == o) {
      return true;
    }
    if (!(o instanceof MaskType)) {
      return false;
    }
    MaskType that = (MaskType) o;
    return fixedLength == that.fixedLength
        && columnType == that.columnType
        && Objects.equals(sparkType, that.sparkType)
        && name.equals(that.name);
  }

  @Override
  public int hashCode() {
    return Objects.hash(sparkType, fixedLength, columnType, name);
  }

  @Override
  public String toString() {
    return name;
  }
}
