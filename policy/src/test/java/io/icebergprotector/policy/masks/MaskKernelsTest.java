/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.policy.masks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.HexFormat;
import org.junit.jupiter.api.Test;

/** The value kernels of the mask library, against values worked out by hand or by the JDK. */
class MaskKernelsTest {
  @Test
  void partialHidesAllButTheLastCodePoints() {
    assertThat(PartialKernel.mask("123-45-6789", 4)).isEqualTo("*******6789");
    assertThat(PartialKernel.mask("abc", 0)).isEqualTo("***");
    assertThat(PartialKernel.mask("abc", 3)).isEqualTo("abc");
    assertThat(PartialKernel.mask("abc", 10)).isEqualTo("abc");
    assertThat(PartialKernel.mask("", 2)).isEqualTo("");
    // code points, not bytes or UTF-16 units: the emoji counts once
    assertThat(PartialKernel.mask("a\uD83D\uDE00bc", 2)).isEqualTo("**bc");
    assertThat(PartialKernel.mask("ab\uD83D\uDE00", 1)).isEqualTo("**\uD83D\uDE00");
    assertThat(PartialKernel.mask("zürich ✓", 3)).isEqualTo("*****h ✓");
    for (String value : new String[] {"123-45-6789", "abc", "", "a\uD83D\uDE00bc", "zürich ✓"}) {
      for (int keep = 0; keep < 12; keep++) {
        byte[] utf8 = value.getBytes(StandardCharsets.UTF_8);
        assertThat(new String(PartialKernel.maskUtf8(utf8, keep), StandardCharsets.UTF_8))
            .as("partial(keep_last=%s) of %s on UTF-8", keep, value)
            .isEqualTo(PartialKernel.mask(value, keep));
      }
    }
  }

  @Test
  void partialOnUtf8ReturnsTheValueItselfWhenNothingIsHidden() {
    byte[] abc = "abc".getBytes(StandardCharsets.UTF_8);
    assertThat(PartialKernel.maskUtf8(abc, 3)).isSameAs(abc);
    assertThat(PartialKernel.maskUtf8(abc, 2)).isNotSameAs(abc).containsExactly('*', 'b', 'c');
    assertThat(abc).containsExactly('a', 'b', 'c');
  }

  @Test
  void partialOnUtf8CountsAMalformedByteAsOneCharacter() {
    // as Spark's UTF8String counts them: a lone continuation byte or an invalid lead byte is one
    // character; a lead byte starts a character of its sequence's length
    byte[] malformed = {(byte) 0x80, 'a', (byte) 0xFF, (byte) 0xC3, (byte) 0xBC, 'b'};
    assertThat(PartialKernel.maskUtf8(malformed, 2))
        .containsExactly('*', '*', '*', (byte) 0xC3, (byte) 0xBC, 'b');
    // a sequence cut short by the end of the value is one character
    byte[] truncated = {'a', 'b', (byte) 0xE2, (byte) 0x9C};
    assertThat(PartialKernel.maskUtf8(truncated, 1))
        .containsExactly('*', '*', (byte) 0xE2, (byte) 0x9C);
    assertThat(PartialKernel.maskUtf8(truncated, 3)).isSameAs(truncated);
  }

  @Test
  void hashIsHmacSha256OfTheUtf8Bytes() {
    // RFC 4231, test case 2
    String expected = "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843";
    byte[] data = "what do ya want for nothing?".getBytes(StandardCharsets.US_ASCII);
    HashKernel hash = new HashKernel(() -> "Jefe".getBytes(StandardCharsets.US_ASCII));
    assertThat(hash.ofString("what do ya want for nothing?")).isEqualTo(expected);
    assertThat(hash.ofUtf8(data)).isEqualTo(expected.getBytes(StandardCharsets.US_ASCII));
    assertThat(HexFormat.of().formatHex(hash.ofBinary(data))).isEqualTo(expected);
    assertThat(hash.ofFixed(data, 40)).hasSize(40).startsWith(hash.ofBinary(data));
    assertThat(hash.ofFixed(data, 5)).containsExactly(0x5b, 0xdc, 0xc1, 0x46, 0xbf);
    HashKernel other = new HashKernel(() -> "Jeff".getBytes(StandardCharsets.US_ASCII));
    assertThat(other.ofString("what do ya want for nothing?")).isNotEqualTo(expected);
  }

