package io.icebergprotector.spark.read;

import io.icebergprotector.policy.Mask;
import io.icebergprotector.policy.Masks;
import io.icebergprotector.spark.ProtectorException;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.HexFormat;
import java.util.function.Supplier;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;
import org.apache.spark.sql.types.Decimal;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * Masks over Spark's internal values (UTF8String, int days, long micros, Decimal, byte[] ...). A
 * mask keeps the column's type, so a masked column has the same Spark type for every reader.
 *
 * <p><b>redact</b>: the constants of {@link Masks}: {@code "****"}, 0, 0.0, false, 1970-01-01,
 * 1970-01-01T00:00:00Z, an empty byte array (a fixed(L) column gets L zero bytes).
 *
 * <p><b>partial(keep_last=N)</b>: {@link Masks#partial} on strings.
 *
 * <p><b>year</b>: dates to January 1st of their year; timestamps (with or without zone) to January
 * 1st 00:00 of their year, computed in UTC.
 *
 * <p><b>hash</b>: HMAC-SHA256 under the column's hash-mask key ({@code
 * ProtectorCrypto.hashMaskKey}) over a canonical UTF-8 text of the value, so equal values stay
 * joinable across columns of the same key and across engines:
 *
 * <ul>
 *   <li>string, uuid: the string itself; output: the lowercase hex digest (64 characters), exactly
 *       {@link Masks#hashHex(byte[], String)}
 *   <li>binary: the raw bytes; output: the 32 digest bytes (fixed(L): the digest repeated to L
 *       bytes)
 *   <li>int, long: decimal digits ({@code "-42"}); output: the first 4 (int) or 8 (long) digest
 *       bytes, big-endian, as a signed number
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
 * Nulls stay null under every mask (callers never pass null here).
 */
final class ValueMasks {
  private static final HexFormat HEX = HexFormat.of();
  private static final UTF8String REDACTED_STRING = UTF8String.fromString(Masks.REDACTED_STRING);
  private static final DateTimeFormatter TS_FORMAT =
      DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ss.SSSSSS");
  private static final long MIN_DAY = LocalDate.of(1, 1, 1).toEpochDay();
  private static final long DAY_RANGE = LocalDate.of(9999, 12, 31).toEpochDay() - MIN_DAY + 1;
  private static final long MIN_MICROS = micros(LocalDateTime.of(1, 1, 1, 0, 0));
  private static final long MICROS_RANGE = micros(LocalDateTime.of(10000, 1, 1, 0, 0)) - MIN_MICROS;

  /** A mask on one non-null Spark internal value. */
  @FunctionalInterface
  interface ValueMask {
    Object apply(Object value);
  }

  private ValueMasks() {}

  /**
   * Whether {@code mask} can be applied to values of {@code type} (NULL masks are handled by the
   * reader).
   */
  static boolean supports(Mask mask, Type type) {
    try {
      forType(mask, type, () -> new byte[] {1}, "-");
      return true;
    } catch (ProtectorException e) {
      return false;
    }
  }

  /**
   * The mask function for a column.
   *
   * @param hashKey the column's HMAC key, fetched only when a value is first hashed
   * @param column the column path, for error messages
   * @throws ProtectorException if the mask does not fit the type
   */
  static ValueMask forType(Mask mask, Type type, Supplier<byte[]> hashKey, String column) {
    switch (mask.kind()) {
      case NULL:
        return value -> null;
      case REDACT:
        return redact(mask, type, column);
      case PARTIAL:
        if (isString(type)) {
          int keep = mask.keepLast();
          return value ->
              UTF8String.fromString(Masks.partial(((UTF8String) value).toString(), keep));
        }
        throw unsupported(mask, type, column);
      case YEAR:
        if (type.typeId() == Type.TypeID.DATE) {
          return value -> Masks.yearOfEpochDay((Integer) value);
        } else if (type.typeId() == Type.TypeID.TIMESTAMP) {
          return value -> Masks.yearOfEpochMicros((Long) value);
        }
        throw unsupported(mask, type, column);
      case HASH:
        return hash(mask, type, new LazyKey(hashKey), column);
      default:
        throw unsupported(mask, type, column);
    }
  }

  private static ValueMask redact(Mask mask, Type type, String column) {
    switch (type.typeId()) {
      case STRING:
      case UUID:
        return value -> REDACTED_STRING;
      case BINARY:
        return value -> Masks.redactedBinary();
      case FIXED:
        int length = ((Types.FixedType) type).length();
        return value -> new byte[length];
      case BOOLEAN:
        return value -> Masks.REDACTED_BOOLEAN;
      case INTEGER:
      case DATE:
        return value -> 0;
      case LONG:
      case TIME:
      case TIMESTAMP:
        return value -> 0L;
      case FLOAT:
        return value -> Masks.REDACTED_FLOAT;
      case DOUBLE:
        return value -> Masks.REDACTED_DOUBLE;
      case DECIMAL:
        Types.DecimalType decimal = (Types.DecimalType) type;
        int precision = decimal.precision();
        int scale = decimal.scale();
        return value -> Decimal.apply(0L, precision, scale);
      default:
        throw unsupported(mask, type, column);
    }
  }

  private static ValueMask hash(Mask mask, Type type, LazyKey key, String column) {
    switch (type.typeId()) {
      case STRING:
      case UUID:
        return value ->
            UTF8String.fromString(Masks.hashHex(key.get(), ((UTF8String) value).getBytes()));
      case BINARY:
        return value -> digest(key, (byte[]) value);
      case FIXED:
        int length = ((Types.FixedType) type).length();
        return value -> repeat(digest(key, (byte[]) value), length);
      case INTEGER:
        return value -> (int) (first8(digest(key, text(Integer.toString((Integer) value)))) >> 32);
      case LONG:
        return value -> first8(digest(key, text(Long.toString((Long) value))));
      case DECIMAL:
        Types.DecimalType decimal = (Types.DecimalType) type;
        int precision = decimal.precision();
        int scale = decimal.scale();
        long modulus = BigDecimal.TEN.pow(Math.min(precision, 18)).longValueExact();
        return value -> {
          String canonical = ((Decimal) value).toJavaBigDecimal().setScale(scale).toPlainString();
          long unscaled = Math.floorMod(first8(digest(key, text(canonical))), modulus);
          return Decimal.apply(unscaled, precision, scale);
        };
      case DATE:
        return value -> {
          String canonical = LocalDate.ofEpochDay((Integer) value).toString();
          return (int) (MIN_DAY + Math.floorMod(first8(digest(key, text(canonical))), DAY_RANGE));
        };
      case TIMESTAMP:
        boolean withZone = ((Types.TimestampType) type).shouldAdjustToUTC();
        return value -> {
          String canonical = TS_FORMAT.format(dateTime((Long) value)) + (withZone ? "Z" : "");
          return MIN_MICROS + Math.floorMod(first8(digest(key, text(canonical))), MICROS_RANGE);
        };
      default:
        throw unsupported(mask, type, column);
    }
  }

  private static boolean isString(Type type) {
    return type.typeId() == Type.TypeID.STRING;
  }

  private static byte[] text(String value) {
    return value.getBytes(StandardCharsets.UTF_8);
  }

  private static byte[] digest(LazyKey key, byte[] value) {
    return HEX.parseHex(Masks.hashHex(key.get(), value));
  }

  private static long first8(byte[] digest) {
    long result = 0;
    for (int i = 0; i < 8; i++) {
      result = (result << 8) | (digest[i] & 0xffL);
    }
    return result;
  }

  private static byte[] repeat(byte[] digest, int length) {
    byte[] out = new byte[length];
    for (int i = 0; i < length; i++) {
      out[i] = digest[i % digest.length];
    }
    return out;
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

  private static ProtectorException unsupported(Mask mask, Type type, String column) {
    return new ProtectorException(
        String.format(
            "Mask '%s' cannot be applied to column '%s' of type %s; fix the policy (valid types:"
                + " %s)",
            mask.spec(), column, type, mask.applicableTypes()));
  }

  /** Fetches the HMAC key once, on the first hashed value (never for an all-null column). */
  private static final class LazyKey {
    private final Supplier<byte[]> supplier;
    private volatile byte[] key;

    LazyKey(Supplier<byte[]> supplier) {
      this.supplier = supplier;
    }

    byte[] get() {
      byte[] result = key;
      if (result == null) {
        result = supplier.get();
        key = result;
      }
      return result;
    }
  }
}
