/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.spark.read;

import io.icebergprotector.policy.ColumnType;
import io.icebergprotector.spark.masks.MaskType;
import java.util.HashMap;
import java.util.Map;
import org.apache.iceberg.Schema;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.TypeUtil;
import org.apache.iceberg.types.Types;
import org.apache.spark.sql.types.DataTypes;

/**
 * Iceberg types as the masks see them ({@link MaskType}): the Spark type Iceberg reads them as
 * (uuid as string, fixed(L) as binary of L bytes), so the masks, and the policy's check that a mask
 * fits a column, treat an Iceberg column and a plain Parquet column of the same values alike. Types
 * Spark cannot read (time, nanosecond timestamps, variant, ...) fit only the {@code null} mask.
 * Kept out of the mask package, which the plain-Parquet path loads without Iceberg.
 */
public final class IcebergMaskTypes {
  private IcebergMaskTypes() {}

  /** The mask type of an Iceberg type, named as Iceberg names it (for error messages). */
  public static MaskType of(Type type) {
    return sparkMaskType(type).named(type.toString());
  }

  private static MaskType sparkMaskType(Type type) {
    switch (type.typeId()) {
      case STRING:
      case UUID:
        return MaskType.of(DataTypes.StringType);
      case BINARY:
        return MaskType.of(DataTypes.BinaryType);
      case FIXED:
        return MaskType.fixed(((Types.FixedType) type).length());
      case BOOLEAN:
        return MaskType.of(DataTypes.BooleanType);
      case INTEGER:
        return MaskType.of(DataTypes.IntegerType);
      case LONG:
        return MaskType.of(DataTypes.LongType);
      case FLOAT:
        return MaskType.of(DataTypes.FloatType);
      case DOUBLE:
        return MaskType.of(DataTypes.DoubleType);
      case DECIMAL:
        Types.DecimalType decimal = (Types.DecimalType) type;
        return MaskType.of(DataTypes.createDecimalType(decimal.precision(), decimal.scale()));
      case DATE:
        return MaskType.of(DataTypes.DateType);
      case TIMESTAMP:
        return MaskType.of(
            ((Types.TimestampType) type).shouldAdjustToUTC()
                ? DataTypes.TimestampType
                : DataTypes.TimestampNTZType);
      case STRUCT:
        return MaskType.unreadable(ColumnType.STRUCT, type.toString());
      case LIST:
        return MaskType.unreadable(ColumnType.LIST, type.toString());
      case MAP:
        return MaskType.unreadable(ColumnType.MAP, type.toString());
      default:
        return MaskType.unreadable(ColumnType.OTHER, type.toString());
    }
  }

  /** The policy type of every column of {@code schema}, by dotted path, for policy validation. */
  public static Map<String, ColumnType> columnTypes(Schema schema) {
    Map<String, ColumnType> types = new HashMap<>();
    Map<Integer, String> names = TypeUtil.indexNameById(schema.asStruct());
    for (Map.Entry<Integer, String> entry : names.entrySet()) {
      types.put(entry.getValue(), of(schema.findField(entry.getKey()).type()).columnType());
    }
    return types;
  }
}
