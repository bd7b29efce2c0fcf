/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.spark.masks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.icebergprotector.policy.ColumnType;
import io.icebergprotector.policy.Mask;
import io.icebergprotector.spark.compat.ScalaCollections;
import io.icebergprotector.spark.core.ProtectorException;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.stream.Stream;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.BoundReference;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.catalyst.expressions.UnsafeProjection;
import org.apache.spark.sql.catalyst.expressions.codegen.GenerateUnsafeProjection;
import org.apache.spark.sql.execution.vectorized.OnHeapColumnVector;
import org.apache.spark.sql.types.BinaryType;
import org.apache.spark.sql.types.BooleanType;
import org.apache.spark.sql.types.ByteType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.DateType;
import org.apache.spark.sql.types.Decimal;
import org.apache.spark.sql.types.DecimalType;
import org.apache.spark.sql.types.DoubleType;
import org.apache.spark.sql.types.FloatType;
import org.apache.spark.sql.types.IntegerType;
import org.apache.spark.sql.types.LongType;
import org.apache.spark.sql.types.ShortType;
import org.apache.spark.sql.types.StringType;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.types.TimestampNTZType;
import org.apache.spark.sql.types.TimestampType;
import org.apache.spark.unsafe.types.UTF8String;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * For every mask and every type it fits, the three ways a value is masked give the same values on
 * the same inputs: the value kernel (Iceberg row reads), the vector kernel (Iceberg columnar reads)
 * and the Catalyst expression of the plain-Parquet path, both interpreted and compiled. The inputs
 * include NULLs, empty strings, multi-byte UTF-8, decimals stored as int, long and bytes, and dates
 * and timestamps at the edges of Spark's range (years 1 and 9999, and beyond the 1678-2262 range of
 * nanoseconds). And where the policy says a mask does not fit a type, every path refuses it.
 */
class MaskKernelsCrossCheckTest {
  private static final byte[] KEY =
      "0123456789abcdef0123456789abcdef".getBytes(StandardCharsets.UTF_8);
  private static final HashKeySource HASH_KEY = new TestKey();

  private static final List<Mask> MASKS =
      List.of(
          Mask.nullMask(),
          Mask.redact(),
          Mask.partial(0),
          Mask.partial(4),
          Mask.hash(),
          Mask.year());

  private static final List<MaskType> TYPES =
      List.of(
          MaskType.of(DataTypes.StringType),
          MaskType.of(DataTypes.BinaryType),
          MaskType.fixed(5),
          MaskType.of(DataTypes.BooleanType),
          MaskType.of(DataTypes.ByteType),
          MaskType.of(DataTypes.ShortType),
          MaskType.of(DataTypes.IntegerType),
          MaskType.of(DataTypes.LongType),
          MaskType.of(DataTypes.FloatType),
          MaskType.of(DataTypes.DoubleType),
          MaskType.of(DataTypes.createDecimalType(5, 2)),
          MaskType.of(DataTypes.createDecimalType(18, 4)),
          MaskType.of(DataTypes.createDecimalType(38, 10)),
          MaskType.of(DataTypes.DateType),
          MaskType.of(DataTypes.TimestampType),
          MaskType.of(DataTypes.TimestampNTZType));

  /** Serializable, as a path's key source is; a fresh copy per call (the kernels wipe it). */
  private static final class TestKey implements HashKeySource {
    private static final long serialVersionUID = 1L;

    @Override
    public byte[] get() {
      return KEY.clone();
    }

    @Override
    public String toString() {
      return "hash(key=test)";
    }
  }

  static Stream<Arguments> fittingMasks() {
    List<Arguments> cases = new ArrayList<>();
    for (Mask mask : MASKS) {
      for (MaskType type : TYPES) {
        if (mask.appliesTo(type.columnType())) {
          cases.add(Arguments.of(mask, type));
        }
      }
    }
    return cases.stream();
  }

  static Stream<Arguments> misfits() {
    List<MaskType> types = new ArrayList<>(TYPES);
    types.add(MaskType.of(new StructType().add("a", DataTypes.StringType)));
    types.add(MaskType.of(DataTypes.createArrayType(DataTypes.StringType)));
    types.add(MaskType.unreadable(ColumnType.MAP, "map<string, string>"));
    types.add(MaskType.unreadable(ColumnType.OTHER, "time"));
    List<Arguments> cases = new ArrayList<>();
    for (Mask mask : MASKS) {
      for (MaskType type : types) {
        if (!mask.appliesTo(type.columnType())) {
          cases.add(Arguments.of(mask, type));
        }
      }
    }
    return cases.stream();
  }

  @Test
  void everyMaskFitsSomeTypesAndMissesOthers() {
    assertThat(fittingMasks().map(a -> a.get()[0]).distinct()).hasSize(MASKS.size());
    assertThat(misfits().map(a -> a.get()[0]).distinct()).hasSize(MASKS.size() - 1);
    // null and redact: all 16 types; partial: string; hash: all but boolean, float, double; year:
    // date and the two timestamps
    assertThat(fittingMasks().count()).isEqualTo(16 + 16 + 1 + 1 + 13 + 3);
  }

