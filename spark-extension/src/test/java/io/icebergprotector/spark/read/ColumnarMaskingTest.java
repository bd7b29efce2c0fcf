/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.spark.read;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.icebergprotector.policy.Mask;
import io.icebergprotector.spark.core.ProtectorException;
import io.icebergprotector.spark.masks.ColumnMask;
import io.icebergprotector.spark.masks.ExpectedMasks;
import io.icebergprotector.spark.masks.MaskEngine;
import io.icebergprotector.spark.masks.PartialMask;
import io.icebergprotector.spark.masks.TestVectors;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.iceberg.Schema;
import org.apache.iceberg.spark.SparkSchemaUtil;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;
import org.apache.spark.sql.execution.vectorized.OnHeapColumnVector;
import org.apache.spark.sql.types.Decimal;
import org.apache.spark.sql.vectorized.ColumnVector;
import org.apache.spark.sql.vectorized.ColumnarBatch;
import org.apache.spark.unsafe.types.UTF8String;
import org.junit.jupiter.api.Test;

/**
 * The vector kernels give, value for value, what the value kernels give, on the Iceberg types of
 * the columnar reader; nulls stay null. {@link BatchMasker} swaps in the masked vectors.
 */
class ColumnarMaskingTest {
  private static final byte[] KEY =
      "0123456789abcdef0123456789abcdef".getBytes(StandardCharsets.UTF_8);

  /** A vector of {@code type} holding {@code values} (null entries are nulls). */
  static OnHeapColumnVector vector(Type type, List<Object> values) {
    return TestVectors.vector(SparkSchemaUtil.convert(type), values);
  }

  static Object get(ColumnVector vector, Type type, int row) {
    return TestVectors.read(vector, row, SparkSchemaUtil.convert(type));
  }

  static ColumnMask columnMask(Mask mask, Type type, java.util.function.Supplier<byte[]> key) {
    return MaskEngine.columnMask(mask, IcebergMaskTypes.of(type), "c", "", key);
  }

  /** Masks {@code values} as a vector and value by value; both must agree. */
  static void assertSameAsRowMasks(String spec, Type type, List<Object> values) {
    Mask mask = Mask.parse(spec);
    ColumnMask rowMask = columnMask(mask, type, () -> KEY.clone());
    ColumnMask vectorMask = columnMask(mask, type, () -> KEY.clone());
    try (OnHeapColumnVector input = vector(type, values);
        OnHeapColumnVector masked =
            new OnHeapColumnVector(values.size(), SparkSchemaUtil.convert(type))) {
      vectorMask.fill(input, values.size(), masked);
      for (int i = 0; i < values.size(); i++) {
        Object expected = values.get(i) == null ? null : rowMask.apply(values.get(i));
        Object actual = get(masked, type, i);
        if (expected instanceof byte[]) {
          assertThat((byte[]) actual).as("%s of %s", spec, values.get(i)).isEqualTo(expected);
        } else {
          assertThat(actual).as("%s of %s", spec, values.get(i)).isEqualTo(expected);
        }
      }
    }
  }

  static UTF8String s(String value) {
    return UTF8String.fromString(value);
  }

  static List<Object> values(Object... values) {
    List<Object> list = new ArrayList<>();
    for (Object value : values) {
      list.add(value);
    }
    return list;
  }

  @Test
  void stringMasks() {
    List<Object> strings = values(s("123-45-6789"), null, s(""), s("ab"), s("zürich ✓ 𝄞 end"));
    assertSameAsRowMasks("partial(keep_last=4)", Types.StringType.get(), strings);
    assertSameAsRowMasks("partial(keep_last=0)", Types.StringType.get(), strings);
    assertSameAsRowMasks("hash", Types.StringType.get(), strings);
    assertSameAsRowMasks("redact", Types.StringType.get(), strings);
    String unicode = "zürich ✓ 𝄞 end";
    assertThat(PartialMask.partial(s(unicode), 5).toString())
        .isEqualTo(ExpectedMasks.partial(unicode, 5));
  }

  @Test
  void numericDateAndTimestampMasks() {
    List<Object> ints = values(42, null, -7, 0, Integer.MAX_VALUE);
    assertSameAsRowMasks("hash", Types.IntegerType.get(), ints);
    assertSameAsRowMasks("redact", Types.IntegerType.get(), ints);
    List<Object> longs = values(42L, null, -7L, Long.MIN_VALUE);
    assertSameAsRowMasks("hash", Types.LongType.get(), longs);
    assertSameAsRowMasks("redact", Types.LongType.get(), longs);
    List<Object> days = values(19000, null, -1, 0);
    assertSameAsRowMasks("year", Types.DateType.get(), days);
    assertSameAsRowMasks("hash", Types.DateType.get(), days);
    List<Object> micros = values(1_700_000_123_456_789L, null, -86_400_000_001L, 0L);
    assertSameAsRowMasks("year", Types.TimestampType.withZone(), micros);
    assertSameAsRowMasks("year", Types.TimestampType.withoutZone(), micros);
    assertSameAsRowMasks("hash", Types.TimestampType.withZone(), micros);
    assertSameAsRowMasks("redact", Types.DoubleType.get(), values(4.2d, null));
    assertSameAsRowMasks("redact", Types.BooleanType.get(), values(true, null, false));
  }

