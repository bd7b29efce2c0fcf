/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.policy.masks;

import static io.icebergprotector.policy.Preconditions.checkArgument;

import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Arrays;
import java.util.function.Supplier;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The value kernel of the {@code hash} mask for one column: HMAC-SHA256 under the column's key over
 * a canonical UTF-8 text of each value, so equal values stay joinable across columns of the same
 * key and across engines, with one keyed Mac reused for every value. Each result keeps the column's
 * type:
 *
 * <ul>
 *   <li>string, uuid: the string itself; output: the lowercase hex digest (64 characters)
 *   <li>binary: the raw bytes; output: the 32 digest bytes ({@code fixed(L)}: the digest repeated
 *       to L bytes)
 *   <li>int, long: decimal digits ({@code "-42"}); output: the first 4 (int) or 8 (long) digest
 *       bytes, big-endian, as a signed number; byte, short (plain Parquet files): the int's result
 *       narrowed to the type
 *   <li>decimal(p,s): {@code BigDecimal.toPlainString()} with scale s ({@code "12.50"}); output:
 *       the first 8 digest bytes as a long, reduced modulo 10^min(p,18), as the unscaled value with
 *       scale s
 *   <li>date: ISO {@code yyyy-MM-dd}; output: a date in 0001-01-01..9999-12-31 (first 8 digest
 *       bytes modulo the number of days in that range)
 *   <li>timestamp: ISO {@code yyyy-MM-ddTHH:mm:ss.SSSSSS}, with a trailing {@code Z} when the
 *       column has a zone (values in UTC); output: a timestamp in [0001-01-01, 10000-01-01) UTC,
 *       chosen the same way at microsecond precision
 * </ul>
 *
 * The key is fetched on the first hashed value (never for a column of nulls only) and wiped once
 * the Mac holds it. Not thread-safe: one per reader.
 */
public final class HashKernel {
  private static final String HMAC_SHA256 = "HmacSHA256";
  private static final byte[] HEX_DIGITS = "0123456789abcdef".getBytes(StandardCharsets.US_ASCII);
  private static final DateTimeFormatter TIMESTAMP_TEXT =
      DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ss.SSSSSS");
  private static final long[] POWERS_OF_TEN = new long[19];
  private static final long MIN_DAY = LocalDate.of(1, 1, 1).toEpochDay();
  private static final long DAY_RANGE = LocalDate.of(9999, 12, 31).toEpochDay() - MIN_DAY + 1;
  private static final long MIN_MICROS = micros(LocalDateTime.of(1, 1, 1, 0, 0));
  private static final long MICROS_RANGE = micros(LocalDateTime.of(10000, 1, 1, 0, 0)) - MIN_MICROS;

  static {
    POWERS_OF_TEN[0] = 1L;
    for (int i = 1; i < POWERS_OF_TEN.length; i++) {
      POWERS_OF_TEN[i] = POWERS_OF_TEN[i - 1] * 10L;
    }
  }

  private final Supplier<byte[]> key;
  private Mac mac = null;

  /**
   * @param key supplies the column's HMAC key, asked once (on the first hashed value): a copy that
   *     this wipes once its Mac holds the key
   */
  public HashKernel(Supplier<byte[]> key) {
    this.key = key;
  }

  private Mac mac() {
    if (mac == null) {
      byte[] bytes = key.get();
      try {
        checkArgument(
            bytes != null && bytes.length != 0, "Cannot hash: the hash mask's HMAC key is empty");
        // Mac.getInstance is a provider lookup, far dearer than the HMAC of a short value: one
        // keyed Mac serves every value of the column.
        Mac keyed = Mac.getInstance(HMAC_SHA256);
        keyed.init(new SecretKeySpec(bytes, HMAC_SHA256));
        mac = keyed;
      } catch (GeneralSecurityException e) {
        throw new IllegalStateException("Cannot key " + HMAC_SHA256, e);
      } finally {
        if (bytes != null) {
          Arrays.fill(bytes, (byte) 0); // the Mac keeps its own copy
        }
      }
    }
    return mac;
  }

  /** A binary value: the 32 digest bytes of its bytes. */
  public byte[] ofBinary(byte[] value) {
    return mac().doFinal(value);
  }