  @Test
  void hashKeyIsFetchedOnTheFirstValueAndWipedOnceTheMacHoldsIt() {
    byte[] key = "Jefe".getBytes(StandardCharsets.US_ASCII);
    int[] fetches = {0};
    HashKernel hash =
        new HashKernel(
            () -> {
              fetches[0]++;
              return key;
            });
    assertThat(fetches[0]).as("no value hashed yet").isZero();
    String first = hash.ofString("a");
    assertThat(key).containsOnly(0);
    assertThat(hash.ofString("a")).isEqualTo(first);
    assertThat(fetches[0]).isEqualTo(1);
    assertThatThrownBy(() -> new HashKernel(() -> new byte[0]).ofString("a"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("Cannot hash: the hash mask's HMAC key is empty");
    assertThatThrownBy(() -> new HashKernel(() -> null).ofLong(1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("Cannot hash: the hash mask's HMAC key is empty");
  }

  @Test
  void hashOfNumbersUsesTheirDecimalText() {
    HashKernel hash = new HashKernel(() -> "k".getBytes(StandardCharsets.US_ASCII));
    long ofLong = hash.ofLong(42L);
    assertThat(ofLong).isEqualTo(first8(hash.ofBinary(bytes("42"))));
    assertThat((long) hash.ofInt(42)).isEqualTo(ofLong >> 32);
    assertThat(hash.ofShort((short) 42)).isEqualTo((short) hash.ofInt(42));
    assertThat(hash.ofByte((byte) 42)).isEqualTo((byte) hash.ofInt(42));
    long unscaled = hash.unscaledOfDecimal(new BigDecimal("12.5"), 5, 2);
    assertThat(unscaled)
        .as("the text of 12.5 at scale 2 is 12.50")
        .isEqualTo(Math.floorMod(first8(hash.ofBinary(bytes("12.50"))), 100_000L));
    assertThat(hash.unscaledOfDecimal(new BigDecimal("12.50"), 5, 2)).isEqualTo(unscaled);
    assertThat(hash.unscaledOfDecimal(new BigDecimal("-1"), 38, 0))
        .isBetween(0L, 999_999_999_999_999_999L);
    assertThatThrownBy(() -> hash.unscaledOfDecimal(new BigDecimal("1.234"), 5, 2))
        .isInstanceOf(ArithmeticException.class)
        .hasMessageContaining("Rounding necessary");
  }

  @Test
  void hashOfDatesAndTimestampsPicksFromYears1To9999ByTheirIsoText() {
    HashKernel hash = new HashKernel(() -> "k".getBytes(StandardCharsets.US_ASCII));
    long firstDay = day("0001-01-01");
    long days = day("9999-12-31") - firstDay + 1;
    for (String day : new String[] {"0001-01-01", "1970-01-01", "2024-02-29", "9999-12-31"}) {
      long expected = firstDay + Math.floorMod(first8(hash.ofBinary(bytes(day))), days);
      assertThat(hash.ofEpochDay(day(day))).as("hash of %s", day).isEqualTo(expected);
    }
    long firstMicros = micros("0001-01-01T00:00:00");
    long micros = days * 86_400_000_000L;
    String[][] timestamps = {
      {"2021-07-08T09:10:11.123456", "2021-07-08T09:10:11.123456Z", "2021-07-08T09:10:11.123456"},
      {"0001-01-01T00:00:00", "0001-01-01T00:00:00.000000Z", "0001-01-01T00:00:00.000000"},
      {"1969-12-31T23:59:59.9", "1969-12-31T23:59:59.900000Z", "1969-12-31T23:59:59.900000"},
    };
    for (String[] t : timestamps) {
      long withZone = firstMicros + Math.floorMod(first8(hash.ofBinary(bytes(t[1]))), micros);
      long withoutZone = firstMicros + Math.floorMod(first8(hash.ofBinary(bytes(t[2]))), micros);
      assertThat(hash.ofEpochMicros(micros(t[0]), true)).as("hash of %s", t[1]).isEqualTo(withZone);
      assertThat(hash.ofEpochMicros(micros(t[0]), false))
          .as("hash of %s", t[2])
          .isEqualTo(withoutZone);
    }
  }

  @Test
  void redactConstantsAreZeroFalseTheEpochAndFreshArrays() {
    assertThat(RedactKernel.STRING).isEqualTo("****");
    byte[] stringUtf8 = RedactKernel.stringUtf8();
    stringUtf8[0] = 'x';
    assertThat(RedactKernel.stringUtf8()).isEqualTo("****".getBytes(StandardCharsets.UTF_8));
    assertThat(RedactKernel.binary(0)).isEmpty();
    assertThat(RedactKernel.binary(3)).containsExactly(0, 0, 0).isNotSameAs(RedactKernel.binary(3));
    assertThat(LocalDate.ofEpochDay(RedactKernel.EPOCH_DAY)).isEqualTo(LocalDate.of(1970, 1, 1));
    assertThat(RedactKernel.EPOCH_MICROS).isZero();
    assertThat(BigDecimal.valueOf(RedactKernel.DECIMAL_UNSCALED, 2))
        .isEqualTo(new BigDecimal("0.00"));
  }

  @Test
  void yearTruncatesDatesAndTimestampsInUtc() {
    assertThat(YearKernel.ofEpochDay(day("1984-07-23"))).isEqualTo(day("1984-01-01"));
    assertThat(YearKernel.ofEpochDay(day("1969-12-31"))).isEqualTo(day("1969-01-01"));
    assertThat(YearKernel.ofEpochMicros(micros("1969-06-15T10:00:00.123456")))
        .isEqualTo(micros("1969-01-01T00:00:00"));
    assertThat(YearKernel.ofEpochMicros(micros("2021-07-08T09:10:11.123456")))
        .isEqualTo(micros("2021-01-01T00:00:00"));
    // 1678-2262 is all a long of nanoseconds holds; microseconds reach years 1 and 9999
    assertThat(YearKernel.ofEpochMicros(micros("1500-08-01T12:00:00")))
        .isEqualTo(micros("1500-01-01T00:00:00"));
    assertThat(YearKernel.ofEpochMicros(micros("0001-01-01T00:00:00")))
        .isEqualTo(micros("0001-01-01T00:00:00"));
    assertThat(YearKernel.ofEpochMicros(micros("9999-12-31T23:59:59.999999")))
        .isEqualTo(micros("9999-01-01T00:00:00"));
  }

  private static byte[] bytes(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }

  /** The first 8 bytes of a digest as a big-endian signed long. */
  private static long first8(byte[] digest) {
    return ByteBuffer.wrap(digest).getLong();
  }

  private static int day(String iso) {
    return (int) LocalDate.parse(iso).toEpochDay();
  }

  /** Microseconds since the epoch of a UTC date-time, computed without nanosecond arithmetic. */
  private static long micros(String isoLocal) {
    Instant instant = LocalDateTime.parse(isoLocal).toInstant(ZoneOffset.UTC);
    return Math.addExact(
        Math.multiplyExact(instant.getEpochSecond(), 1_000_000L), instant.getNano() / 1000);
  }
}