  @Test
  void decimalAndBinaryMasks() {
    Types.DecimalType small = Types.DecimalType.of(10, 2);
    List<Object> decimals =
        values(
            Decimal.apply(new BigDecimal("1234.50")), null, Decimal.apply(new BigDecimal("-0.01")));
    assertSameAsRowMasks("hash", small, decimals);
    assertSameAsRowMasks("redact", small, decimals);
    Types.DecimalType wide = Types.DecimalType.of(30, 4);
    assertSameAsRowMasks(
        "hash", wide, values(Decimal.apply(new BigDecimal("12345678901234567890.1234")), null));
    List<Object> bytes = values(new byte[] {1, 2, 3}, null, new byte[0]);
    assertSameAsRowMasks("hash", Types.BinaryType.get(), bytes);
    assertSameAsRowMasks("redact", Types.BinaryType.get(), bytes);
  }

  @Test
  void outputVectorIsReusedAndGrowsAcrossBatches() {
    Type type = Types.StringType.get();
    Schema schema = new Schema(Types.NestedField.optional(1, "s", type));
    ColumnMask partial = columnMask(Mask.partial(2), type, () -> KEY.clone());
    try (BatchMasker masker = BatchMasker.compile(schema, Map.of(1, partial))) {
      ColumnVector first = masker.mask(batch(type, values(s("abcd"), null))).column(0);
      assertThat(first.getUTF8String(0)).isEqualTo(s("**cd"));
      assertThat(first.isNullAt(1)).isTrue();
      ColumnVector second = masker.mask(batch(type, values(s("xyz"), s("1234")))).column(0);
      assertThat(second).isSameAs(first);
      assertThat(second.isNullAt(1)).as("nulls of the previous batch are cleared").isFalse();
      assertThat(second.getUTF8String(1)).isEqualTo(s("**34"));
      ColumnVector bigger = masker.mask(batch(type, values(s("a"), s("bb"), s("ccc")))).column(0);
      assertThat(bigger.getUTF8String(2)).isEqualTo(s("*cc"));
    }
  }

  private static ColumnarBatch batch(Type type, List<Object> values) {
    return new ColumnarBatch(new ColumnVector[] {vector(type, values)}, values.size());
  }

  @Test
  void hashKeyIsFetchedOnlyForNonNullValues() {
    AtomicInteger fetches = new AtomicInteger();
    Type type = Types.StringType.get();
    ColumnMask mask =
        columnMask(
            Mask.hash(),
            type,
            () -> {
              fetches.incrementAndGet();
              return KEY.clone();
            });
    try (OnHeapColumnVector out = new OnHeapColumnVector(2, SparkSchemaUtil.convert(type))) {
      mask.fill(vector(type, values(null, null)), 2, out);
      assertThat(fetches).hasValue(0);
      out.reset();
      mask.fill(vector(type, values(s("a"), s("b"))), 2, out);
      out.reset();
      mask.fill(vector(type, values(s("c"))), 1, out);
      assertThat(fetches).as("fetched once, then the keyed Mac is reused").hasValue(1);
    }
  }

  @Test
  void masksThatDoNotFitTheTypeAreRefused() {
    assertThatThrownBy(
            () ->
                MaskEngine.columnMask(
                    Mask.parse("hash"),
                    IcebergMaskTypes.of(Types.DoubleType.get()),
                    "d",
                    "in table db.t",
                    () -> KEY.clone()))
        .isInstanceOf(ProtectorException.class)
        .hasMessageContaining(
            "Mask 'hash' of column 'd' in table db.t cannot be applied to type double");
    assertThatThrownBy(
            () ->
                MaskEngine.columnMask(
                    Mask.parse("year"),
                    IcebergMaskTypes.of(Types.LongType.get()),
                    "l",
                    "",
                    () -> KEY.clone()))
        .isInstanceOf(ProtectorException.class)
        .hasMessageContaining("Mask 'year' of column 'l' cannot be applied to type long");
  }

  @Test
  void batchMaskerReplacesOnlyMaskedColumnsAndPassesTheOthersThrough() {
    Schema schema =
        new Schema(
            Types.NestedField.required(1, "id", Types.LongType.get()),
            Types.NestedField.optional(2, "ssn", Types.StringType.get()),
            Types.NestedField.optional(3, "name", Types.StringType.get()));
    ColumnMask partial = columnMask(Mask.partial(1), Types.StringType.get(), () -> KEY.clone());
    try (BatchMasker masker = BatchMasker.compile(schema, Map.of(2, partial))) {
      ColumnVector ids = vector(Types.LongType.get(), values(1L, 2L));
      ColumnVector ssns = vector(Types.StringType.get(), values(s("123"), null));
      ColumnVector names = vector(Types.StringType.get(), values(s("Ann"), s("Bob")));
      ColumnarBatch batch = new ColumnarBatch(new ColumnVector[] {ids, ssns, names}, 2);

      ColumnarBatch masked = masker.mask(batch);

      assertThat(masked.numRows()).isEqualTo(2);
      assertThat(masked.column(0)).as("clear columns: zero copy").isSameAs(ids);
      assertThat(masked.column(2)).isSameAs(names);
      assertThat(masked.column(1)).isNotSameAs(ssns);
      assertThat(masked.column(1).getUTF8String(0)).isEqualTo(s("**3"));
      assertThat(masked.column(1).isNullAt(1)).isTrue();
    }
    assertThat(BatchMasker.compile(schema, Map.of())).isNull();
  }
}
