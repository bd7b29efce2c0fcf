/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.policy.masks;

import static org.assertj.core.api.Assertions.assertThat;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import com.typesafe.config.ConfigObject;
import com.typesafe.config.ConfigParseOptions;
import com.typesafe.config.ConfigRenderOptions;
import com.typesafe.config.ConfigSyntax;
import io.icebergprotector.policy.ColumnType;
import io.icebergprotector.policy.Mask;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.EnumSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * The mask vectors of {@code testdata/protection-vectors.json} on the mask library itself, for
 * every mask and every type it fits: the Spark readers ({@code MaskVectorsTest}) and the key
 * server's server token mode ({@code TokenColumnViewVectorsTest}) check the same vectors through
 * their adapters.
 */
class MaskLibraryVectorsTest {
  /** The policy's type of each type family of the vectors (decimal(p,s) is "decimal"). */
  private static final Map<String, ColumnType> FAMILIES =
      Map.ofEntries(
          Map.entry("string", ColumnType.STRING),
          Map.entry("binary", ColumnType.BINARY),
          Map.entry("fixed", ColumnType.BINARY),
          Map.entry("boolean", ColumnType.BOOLEAN),
          Map.entry("byte", ColumnType.INT),
          Map.entry("short", ColumnType.INT),
          Map.entry("int", ColumnType.INT),
          Map.entry("long", ColumnType.LONG),
          Map.entry("float", ColumnType.FLOAT),
          Map.entry("double", ColumnType.DOUBLE),
          Map.entry("decimal", ColumnType.DECIMAL),
          Map.entry("date", ColumnType.DATE),
          Map.entry("timestamp", ColumnType.TIMESTAMP),
          Map.entry("timestamp_ntz", ColumnType.TIMESTAMP));

  @Test
  void masks() {
    Config vectors = load();
    byte[] key = HexFormat.of().parseHex(vectors.getString("mask_hash_key"));
    List<? extends ConfigObject> cases = vectors.getObjectList("masks");
    Set<String> covered = new TreeSet<>();
    for (ConfigObject c : cases) {
      String name = c.get("type").unwrapped().toString();
      VectorType type = new VectorType(name);
      Mask mask = Mask.parse(c.get("mask").unwrapped().toString());
      assertThat(mask.appliesTo(FAMILIES.get(type.family))).as("%s fits %s", mask, name).isTrue();
      Object masked = apply(mask, type, type.parse(c.get("value").unwrapped()), key);
      Object expected = c.get("masked").unwrapped();
      assertThat(masked)
          .as(c.render(ConfigRenderOptions.concise()))
          .isEqualTo(expected == null ? null : type.parse(expected));
      covered.add(type.family + " " + mask.kind());
    }
    Set<String> fitting = new TreeSet<>();
    for (Map.Entry<String, ColumnType> family : FAMILIES.entrySet()) {
      for (Mask.Kind kind : EnumSet.allOf(Mask.Kind.class)) {
        Mask mask = kind == Mask.Kind.PARTIAL ? Mask.partial(1) : Mask.parse(kind.name());
        if (mask.appliesTo(family.getValue())) {
          fitting.add(family.getKey() + " " + kind);
        }
      }
    }
    assertThat(covered).as("every mask on every type it fits has a vector").isEqualTo(fitting);
  }

  /**
   * A mask on a value of a type, as the type's kernel computes it, on values as {@link
   * VectorType#parse} gives them; strings through both the String and the UTF-8 kernels.
   */
  private static Object apply(Mask mask, VectorType type, Object value, byte[] key) {
    switch (mask.kind()) {
      case NULL:
        return null;
      case REDACT:
        return redacted(type);
      case PARTIAL:
        String partial = PartialKernel.mask((String) value, mask.keepLast());
        byte[] utf8 = ((String) value).getBytes(StandardCharsets.UTF_8);
        assertThat(
                new String(PartialKernel.maskUtf8(utf8, mask.keepLast()), StandardCharsets.UTF_8))
            .as("partial on UTF-8 bytes and on strings")
            .isEqualTo(partial);
        return partial;
      case YEAR:
        return type.family.equals("date")
            ? (Object) YearKernel.ofEpochDay((Integer) value)
            : (Object) YearKernel.ofEpochMicros((Long) value);
      case HASH:
        return hashed(new HashKernel(key::clone), type, value);
    }
    throw new IllegalArgumentException("Unknown mask " + mask);
  }