  @ParameterizedTest(name = "{0} on {1}")
  @MethodSource("fittingMasks")
  void rowVectorAndCatalystGiveTheSameValues(Mask mask, MaskType type) {
    List<Object> inputs = inputs(type);
    DataType sparkType = type.sparkType();

    ColumnMask rows = MaskEngine.columnMask(mask, type, "c", "", HASH_KEY);
    List<String> byValue = new ArrayList<>();
    for (Object input : inputs) {
      byValue.add(normalize(input == null ? null : rows.apply(input), sparkType));
    }

    ColumnMask vectors = MaskEngine.columnMask(mask, type, "c", "", HASH_KEY);
    List<String> byVector = new ArrayList<>();
    try (OnHeapColumnVector in = TestVectors.vector(sparkType, inputs);
        OnHeapColumnVector out = new OnHeapColumnVector(inputs.size(), sparkType)) {
      vectors.fill(in, inputs.size(), out);
      for (int i = 0; i < inputs.size(); i++) {
        byVector.add(normalize(TestVectors.read(out, i, sparkType), sparkType));
      }
    }

    Expression expression =
        MaskEngine.expression(
            mask, new BoundReference(0, sparkType, true), type, "c", "", HASH_KEY);
    UnsafeProjection compiled =
        GenerateUnsafeProjection.generate(ScalaCollections.asScalaList(List.of(expression)), false);
    List<String> interpreted = new ArrayList<>();
    List<String> generated = new ArrayList<>();
    for (Object input : inputs) {
      InternalRow row = new GenericInternalRow(new Object[] {input});
      interpreted.add(normalize(expression.eval(row), sparkType));
      InternalRow projected = compiled.apply(row);
      generated.add(
          normalize(projected.isNullAt(0) ? null : projected.get(0, sparkType), sparkType));
    }

    assertThat(byVector).as("vector kernel vs value kernel").isEqualTo(byValue);
    assertThat(interpreted).as("Catalyst (interpreted) vs value kernel").isEqualTo(byValue);
    assertThat(generated).as("Catalyst (generated code) vs value kernel").isEqualTo(byValue);
    for (int i = 0; i < inputs.size(); i++) {
      if (inputs.get(i) == null || mask.kind() == Mask.Kind.NULL) {
        assertThat(byValue.get(i)).as("NULL of %s", inputs.get(i)).isNull();
      } else {
        assertThat(byValue.get(i)).as("%s of %s", mask, inputs.get(i)).isNotNull();
      }
    }
  }

  @ParameterizedTest(name = "{0} on {1}")
  @MethodSource("misfits")
  void everyPathRefusesAMaskThatDoesNotFit(Mask mask, MaskType type) {
    String message =
        "Mask '" + mask.spec() + "' of column 'c' under s3://b/p cannot be applied to type " + type;
    assertThatThrownBy(() -> MaskEngine.columnMask(mask, type, "c", "under s3://b/p", HASH_KEY))
        .isInstanceOf(ProtectorException.class)
        .hasMessageContaining(message)
        .hasMessageContaining("(the mask fits: " + mask.applicableTypes() + ")");
    DataType sparkType = type.sparkType() == null ? DataTypes.NullType : type.sparkType();
    assertThatThrownBy(
            () ->
                MaskEngine.expression(
                    mask,
                    new BoundReference(0, sparkType, true),
                    type,
                    "c",
                    "under s3://b/p",
                    HASH_KEY))
        .isInstanceOf(ProtectorException.class)
        .hasMessageContaining(message);
  }

  @Test
  void expressionsNameTheirKernelAndOnlyTheNameOfTheKey() {
    BoundReference ssn = new BoundReference(0, DataTypes.StringType, true);
    MaskType string = MaskType.of(DataTypes.StringType);
    assertThat(MaskEngine.expression(Mask.partial(4), ssn, string, "ssn", "", HASH_KEY).toString())
        .contains("PartialMask", "partial");
    assertThat(MaskEngine.expression(Mask.hash(), ssn, string, "ssn", "", HASH_KEY).toString())
        .contains("hash(key=test)", "string")
        .doesNotContain(new String(KEY, StandardCharsets.UTF_8));
  }

  @Test
  void yearAgreesWithJavaTimeAcrossSparksRange() {
    for (Object input : inputs(MaskType.of(DataTypes.TimestampType))) {
      if (input != null) {
        long micros = (Long) input;
        LocalDateTime at =
            LocalDateTime.ofEpochSecond(Math.floorDiv(micros, 1_000_000L), 0, ZoneOffset.UTC);
        long expected =
            Math.multiplyExact(
                LocalDateTime.of(at.getYear(), 1, 1, 0, 0).toEpochSecond(ZoneOffset.UTC),
                1_000_000L);
        assertThat(YearMask.ofEpochMicros(micros)).as("year of %s", at).isEqualTo(expected);
      }
    }
  }

