/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.spark.core;

import static io.icebergprotector.policy.Preconditions.checkArgument;

import java.nio.ByteBuffer;
import java.util.List;
import java.util.UUID;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.types.ByteType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DecimalType;
import org.apache.spark.sql.types.ShortType;
import org.apache.spark.sql.types.StructType;

/**
 * A read-only view of a Spark {@link InternalRow} as an Iceberg {@link StructLike}, with values in
 * Iceberg's representation so {@link org.apache.iceberg.PartitionKey} can apply transforms: strings
 * as {@link String} (or {@link UUID}), decimals as {@link java.math.BigDecimal}, binary as {@link
 * ByteBuffer}, structs as nested views, dates as int days, timestamps as long micros.
 *
 * <p>One instance is reused for every row ({@link #wrap}); not thread-safe.
 */
public final class InternalRowStructLike implements StructLike {
  private final DataType[] sparkTypes;
  private final Getter[] getters;
  private InternalRow row = null;

  public InternalRowStructLike(StructType sparkType, Types.StructType icebergType) {
    List<Types.NestedField> fields = icebergType.fields();
    checkArgument(
        sparkType.size() == fields.size(),
        "Spark row type %s has %s fields but the Iceberg struct %s has %s",
        sparkType.simpleString(),
        sparkType.size(),
        icebergType,
        fields.size());
    this.sparkTypes = new DataType[fields.size()];
    this.getters = new Getter[fields.size()];
    for (int i = 0; i < fields.size(); i++) {
      sparkTypes[i] = sparkType.fields()[i].dataType();
      getters[i] = getter(fields.get(i).type(), sparkTypes[i]);
    }
  }

  public InternalRowStructLike wrap(InternalRow newRow) {
    this.row = newRow;
    return this;
  }

  @Override
  public int size() {
    return getters.length;
  }

  @Override
  public <T> T get(int pos, Class<T> javaClass) {
    if (row.isNullAt(pos)) {
      return null;
    }
    return javaClass.cast(getters[pos].get(row, pos));
  }

  @Override
  public <T> void set(int pos, T value) {
    throw new UnsupportedOperationException("InternalRowStructLike is read-only");
  }

  @FunctionalInterface
  private interface Getter {
    Object get(InternalRow row, int pos);
  }

  private static Getter getter(Type icebergType, DataType sparkType) {
    switch (icebergType.typeId()) {
      case BOOLEAN:
        return InternalRow::getBoolean;
      case INTEGER:
        if (sparkType instanceof ByteType) {
          return (row, pos) -> (int) row.getByte(pos);
        } else if (sparkType instanceof ShortType) {
          return (row, pos) -> (int) row.getShort(pos);
        }
        return InternalRow::getInt;
      case DATE:
        return InternalRow::getInt; // days since epoch in both
      case LONG:
      case TIME:
      case TIMESTAMP:
        return InternalRow::getLong; // Spark timestamps (with and without zone) are micros
      case FLOAT:
        return InternalRow::getFloat;
      case DOUBLE:
        return InternalRow::getDouble;
      case STRING:
        return (row, pos) -> row.getUTF8String(pos).toString();
      case UUID:
        return (row, pos) -> UUID.fromString(row.getUTF8String(pos).toString());
      case FIXED:
      case BINARY:
        return (row, pos) -> ByteBuffer.wrap(row.getBinary(pos));
      case DECIMAL:
        DecimalType decimal = (DecimalType) sparkType;
        return (row, pos) ->
            row.getDecimal(pos, decimal.precision(), decimal.scale()).toJavaBigDecimal();
      case STRUCT:
        StructType structType = (StructType) sparkType;
        InternalRowStructLike nested =
            new InternalRowStructLike(structType, icebergType.asStructType());
        return (row, pos) -> nested.wrap(row.getStruct(pos, structType.size()));
      default:
        // Lists, maps and variants cannot be partition sources; hand Spark's value through.
        return (row, pos) -> row.get(pos, sparkType);
    }
  }
}