  private static Object redacted(VectorType type) {
    switch (type.family) {
      case "string":
        assertThat(new String(RedactKernel.stringUtf8(), StandardCharsets.UTF_8))
            .isEqualTo(RedactKernel.STRING);
        return RedactKernel.STRING;
      case "binary":
      case "fixed":
        return HexFormat.of().formatHex(RedactKernel.binary(type.length));
      case "boolean":
        return RedactKernel.BOOLEAN;
      case "byte":
        return RedactKernel.BYTE;
      case "short":
        return RedactKernel.SHORT;
      case "int":
        return RedactKernel.INT;
      case "long":
        return RedactKernel.LONG;
      case "float":
        return RedactKernel.FLOAT;
      case "double":
        return RedactKernel.DOUBLE;
      case "decimal":
        return BigDecimal.valueOf(RedactKernel.DECIMAL_UNSCALED, type.scale);
      case "date":
        return RedactKernel.EPOCH_DAY;
      default:
        return RedactKernel.EPOCH_MICROS;
    }
  }

  private static Object hashed(HashKernel hash, VectorType type, Object value) {
    switch (type.family) {
      case "string":
        String hex = hash.ofString((String) value);
        byte[] utf8 = ((String) value).getBytes(StandardCharsets.UTF_8);
        assertThat(new String(hash.ofUtf8(utf8), StandardCharsets.US_ASCII))
            .as("hash of UTF-8 bytes and of strings")
            .isEqualTo(hex);
        return hex;
      case "binary":
        return HexFormat.of().formatHex(hash.ofBinary(HexFormat.of().parseHex((String) value)));
      case "fixed":
        byte[] fixed = hash.ofFixed(HexFormat.of().parseHex((String) value), type.length);
        return HexFormat.of().formatHex(fixed);
      case "byte":
        return hash.ofByte((Byte) value);
      case "short":
        return hash.ofShort((Short) value);
      case "int":
        return hash.ofInt((Integer) value);
      case "long":
        return hash.ofLong((Long) value);
      case "decimal":
        long unscaled = hash.unscaledOfDecimal((BigDecimal) value, type.precision, type.scale);
        return BigDecimal.valueOf(unscaled, type.scale);
      case "date":
        return hash.ofEpochDay((Integer) value);
      case "timestamp":
      case "timestamp_ntz":
        return hash.ofEpochMicros((Long) value, type.family.equals("timestamp"));
      default:
        throw new IllegalArgumentException("No hash kernel for " + type.family);
    }
  }

  /** A type name of the vectors: its family, with the precision and scale or length it names. */
  private static final class VectorType {
    final String family;
    final int precision;
    final int scale;
    final int length;

    VectorType(String name) {
      // decimal(p,s), fixed[L], or a family alone
      String[] parts = name.split("[\\[(,)\\]]");
      family = parts[0];
      assertThat(FAMILIES).as("the type families of the mask vectors").containsKey(family);
      precision = family.equals("decimal") ? Integer.parseInt(parts[1]) : 0;
      scale = family.equals("decimal") ? Integer.parseInt(parts[2]) : 0;
      length = family.equals("fixed") ? Integer.parseInt(parts[1]) : 0;
    }

    /**
     * A JSON value as the kernels of this type take it: strings and booleans as they are, binaries
     * as hex text, numbers as their Java type, decimals as BigDecimal, dates as days and timestamps
     * as microseconds since 1970-01-01 (UTC).
     */
    Object parse(Object json) {
      switch (family) {
        case "byte":
          return ((Number) json).byteValue();
        case "short":
          return ((Number) json).shortValue();
        case "int":
          return ((Number) json).intValue();
        case "long":
          return ((Number) json).longValue();
        case "float":
          return ((Number) json).floatValue();
        case "double":
          return ((Number) json).doubleValue();
        case "decimal":
          return new BigDecimal((String) json);
        case "date":
          return (int) LocalDate.parse((String) json).toEpochDay();
        case "timestamp":
          return micros(Instant.parse((String) json));
        case "timestamp_ntz":
          return micros(LocalDateTime.parse((String) json).toInstant(ZoneOffset.UTC));
        default:
          return json;
      }
    }

    private static long micros(Instant instant) {
      return Math.addExact(
          Math.multiplyExact(instant.getEpochSecond(), 1_000_000L), instant.getNano() / 1000);
    }
  }

  private static Config load() {
    Path dir = Path.of("").toAbsolutePath();
    while (dir != null && !Files.isRegularFile(dir.resolve("testdata/protection-vectors.json"))) {
      dir = dir.getParent();
    }
    assertThat(dir).as("a parent directory holding testdata/protection-vectors.json").isNotNull();
    return ConfigFactory.parseFile(
        dir.resolve("testdata/protection-vectors.json").toFile(),
        ConfigParseOptions.defaults().setSyntax(ConfigSyntax.JSON).setAllowMissing(false));
  }
}