  /** A {@code fixed(L)} value: the digest of its bytes repeated to {@code length} (L) bytes. */
  public byte[] ofFixed(byte[] value, int length) {
    byte[] digest = ofBinary(value);
    byte[] out = new byte[length];
    for (int i = 0; i < length; i++) {
      out[i] = digest[i % digest.length];
    }
    return out;
  }

  /** A string as its UTF-8 bytes: the lowercase hex digest, as (ASCII) UTF-8 bytes. */
  public byte[] ofUtf8(byte[] utf8) {
    byte[] digest = ofBinary(utf8);
    byte[] hex = new byte[digest.length * 2];
    for (int i = 0; i < digest.length; i++) {
      hex[2 * i] = HEX_DIGITS[(digest[i] >> 4) & 0xf];
      hex[2 * i + 1] = HEX_DIGITS[digest[i] & 0xf];
    }
    return hex;
  }

  /** A string: the lowercase hex digest of its UTF-8 bytes. */
  public String ofString(String value) {
    return new String(ofUtf8(text(value)), StandardCharsets.US_ASCII);
  }

  public byte ofByte(byte value) {
    return (byte) ofInt(value);
  }

  public short ofShort(short value) {
    return (short) ofInt(value);
  }

  /**
   * An int column's value: the first 4 digest bytes of its decimal text, big-endian. It takes a
   * long so that callers holding an int column's values as longs (JSON numbers) hash them as they
   * are: an int's text is the same either way.
   */
  public int ofInt(long value) {
    return (int) (ofLong(value) >> 32);
  }

  /** A long: the first 8 digest bytes of its decimal text, big-endian. */
  public long ofLong(long value) {
    return first8(ofBinary(text(Long.toString(value))));
  }

  /**
   * A decimal of a decimal(p,s) column.
   *
   * @return the unscaled value of the masked decimal, whose scale is {@code scale}
   * @throws ArithmeticException if {@code value} has more than {@code scale} decimals
   */
  public long unscaledOfDecimal(BigDecimal value, int precision, int scale) {
    long modulus = POWERS_OF_TEN[Math.min(precision, 18)];
    String canonical = value.setScale(scale).toPlainString();
    return Math.floorMod(first8(ofBinary(text(canonical))), modulus);
  }

  /** A date, as days since 1970-01-01. */
  public int ofEpochDay(int epochDay) {
    String canonical = LocalDate.ofEpochDay(epochDay).toString();
    return (int) (MIN_DAY + Math.floorMod(first8(ofBinary(text(canonical))), DAY_RANGE));
  }

  /**
   * A timestamp, as microseconds since 1970-01-01T00:00Z.
   *
   * @param withZone whether the column's timestamps have a zone (their canonical text ends in
   *     {@code Z}) or not (Spark's TIMESTAMP_NTZ)
   */
  public long ofEpochMicros(long epochMicros, boolean withZone) {
    String canonical = TIMESTAMP_TEXT.format(dateTime(epochMicros)) + (withZone ? "Z" : "");
    return MIN_MICROS + Math.floorMod(first8(ofBinary(text(canonical))), MICROS_RANGE);
  }

  private static byte[] text(String value) {
    return value.getBytes(StandardCharsets.UTF_8);
  }

  private static long first8(byte[] digest) {
    long result = 0;
    for (int i = 0; i < 8; i++) {
      result = (result << 8) | (digest[i] & 0xffL);
    }
    return result;
  }

  private static LocalDateTime dateTime(long micros) {
    return LocalDateTime.ofEpochSecond(
        Math.floorDiv(micros, 1_000_000L),
        (int) Math.floorMod(micros, 1_000_000L) * 1000,
        ZoneOffset.UTC);
  }

  private static long micros(LocalDateTime dateTime) {
    // not ChronoUnit.MICROS.between: it goes through nanoseconds and overflows beyond +-292 years
    Instant instant = dateTime.toInstant(ZoneOffset.UTC);
    return Math.addExact(
        Math.multiplyExact(instant.getEpochSecond(), 1_000_000L), instant.getNano() / 1000);
  }
}
