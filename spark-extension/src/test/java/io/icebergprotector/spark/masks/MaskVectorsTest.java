/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.spark.masks;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.icebergprotector.policy.Mask;
import io.icebergprotector.spark.SharedVectors;
import java.math.BigDecimal;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.spark.sql.execution.vectorized.OnHeapColumnVector;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.DateType;
import org.apache.spark.sql.types.Decimal;
import org.apache.spark.sql.types.DecimalType;
import org.apache.spark.sql.types.TimestampNTZType;
import org.apache.spark.sql.types.TimestampType;
import org.apache.spark.unsafe.types.UTF8String;
import org.junit.jupiter.api.Test;

/**
 * The mask vectors of {@code testdata/protection-vectors.json} through the Spark readers' value and
 * vector kernels, for every type: the key server's server token mode ({@code
 * TokenColumnViewVectorsTest}) must give the same results for the types it masks.
 */
class MaskVectorsTest {
  private static final Map<String, DataType> TYPES =
      Map.ofEntries(
          Map.entry("string", DataTypes.StringType),
          Map.entry("binary", DataTypes.BinaryType),
          Map.entry("boolean", DataTypes.BooleanType),
          Map.entry("byte", DataTypes.ByteType),
          Map.entry("short", DataTypes.ShortType),
          Map.entry("int", DataTypes.IntegerType),
          Map.entry("long", DataTypes.LongType),
          Map.entry("float", DataTypes.FloatType),
          Map.entry("double", DataTypes.DoubleType),
          Map.entry("date", DataTypes.DateType),
          Map.entry("timestamp", DataTypes.TimestampType),
          Map.entry("timestamp_ntz", DataTypes.TimestampNTZType));
  private static final Pattern DECIMAL = Pattern.compile("decimal\\((\\d+),(\\d+)\\)");
  private static final Pattern FIXED = Pattern.compile("fixed\\[(\\d+)]");

  @Test
  void masks() {
    JsonNode vectors = SharedVectors.load();
    byte[] key = HexFormat.of().parseHex(vectors.get("mask_hash_key").asText());
    assertThat(vectors.get("masks").size()).isGreaterThan(60);
    for (JsonNode c : vectors.get("masks")) {
      MaskType type = type(c.get("type").asText());
      DataType sparkType = type.sparkType();
      ColumnMask mask =
          MaskEngine.columnMask(
              Mask.parse(c.get("mask").asText()), type, "c", "mask vectors", key::clone);
      Object input = internal(c.get("value"), sparkType);
      JsonNode expected = c.get("masked");
      Object want = comparable(expected.isNull() ? null : internal(expected, sparkType));
      assertThat(comparable(mask.apply(input))).as("value kernel: %s", c).isEqualTo(want);
      try (OnHeapColumnVector in = TestVectors.vector(sparkType, new ArrayList<>(List.of(input)));
          OnHeapColumnVector out = new OnHeapColumnVector(1, sparkType)) {
        mask.fill(in, 1, out);
        assertThat(comparable(TestVectors.read(out, 0, sparkType)))
            .as("vector kernel: %s", c)
            .isEqualTo(want);
      }
    }
  }

  /** The column type a vector names: a key of {@link #TYPES}, decimal(p,s) or fixed[L]. */
  private static MaskType type(String name) {
    Matcher decimal = DECIMAL.matcher(name);
    Matcher fixed = FIXED.matcher(name);
    if (decimal.matches()) {
      return MaskType.of(
          DataTypes.createDecimalType(
              Integer.parseInt(decimal.group(1)), Integer.parseInt(decimal.group(2))));
    } else if (fixed.matches()) {
      return MaskType.fixed(Integer.parseInt(fixed.group(1)));
    }
    assertThat(TYPES).as("the types of the mask vectors").containsKey(name);
    return MaskType.of(TYPES.get(name));
  }

  /** A vector's JSON value as a Spark internal value of {@code type}. */
  private static Object internal(JsonNode value, DataType type) {
    if (type == DataTypes.StringType) {
      return UTF8String.fromString(value.asText());
    } else if (type == DataTypes.BinaryType) {
      return HexFormat.of().parseHex(value.asText());
    } else if (type == DataTypes.BooleanType) {
      return value.asBoolean();
    } else if (type == DataTypes.ByteType) {
      return (byte) value.asInt();
    } else if (type == DataTypes.ShortType) {
      return (short) value.asInt();
    } else if (type == DataTypes.IntegerType) {
      return value.asInt();
    } else if (type == DataTypes.LongType) {
      return value.asLong();
    } else if (type == DataTypes.FloatType) {
      return (float) value.asDouble();
    } else if (type == DataTypes.DoubleType) {
      return value.asDouble();
    } else if (type instanceof DecimalType) {
      DecimalType decimal = (DecimalType) type;
      return Decimal.apply(new BigDecimal(value.asText()), decimal.precision(), decimal.scale());
    } else if (type instanceof DateType) {
      return (int) LocalDate.parse(value.asText()).toEpochDay();
    } else if (type instanceof TimestampType) {
      return micros(Instant.parse(value.asText()));
    } else if (type instanceof TimestampNTZType) {
      return micros(LocalDateTime.parse(value.asText()).toInstant(ZoneOffset.UTC));
    }
    throw new IllegalArgumentException("No vector values of type " + type);
  }

  private static long micros(Instant instant) {
    return Math.addExact(
        Math.multiplyExact(instant.getEpochSecond(), 1_000_000L), instant.getNano() / 1000);
  }

  /** A value that {@code equals} compares by content: text, a list of bytes, a BigDecimal. */
  private static Object comparable(Object value) {
    if (value instanceof UTF8String) {
      return value.toString();
    } else if (value instanceof byte[]) {
      return Arrays.toString((byte[]) value);
    } else if (value instanceof Decimal) {
      return ((Decimal) value).toJavaBigDecimal();
    }
    return value;
  }
}
