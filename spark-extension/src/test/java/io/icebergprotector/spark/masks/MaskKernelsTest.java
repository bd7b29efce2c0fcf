/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.spark.masks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.icebergprotector.policy.Mask;
import io.icebergprotector.policy.masks.YearKernel;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.HexFormat;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.Decimal;
import org.apache.spark.unsafe.types.UTF8String;
import org.junit.jupiter.api.Test;

/** The value kernels of the masks, against values worked out by hand or by the JDK. */
class MaskKernelsTest {
  private static UTF8String s(String value) {
    return UTF8String.fromString(value);
  }

  @Test
  void partialHidesAllButTheLastCodePoints() {
    assertThat(PartialMask.partial(s("123-45-6789"), 4)).isEqualTo(s("*******6789"));
    assertThat(PartialMask.partial(s("abc"), 0)).isEqualTo(s("***"));
    assertThat(PartialMask.partial(s("abc"), 3)).isEqualTo(s("abc"));
    assertThat(PartialMask.partial(s("abc"), 10)).isEqualTo(s("abc"));
    assertThat(PartialMask.partial(s(""), 2)).isEqualTo(s(""));
    // code points, not bytes or UTF-16 units: the emoji counts once
    assertThat(PartialMask.partial(s("a\uD83D\uDE00bc"), 2)).isEqualTo(s("**bc"));
    assertThat(PartialMask.partial(s("ab\uD83D\uDE00"), 1)).isEqualTo(s("**\uD83D\uDE00"));
    assertThat(PartialMask.partial(s("zürich ✓"), 3).toString())
        .isEqualTo(ExpectedMasks.partial("zürich ✓", 3))
        .isEqualTo("*****h ✓");
  }

  @Test
  void partialOfAStringInsideLargerBytes() {
    // vectors hand out strings that are views into their buffer
    byte[] buffer = "xx123-45-6789yy".getBytes(StandardCharsets.UTF_8);
    UTF8String view = UTF8String.fromBytes(buffer, 2, 11);
    assertThat(PartialMask.partial(view, 4)).isEqualTo(s("*******6789"));
    assertThat(PartialMask.partial(view, 11)).isSameAs(view);
    assertThat(new String(buffer, StandardCharsets.UTF_8)).isEqualTo("xx123-45-6789yy");
  }

  @Test
  void hashGivesSparkValuesTheHmacSha256OfTheLibrary() {
    // RFC 4231, test case 2
    String expected = "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843";
    byte[] data = "what do ya want for nothing?".getBytes(StandardCharsets.US_ASCII);
    SharedHash hash = new SharedHash(() -> "Jefe".getBytes(StandardCharsets.US_ASCII));
    assertThat(hash.string(s("what do ya want for nothing?")).toString()).isEqualTo(expected);
    assertThat(HexFormat.of().formatHex(hash.digest(data))).isEqualTo(expected);
    assertThat(hash.fixed(data, 40)).hasSize(40).startsWith(hash.digest(data));
    SharedHash other = new SharedHash(() -> "Jeff".getBytes(StandardCharsets.US_ASCII));
    assertThat(other.string(s("what do ya want for nothing?")).toString()).isNotEqualTo(expected);
  }

