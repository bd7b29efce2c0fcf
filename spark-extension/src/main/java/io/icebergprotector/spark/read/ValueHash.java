package io.icebergprotector.spark.read;

import io.icebergprotector.policy.Masks;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.function.Supplier;
import org.apache.spark.sql.types.Decimal;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * The {@code hash} mask of one column: HMAC-SHA256 under the column's key over a canonical text of
 * each value (see {@link ValueMasks} for the rules), with one keyed Mac reused for every value.
 * Every read path (rows, vectors, plain Parquet paths) hashes through this class, so equal values
 * hash alike everywhere. The key is fetched on the first hashed value (never for an all-null
 * column). Not thread-safe.
 */
public final class ValueHash {
  private static final byte[] HEX_DIGITS = "0123456789abcdef".getBytes(StandardCharsets.US_ASCII);
  private static final DateTimeFormatter TS_FORMAT =
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
  private Masks.Hasher hasher = null;

  public ValueHash(Supplier<byte[]> key) {
    this.key = key;
  }

  private Masks.Hasher hasher() {
    if (hasher == null) {
      byte[] bytes = key.get();
      try {
        hasher = Masks.hasher(bytes);
      } finally {
        java.util.Arrays.fill(bytes, (byte) 0); // the Mac keeps its own copy
      }
    }
    return hasher;
  }

  /** The 32 digest bytes of the raw value. */
  public byte[] digest(byte[] value) {
    return hasher().digest(value);
  }

  /** Lowercase hex digest of the string's UTF-8 bytes, as {@link Masks#hashHex}. */
  public UTF8String string(UTF8String value) {
    byte[] digest = digest(value.getBytes());
    byte[] hex = new byte[digest.length * 2];
    for (int i = 0; i < digest.length; i++) {
      hex[2 * i] = HEX_DIGITS[(digest[i] >> 4) & 0xf];
      hex[2 * i + 1] = HEX_DIGITS[digest[i] & 0xf];
    }
    return UTF8String.fromBytes(hex);
  }

  /** The digest repeated to {@code length} bytes, for fixed(L) columns. */
  public byte[] fixed(byte[] value, int length) {
    byte[] digest = digest(value);
    byte[] out = new byte[length];
    for (int i = 0; i < length; i++) {
      out[i] = digest[i % digest.length];
    }
    return out;
  }

  /** First 4 digest bytes of the decimal text, big-endian. */
  public int ofInt(int value) {
    return (int) (first8(digest(text(Integer.toString(value)))) >> 32);
  }

  public long ofLong(long value) {
    return first8(digest(text(Long.toString(value))));
  }

  public Decimal ofDecimal(Decimal value, int precision, int scale) {
    long modulus = POWERS_OF_TEN[Math.min(precision, 18)];
    String canonical = value.toJavaBigDecimal().setScale(scale).toPlainString();
    long unscaled = Math.floorMod(first8(digest(text(canonical))), modulus);
    return Decimal.apply(unscaled, precision, scale);
  }

  public int ofDate(int epochDay) {
    String canonical = LocalDate.ofEpochDay(epochDay).toString();
    return (int) (MIN_DAY + Math.floorMod(first8(digest(text(canonical))), DAY_RANGE));
  }

  /** {@code withZone}: Spark TIMESTAMP (canonical text ends in {@code Z}) vs TIMESTAMP_NTZ. */
  public long ofTimestamp(long micros, boolean withZone) {
    String canonical = TS_FORMAT.format(dateTime(micros)) + (withZone ? "Z" : "");
    return MIN_MICROS + Math.floorMod(first8(digest(text(canonical))), MICROS_RANGE);
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
