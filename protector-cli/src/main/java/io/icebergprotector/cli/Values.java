/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.cli;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.types.StructType;
import scala.jdk.javaapi.CollectionConverters;

/** Renders Spark row values for text tables. */
final class Values {
  private Values() {}

  static String render(Object value) {
    if (value == null) {
      return "NULL";
    }
    if (value instanceof Row) {
      Row row = (Row) value;
      StructType schema = row.schema();
      List<String> parts = new ArrayList<>();
      for (int i = 0; i < row.length(); i++) {
        String v = render(row.get(i));
        parts.add(schema == null ? v : schema.fields()[i].name() + ": " + v);
      }
      return "{" + String.join(", ", parts) + "}";
    }
    if (value instanceof BigDecimal) {
      return ((BigDecimal) value).toPlainString();
    }
    if (value instanceof byte[]) {
      byte[] b = (byte[]) value;
      return "0x"
          + HexFormat.of().formatHex(b, 0, Math.min(b.length, 16))
          + (b.length > 16 ? "..." : "");
    }
    if (value instanceof scala.collection.Map) {
      List<String> parts = new ArrayList<>();
      for (java.util.Map.Entry<?, ?> e :
          CollectionConverters.asJava((scala.collection.Map<?, ?>) value).entrySet()) {
        parts.add(render(e.getKey()) + " -> " + render(e.getValue()));
      }
      return "{" + String.join(", ", parts) + "}";
    }
    if (value instanceof scala.collection.Iterable) {
      List<String> parts = new ArrayList<>();
      for (Object v : CollectionConverters.asJava((scala.collection.Iterable<?>) value)) {
        parts.add(render(v));
      }
      return "[" + String.join(", ", parts) + "]";
    }
    return value.toString();
  }
}
