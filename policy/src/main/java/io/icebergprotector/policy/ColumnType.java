/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.policy;

import static io.icebergprotector.policy.Preconditions.checkArgument;

import java.util.Locale;

/** Engine-neutral column types, just enough to check that a mask fits a column. */
public enum ColumnType {
  STRING,
  BINARY,
  BOOLEAN,
  INT,
  LONG,
  FLOAT,
  DOUBLE,
  DECIMAL,
  DATE,
  TIMESTAMP,
  STRUCT,
  LIST,
  MAP,
  OTHER;

  /**
   * True for the leaf types that have a constant redaction value (everything but STRUCT, LIST, MAP,
   * OTHER).
   */
  public boolean isPrimitive() {
    return this != STRUCT && this != LIST && this != MAP && this != OTHER;
  }

  /**
   * Parses a type name as written in schema files: the enum names plus common SQL/Iceberg spellings
   * (varchar, text, bool, integer, bigint, decimal(10,2), timestamp_ntz, timestamptz, array, fixed,
   * uuid...). Case-insensitive.
   */
  public static ColumnType fromName(String name) {
    checkArgument(name != null, "Column type is null");
    String n = name.trim().toLowerCase(Locale.ROOT);
    int paren = n.indexOf('(');
    int angle = n.indexOf('<');
    int cut = paren < 0 ? angle : (angle < 0 ? paren : Math.min(paren, angle));
    if (cut > 0) {
      n = n.substring(0, cut).trim();
    }
    switch (n) {
      case "string":
      case "varchar":
      case "char":
      case "text":
      case "uuid":
        return STRING;
      case "binary":
      case "fixed":
      case "bytes":
      case "varbinary":
        return BINARY;
      case "boolean":
      case "bool":
        return BOOLEAN;
      case "int":
      case "integer":
      case "short":
      case "smallint":
      case "byte":
      case "tinyint":
        return INT;
      case "long":
      case "bigint":
        return LONG;
      case "float":
      case "real":
        return FLOAT;
      case "double":
        return DOUBLE;
      case "decimal":
      case "numeric":
        return DECIMAL;
      case "date":
        return DATE;
      case "timestamp":
      case "timestamp_ntz":
      case "timestamp_ltz":
      case "timestamptz":
        return TIMESTAMP;
      case "struct":
        return STRUCT;
      case "list":
      case "array":
        return LIST;
      case "map":
        return MAP;
      case "other":
        return OTHER;
      default:
        throw new IllegalArgumentException(
            "Unknown column type '"
                + name
                + "'; valid types: string, binary, boolean, int, long,"
                + " float, double, decimal, date, timestamp, struct, list, map, other");
    }
  }
}