  /** Values of a type, NULLs among them, in Spark's internal form. */
  static List<Object> inputs(MaskType type) {
    DataType t = type.sparkType();
    if (t instanceof StringType) {
      return values(
          s("123-45-6789"),
          null,
          s(""),
          s("a"),
          s("ab"),
          s("zürich ✓ 𝄞 end"),
          s("日本語テキスト"),
          s("\uD83D\uDE00\uD83D\uDE00\uD83D\uDE00"));
    } else if (t instanceof BinaryType && type.fixedLength() > 0) {
      return values(
          new byte[] {1, 2, 3, 4, 5}, null, new byte[5], new byte[] {-1, -128, 127, 0, 1});
    } else if (t instanceof BinaryType) {
      byte[] long40 = new byte[40];
      for (int i = 0; i < long40.length; i++) {
        long40[i] = (byte) i;
      }
      return values(new byte[] {1, 2, 3}, null, new byte[0], long40, new byte[] {-1, -128});
    } else if (t instanceof BooleanType) {
      return values(true, null, false);
    } else if (t instanceof ByteType) {
      return values((byte) 42, null, Byte.MIN_VALUE, (byte) -1, (byte) 0, Byte.MAX_VALUE);
    } else if (t instanceof ShortType) {
      return values((short) 42, null, Short.MIN_VALUE, (short) -7, (short) 0, Short.MAX_VALUE);
    } else if (t instanceof IntegerType) {
      return values(42, null, Integer.MIN_VALUE, -7, 0, Integer.MAX_VALUE);
    } else if (t instanceof LongType) {
      return values(42L, null, Long.MIN_VALUE, -7L, 0L, Long.MAX_VALUE);
    } else if (t instanceof FloatType) {
      return values(4.2f, null, -0f, Float.NaN, Float.NEGATIVE_INFINITY, Float.MAX_VALUE);
    } else if (t instanceof DoubleType) {
      return values(4.2d, null, -0d, Double.NaN, Double.POSITIVE_INFINITY, Double.MIN_VALUE);
    } else if (t instanceof DecimalType) {
      DecimalType decimal = (DecimalType) t;
      int integerDigits = decimal.precision() - decimal.scale();
      BigDecimal max =
          new BigDecimal("9".repeat(integerDigits) + "." + "9".repeat(decimal.scale()));
      return values(
          dec("12.5", decimal),
          null,
          dec("0", decimal),
          dec("-0.01", decimal),
          dec(max.toPlainString(), decimal),
          dec(max.negate().toPlainString(), decimal));
    } else if (t instanceof DateType) {
      return values(
          day("1990-05-17"),
          null,
          day("0001-01-01"),
          day("1582-10-04"),
          day("1969-12-31"),
          day("1970-01-01"),
          day("2024-02-29"),
          day("9999-12-31"));
    } else if (t instanceof TimestampType || t instanceof TimestampNTZType) {
      return values(
          micros("2021-07-08T09:10:11.123456"),
          null,
          micros("0001-01-01T00:00:00"),
          micros("1500-08-01T12:00:00"),
          micros("1677-09-21T00:12:43.145224"),
          -1L,
          0L,
          micros("2262-04-11T23:47:16.854776"),
          micros("9999-12-31T23:59:59.999999"));
    }
    throw new IllegalArgumentException("No test values for " + type);
  }

  private static List<Object> values(Object... values) {
    return new ArrayList<>(Arrays.asList(values));
  }

  private static UTF8String s(String value) {
    return UTF8String.fromString(value);
  }

  private static Decimal dec(String value, DecimalType type) {
    Decimal decimal = Decimal.apply(new BigDecimal(value));
    decimal.changePrecision(type.precision(), type.scale());
    return decimal;
  }

  private static int day(String iso) {
    return MaskKernelsTest.day(iso);
  }

  private static long micros(String isoLocal) {
    return MaskKernelsTest.micros(isoLocal);
  }

  /** A comparable text of a Spark internal value: its exact bytes, bits or digits and type. */
  private static String normalize(Object value, DataType type) {
    if (value == null) {
      return null;
    } else if (value instanceof UTF8String) {
      return "utf8:" + HexFormat.of().formatHex(((UTF8String) value).getBytes());
    } else if (value instanceof byte[]) {
      return "binary:" + HexFormat.of().formatHex((byte[]) value);
    } else if (value instanceof Decimal) {
      Decimal decimal = (Decimal) value;
      DecimalType decimalType = (DecimalType) type;
      assertThat(decimal.precision())
          .as("precision of %s", decimal)
          .isLessThanOrEqualTo(decimalType.precision());
      return "decimal:" + decimal.toJavaBigDecimal().toPlainString();
    } else if (value instanceof Float) {
      return "float:" + Integer.toHexString(Float.floatToRawIntBits((Float) value));
    } else if (value instanceof Double) {
      return "double:" + Long.toHexString(Double.doubleToRawLongBits((Double) value));
    }
    return value.getClass().getSimpleName() + ":" + value;
  }
}
