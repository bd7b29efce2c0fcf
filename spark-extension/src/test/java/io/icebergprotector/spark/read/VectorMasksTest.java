package io.icebergprotector.spark.read;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.icebergprotector.policy.Mask;
import io.icebergprotector.spark.ProtectorException;
import io.icebergprotector.spark.read.ValueMasks.ValueMask;
import io.icebergprotector.spark.read.VectorMasks.VectorMask;
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
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.Decimal;
import org.apache.spark.sql.vectorized.ColumnVector;
import org.apache.spark.sql.vectorized.ColumnarBatch;
import org.apache.spark.unsafe.types.UTF8String;
import org.junit.jupiter.api.Test;

/** Vector masks give, value for value, what the row masks give; nulls stay null. */
class VectorMasksTest {
  private static final byte[] KEY =
      "0123456789abcdef0123456789abcdef".getBytes(StandardCharsets.UTF_8);

  /** A vector of {@code type} holding {@code values} (null entries are nulls). */
  static OnHeapColumnVector vector(Type type, List<Object> values) {
    DataType sparkType = SparkSchemaUtil.convert(type);
    OnHeapColumnVector vector = new OnHeapColumnVector(values.size(), sparkType);
    for (int i = 0; i < values.size(); i++) {
      Object value = values.get(i);
      if (value == null) {
        vector.putNull(i);
      } else if (value instanceof UTF8String) {
        vector.putByteArray(i, ((UTF8String) value).getBytes());
      } else if (value instanceof byte[]) {
        vector.putByteArray(i, (byte[]) value);
      } else if (value instanceof Integer) {
        vector.putInt(i, (Integer) value);
      } else if (value instanceof Long) {
        vector.putLong(i, (Long) value);
      } else if (value instanceof Double) {
        vector.putDouble(i, (Double) value);
      } else if (value instanceof Boolean) {
        vector.putBoolean(i, (Boolean) value);
      } else if (value instanceof Decimal) {
        Types.DecimalType decimal = (Types.DecimalType) type;
        vector.putDecimal(i, (Decimal) value, decimal.precision());
      } else {
        throw new IllegalArgumentException("Unsupported test value " + value);
      }
    }
    return vector;
  }

  static Object get(ColumnVector vector, Type type, int row) {
    if (vector.isNullAt(row)) {
      return null;
    }
    switch (type.typeId()) {
      case STRING:
        return vector.getUTF8String(row).clone();
      case BINARY:
      case FIXED:
        return vector.getBinary(row);
      case INTEGER:
      case DATE:
        return vector.getInt(row);
      case LONG:
      case TIMESTAMP:
        return vector.getLong(row);
      case DOUBLE:
        return vector.getDouble(row);
      case BOOLEAN:
        return vector.getBoolean(row);
      case DECIMAL:
        Types.DecimalType decimal = (Types.DecimalType) type;
        return vector.getDecimal(row, decimal.precision(), decimal.scale());
      default:
        throw new IllegalArgumentException("Unsupported test type " + type);
    }
  }

  /** Masks {@code values} as a vector and value by value; both must agree. */
  static void assertSameAsRowMasks(String spec, Type type, List<Object> values) {
    Mask mask = Mask.parse(spec);
    ValueMask rowMask = ValueMasks.forType(mask, type, () -> KEY.clone(), "c");
    try (VectorMask vectorMask = VectorMasks.forType(mask, type, () -> KEY.clone(), "c");
        OnHeapColumnVector input = vector(type, values)) {
      ColumnVector masked = vectorMask.apply(input, values.size());
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
    assertThat(ValueMasks.partial(s(unicode), 5).toString())
        .isEqualTo(io.icebergprotector.policy.Masks.partial(unicode, 5));
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
            Decimal.apply(new BigDecimal("1234.50")),
            null,
            Decimal.apply(new BigDecimal("-0.01")));
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
    try (VectorMask mask = VectorMasks.forType(Mask.partial(2), type, () -> KEY.clone(), "c")) {
      ColumnVector first = mask.apply(vector(type, values(s("abcd"), null)), 2);
      assertThat(first.getUTF8String(0)).isEqualTo(s("**cd"));
      assertThat(first.isNullAt(1)).isTrue();
      ColumnVector second = mask.apply(vector(type, values(s("xyz"), s("1234"))), 2);
      assertThat(second).isSameAs(first);
      assertThat(second.isNullAt(1)).as("nulls of the previous batch are cleared").isFalse();
      assertThat(second.getUTF8String(1)).isEqualTo(s("**34"));
      ColumnVector bigger = mask.apply(vector(type, values(s("a"), s("bb"), s("ccc"))), 3);
      assertThat(bigger.getUTF8String(2)).isEqualTo(s("*cc"));
    }
  }

  @Test
  void hashKeyIsFetchedOnlyForNonNullValues() {
    AtomicInteger fetches = new AtomicInteger();
    Type type = Types.StringType.get();
    try (VectorMask mask =
        VectorMasks.forType(
            Mask.hash(),
            type,
            () -> {
              fetches.incrementAndGet();
              return KEY;
            },
            "c")) {
      mask.apply(vector(type, values(null, null)), 2);
      assertThat(fetches).hasValue(0);
      mask.apply(vector(type, values(s("a"), s("b"))), 2);
      mask.apply(vector(type, values(s("c"))), 1);
      assertThat(fetches).as("fetched once, then the keyed Mac is reused").hasValue(1);
    }
  }

  @Test
  void masksThatDoNotFitTheTypeAreRefused() {
    assertThatThrownBy(
            () -> VectorMasks.forType(Mask.parse("hash"), Types.DoubleType.get(), () -> KEY.clone(), "d"))
        .isInstanceOf(ProtectorException.class)
        .hasMessageContaining("'d'");
    assertThatThrownBy(
            () -> VectorMasks.forType(Mask.parse("year"), Types.LongType.get(), () -> KEY.clone(), "l"))
        .isInstanceOf(ProtectorException.class);
  }

  @Test
  void batchMaskerReplacesOnlyMaskedColumnsAndPassesTheOthersThrough() {
    Schema schema =
        new Schema(
            Types.NestedField.required(1, "id", Types.LongType.get()),
            Types.NestedField.optional(2, "ssn", Types.StringType.get()),
            Types.NestedField.optional(3, "name", Types.StringType.get()));
    VectorMask partial = VectorMasks.forType(Mask.partial(1), Types.StringType.get(), () -> KEY.clone(), "");
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