  @Test
  void hashKeyIsWipedOnceTheMacHoldsItAndAnEmptyKeyIsRefused() {
    byte[] key = "Jefe".getBytes(StandardCharsets.US_ASCII);
    MaskType string = MaskType.of(DataTypes.StringType);
    ColumnMask hash = MaskEngine.columnMask(Mask.hash(), string, "c", "", () -> key);
    Object first = hash.apply(s("a"));
    assertThat(key).containsOnly(0);
    assertThat(hash.apply(s("a"))).isEqualTo(first);
    ColumnMask emptyKey = MaskEngine.columnMask(Mask.hash(), string, "c", "", () -> new byte[0]);
    assertThatThrownBy(() -> emptyKey.apply(s("a")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("the hash mask's HMAC key is empty");
  }

  @Test
  void hashOfNumbersUsesTheirDecimalText() {
    SharedHash hash = new SharedHash(() -> "k".getBytes(StandardCharsets.US_ASCII));
    long ofLong = hash.ofLong(42L);
    assertThat((long) hash.ofInt(42)).isEqualTo(ofLong >> 32);
    assertThat(hash.ofShort((short) 42)).isEqualTo((short) hash.ofInt(42));
    assertThat(hash.ofByte((byte) 42)).isEqualTo((byte) hash.ofInt(42));
    Decimal decimal = hash.ofDecimal(Decimal.apply(new BigDecimal("12.50")), 5, 2);
    assertThat(decimal.scale()).isEqualTo(2);
    assertThat(decimal.toJavaBigDecimal().abs()).isLessThan(new BigDecimal("1000.00"));
  }

  @Test
  void redactConstantsKeepTheType() {
    assertThat(RedactMask.constant(MaskType.of(DataTypes.StringType))).isEqualTo(s("****"));
    assertThat(RedactMask.constant(MaskType.of(DataTypes.IntegerType))).isEqualTo(0);
    assertThat(RedactMask.constant(MaskType.of(DataTypes.ShortType))).isEqualTo((short) 0);
    assertThat(RedactMask.constant(MaskType.of(DataTypes.LongType))).isEqualTo(0L);
    assertThat(RedactMask.constant(MaskType.of(DataTypes.DoubleType))).isEqualTo(0d);
    assertThat(RedactMask.constant(MaskType.of(DataTypes.FloatType))).isEqualTo(0f);
    assertThat(RedactMask.constant(MaskType.of(DataTypes.BooleanType))).isEqualTo(false);
    assertThat(RedactMask.constant(MaskType.of(DataTypes.DateType))).isEqualTo(0);
    assertThat(RedactMask.constant(MaskType.of(DataTypes.TimestampType))).isEqualTo(0L);
    assertThat(RedactMask.constant(MaskType.of(DataTypes.TimestampNTZType))).isEqualTo(0L);
    Decimal zero = (Decimal) RedactMask.constant(MaskType.of(DataTypes.createDecimalType(10, 2)));
    assertThat(zero.toJavaBigDecimal()).isEqualTo(new BigDecimal("0.00"));
    assertThat((byte[]) RedactMask.constant(MaskType.of(DataTypes.BinaryType))).isEmpty();
    assertThat((byte[]) RedactMask.constant(MaskType.fixed(3))).containsExactly(0, 0, 0);
  }

  @Test
  void redactedArraysAreFreshForEveryValue() {
    ColumnMask redact =
        MaskEngine.columnMask(Mask.redact(), MaskType.fixed(2), "c", "", () -> new byte[] {1});
    byte[] first = (byte[]) redact.apply(new byte[] {7, 7});
    first[0] = 9;
    assertThat((byte[]) redact.apply(new byte[] {7, 7})).containsExactly(0, 0);
  }

  @Test
  void yearGivesCatalystTheLibrarysKernel() {
    // the library's kernel is checked against hand-worked values; here: the Catalyst entry points
    // are that kernel, across Spark's range of dates and timestamps
    for (int day = day("0001-01-01"); day <= day("9999-12-31"); day += 997) {
      assertThat(YearMask.ofEpochDay(day)).isEqualTo(YearKernel.ofEpochDay(day));
      long micros = day * 86_400_000_000L + 12_345_678_901L;
      assertThat(YearMask.ofEpochMicros(micros)).isEqualTo(YearKernel.ofEpochMicros(micros));
    }
    assertThat(YearMask.ofEpochMicros(micros("1969-06-15T10:00:00.123456")))
        .isEqualTo(micros("1969-01-01T00:00:00"));
  }

  static int day(String iso) {
    return (int) LocalDate.parse(iso).toEpochDay();
  }

  /** Microseconds since the epoch of a UTC date-time, computed without nanosecond arithmetic. */
  static long micros(String isoLocal) {
    Instant instant = LocalDateTime.parse(isoLocal).toInstant(ZoneOffset.UTC);
    return Math.addExact(
        Math.multiplyExact(instant.getEpochSecond(), 1_000_000L), instant.getNano() / 1000);
  }
}
