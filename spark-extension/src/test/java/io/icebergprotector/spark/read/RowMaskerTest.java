/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.spark.read;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.icebergprotector.policy.Mask;
import io.icebergprotector.spark.core.ProtectionSpec;
import io.icebergprotector.spark.core.ProtectorException;
import io.icebergprotector.spark.crypto.ProtectorCrypto;
import io.icebergprotector.spark.masks.ColumnMask;
import io.icebergprotector.spark.masks.ExpectedMasks;
import io.icebergprotector.spark.masks.MaskEngine;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.Map;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.catalyst.util.ArrayData;
import org.apache.spark.sql.catalyst.util.GenericArrayData;
import org.apache.spark.sql.types.Decimal;
import org.apache.spark.unsafe.types.UTF8String;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RowMaskerTest {
  private static final byte[] KEY =
      "0123456789abcdef0123456789abcdef".getBytes(StandardCharsets.UTF_8);

  @TempDir static Path dir;
  static ReadFixture fixture;

  @BeforeAll
  static void setUp() {
    fixture = new ReadFixture(dir);
  }

  /** The value kernel of {@code spec} on a column of Iceberg {@code type}. */
  static ColumnMask columnMask(Mask mask, Type type) {
    return MaskEngine.columnMask(mask, IcebergMaskTypes.of(type), "c", "", () -> KEY.clone());
  }

  private static Object mask(String spec, Type type, Object value) {
    return columnMask(Mask.parse(spec), type).apply(value);
  }

  private static UTF8String s(String value) {
    return UTF8String.fromString(value);
  }

  private static int day(String iso) {
    return (int) LocalDate.parse(iso).toEpochDay();
  }

  private static long micros(String isoLocal) {
    java.time.Instant instant = LocalDateTime.parse(isoLocal).toInstant(ZoneOffset.UTC);
    return instant.getEpochSecond() * 1_000_000L + instant.getNano() / 1000;
  }

  @Test
  void redactGivesTheTypeConstants() {
    assertThat(mask("redact", Types.StringType.get(), s("secret"))).isEqualTo(s("****"));
    assertThat(mask("redact", Types.IntegerType.get(), 42)).isEqualTo(0);
    assertThat(mask("redact", Types.LongType.get(), 42L)).isEqualTo(0L);
    assertThat(mask("redact", Types.DoubleType.get(), 4.2d)).isEqualTo(0d);
    assertThat(mask("redact", Types.FloatType.get(), 4.2f)).isEqualTo(0f);
    assertThat(mask("redact", Types.BooleanType.get(), true)).isEqualTo(false);
    assertThat(mask("redact", Types.DateType.get(), day("2024-03-04"))).isEqualTo(0);
    assertThat(mask("redact", Types.TimestampType.withZone(), 123L)).isEqualTo(0L);
    assertThat((byte[]) mask("redact", Types.BinaryType.get(), new byte[] {1, 2})).isEmpty();
    assertThat((byte[]) mask("redact", Types.FixedType.ofLength(3), new byte[] {1, 2, 3}))
        .containsExactly(0, 0, 0);
    Decimal zero =
        (Decimal)
            mask("redact", Types.DecimalType.of(10, 2), Decimal.apply(new BigDecimal("12.34")));
    assertThat(zero.toJavaBigDecimal()).isEqualByComparingTo("0");
    assertThat(zero.scale()).isEqualTo(2);
  }

  @Test
  void partialKeepsTheLastCharacters() {
    assertThat(mask("partial(keep_last=4)", Types.StringType.get(), s("123-45-6789")))
        .isEqualTo(s("*******6789"));
    assertThat(mask("partial(keep_last=0)", Types.StringType.get(), s("abc"))).isEqualTo(s("***"));
    assertThatThrownBy(() -> mask("partial(keep_last=2)", Types.LongType.get(), 1L))
        .isInstanceOf(ProtectorException.class)
        .hasMessageContaining(
            "Mask 'partial(keep_last=2)' of column 'c' cannot be applied to type long");
  }

  @Test
  void yearTruncatesDatesAndTimestamps() {
    assertThat(mask("year", Types.DateType.get(), day("1990-05-17"))).isEqualTo(day("1990-01-01"));
    assertThat(mask("year", Types.TimestampType.withZone(), micros("2021-07-08T09:10:11.123456")))
        .isEqualTo(micros("2021-01-01T00:00:00"));
    assertThat(mask("year", Types.TimestampType.withoutZone(), micros("1969-12-31T23:59:59")))
        .isEqualTo(micros("1969-01-01T00:00:00"));
    assertThatThrownBy(() -> mask("year", Types.StringType.get(), s("x")))
        .isInstanceOf(ProtectorException.class)
        .hasMessageContaining("Mask 'year' of column 'c' cannot be applied to type string")
        .hasMessageContaining("(the mask fits: DATE, TIMESTAMP)");
  }

  @Test
  void hashIsKeyedDeterministicAndKeepsTheType() {
    UTF8String hashed = (UTF8String) mask("hash", Types.StringType.get(), s("ann@example.com"));
    assertThat(hashed.toString())
        .isEqualTo(ExpectedMasks.hashHex(KEY, "ann@example.com"))
        .hasSize(64);
    assertThat(mask("hash", Types.StringType.get(), s("ann@example.com"))).isEqualTo(hashed);
    assertThat(mask("hash", Types.StringType.get(), s("bob@example.com"))).isNotEqualTo(hashed);

    Object hashedLong = mask("hash", Types.LongType.get(), 42L);
    assertThat(hashedLong).isInstanceOf(Long.class).isNotEqualTo(42L);
    assertThat(mask("hash", Types.LongType.get(), 42L)).isEqualTo(hashedLong);
    assertThat(mask("hash", Types.IntegerType.get(), 42)).isInstanceOf(Integer.class);
    // int and long of the same number hash alike (same canonical text), truncated to the type
    assertThat((long) (int) mask("hash", Types.IntegerType.get(), 42))
        .isEqualTo(((long) hashedLong) >> 32);

    Decimal decimal =
        (Decimal) mask("hash", Types.DecimalType.of(5, 2), Decimal.apply(new BigDecimal("12.50")));
    assertThat(decimal.scale()).isEqualTo(2);
    assertThat(decimal.toJavaBigDecimal().abs()).isLessThan(new BigDecimal("1000.00"));

    int date = (int) mask("hash", Types.DateType.get(), day("1990-05-17"));
    assertThat(LocalDate.ofEpochDay(date))
        .isBetween(LocalDate.of(1, 1, 1), LocalDate.of(9999, 12, 31));
    long ts = (long) mask("hash", Types.TimestampType.withZone(), micros("2021-07-08T09:10:11"));
    assertThat(ts).isBetween(micros("0001-01-01T00:00:00"), micros("9999-12-31T23:59:59.999999"));

    byte[] binary = (byte[]) mask("hash", Types.BinaryType.get(), new byte[] {1, 2, 3});
    assertThat(binary).hasSize(32);
    byte[] fixed = (byte[]) mask("hash", Types.FixedType.ofLength(40), new byte[] {1, 2, 3});
    assertThat(fixed).hasSize(40);

    assertThatThrownBy(() -> mask("hash", Types.DoubleType.get(), 1d))
        .isInstanceOf(ProtectorException.class)
        .hasMessageContaining("Mask 'hash' of column 'c' cannot be applied to type double");
  }

  @Test
  void hashKeyIsOnlyFetchedWhenAValueIsHashed() {
    ColumnMask mask =
        MaskEngine.columnMask(
            Mask.hash(),
            IcebergMaskTypes.of(Types.StringType.get()),
            "c",
            "",
            () -> {
              throw new AssertionError("key fetched");
            });
    assertThat(mask).isNotNull();
  }

  @Test
  void masksNestedFieldsInPlaceAndLeavesTheRestAlone() {
    ProtectionSpec spec = fixture.spec("db.people", ReadFixture.SCHEMA, "bob");
    ProtectedProjection projection = ProtectedProjection.of(ReadFixture.SCHEMA, spec);
    RowMasker masker = projection.newMasker();

    GenericInternalRow address = new GenericInternalRow(new Object[] {s("Berlin"), s("10115")});
    GenericInternalRow row =
        new GenericInternalRow(
            new Object[] {
              1L,
              s("Ann"),
              s("123-45-6789"),
              s("ann@example.com"),
              null, // salary: a NULL constant from the reader
              day("1990-05-17"),
              address,
              new GenericArrayData(new Object[] {s("a")})
            });

    InternalRow masked = masker.mask(row);

    assertThat(masked.getLong(0)).isEqualTo(1L);
    assertThat(masked.getUTF8String(1)).isEqualTo(s("Ann"));
    assertThat(masked.getUTF8String(2)).isEqualTo(s("*******6789"));
    byte[] hashKey = ProtectorCrypto.hashMaskKey(spec, "pii");
    assertThat(masked.getUTF8String(3).toString())
        .isEqualTo(ExpectedMasks.hashHex(hashKey, "ann@example.com"));
    assertThat(masked.isNullAt(4)).isTrue();
    assertThat(masked.getInt(5)).isEqualTo(day("1990-01-01"));
    InternalRow maskedAddress = masked.getStruct(6, 2);
    assertThat(maskedAddress.getUTF8String(0)).isEqualTo(s("Berlin"));
    assertThat(maskedAddress.getUTF8String(1)).isEqualTo(s("****"));
    ArrayData tags = masked.getArray(7);
    assertThat(tags.getUTF8String(0)).isEqualTo(s("a"));
  }

  @Test
  void nullsStayNullAndNullStructsAreSkipped() {
    ProtectionSpec spec = fixture.spec("db.people", ReadFixture.SCHEMA, "bob");
    RowMasker masker = ProtectedProjection.of(ReadFixture.SCHEMA, spec).newMasker();
    GenericInternalRow row =
        new GenericInternalRow(new Object[] {3L, null, null, null, null, null, null, null});

    InternalRow masked = masker.mask(row);

    for (int i = 1; i < 8; i++) {
      assertThat(masked.isNullAt(i)).as("field %s", i).isTrue();
    }
  }

  @Test
  void masksInsideListsOfStructsAndMapValues() {
    Types.StructType item =
        Types.StructType.of(
            Types.NestedField.optional(3, "sku", Types.StringType.get()),
            Types.NestedField.optional(4, "card", Types.StringType.get()));
    Types.StructType struct =
        Types.StructType.of(
            Types.NestedField.optional(1, "items", Types.ListType.ofOptional(2, item)),
            Types.NestedField.optional(
                5,
                "notes",
                Types.MapType.ofOptional(6, 7, Types.StringType.get(), Types.StringType.get())));
    ColumnMask partial = columnMask(Mask.partial(2), Types.StringType.get());
    RowMasker masker = RowMasker.compile(struct, Map.of(4, partial, 7, partial));

    GenericInternalRow first = new GenericInternalRow(new Object[] {s("x1"), s("4111")});
    GenericArrayData items = new GenericArrayData(new Object[] {first, null});
    org.apache.spark.sql.catalyst.util.ArrayBasedMapData notes =
        new org.apache.spark.sql.catalyst.util.ArrayBasedMapData(
            new GenericArrayData(new Object[] {s("k")}),
            new GenericArrayData(new Object[] {s("value")}));
    GenericInternalRow row = new GenericInternalRow(new Object[] {items, notes});

    InternalRow masked = masker.mask(row);

    ArrayData maskedItems = masked.getArray(0);
    assertThat(maskedItems.getStruct(0, 2).getUTF8String(0)).isEqualTo(s("x1"));
    assertThat(maskedItems.getStruct(0, 2).getUTF8String(1)).isEqualTo(s("**11"));
    assertThat(maskedItems.isNullAt(1)).isTrue();
    assertThat(masked.getMap(1).keyArray().getUTF8String(0)).isEqualTo(s("k"));
    assertThat(masked.getMap(1).valueArray().getUTF8String(0)).isEqualTo(s("***ue"));
  }

  @Test
  void nothingToMaskMeansNoMasker() {
    ProtectionSpec spec = fixture.spec("db.people", ReadFixture.SCHEMA, "alice");
    assertThat(ProtectedProjection.of(ReadFixture.SCHEMA, spec).newMasker()).isNull();
  }
}
