package io.icebergprotector.spark.read;

import io.icebergprotector.policy.Mask;
import io.icebergprotector.policy.Masks;
import io.icebergprotector.spark.ProtectorException;
import java.util.Arrays;
import java.util.function.Supplier;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;
import org.apache.spark.sql.types.Decimal;
import org.apache.spark.unsafe.Platform;
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
 * Nulls stay null under every mask (callers never pass null here). The typed kernels below
 * ({@link #partial}, {@link ValueHash}, {@link #redacted}) are shared with the columnar path ({@link
 * VectorMasks}), so a row and a vector of the same value always mask alike.
 */
final class ValueMasks {
  private static final UTF8String REDACTED_STRING = UTF8String.fromString(Masks.REDACTED_STRING);

  /**
   * A mask on one non-null Spark internal value. Not thread-safe (a hash mask keeps one keyed
   * HMAC): build one per reader.
   */
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
        checkRedactable(mask, type, column);
        return value -> redacted(type);
      case PARTIAL:
        if (isString(type)) {
          int keep = mask.keepLast();
          return value -> partial((UTF8String) value, keep);
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
        return hash(mask, type, new ValueHash(hashKey), column);
      default:
        throw unsupported(mask, type, column);
    }
  }

  /** Types {@code redact} has a constant for (see {@link #redacted}). */
  static void checkRedactable(Mask mask, Type type, String column) {
    switch (type.typeId()) {
      case STRING:
      case UUID:
      case BINARY:
      case FIXED:
      case BOOLEAN:
      case INTEGER:
      case DATE:
      case LONG:
      case TIME:
      case TIMESTAMP:
      case FLOAT:
      case DOUBLE:
      case DECIMAL:
        return;
      default:
        throw unsupported(mask, type, column);
    }
  }

  /**
   * The {@code redact} constant of a type as a Spark internal value; byte arrays are fresh on every
   * call since callers may not share a mutable constant.
   */
  static Object redacted(Type type) {
    switch (type.typeId()) {
      case STRING:
      case UUID:
        return REDACTED_STRING;
      case BINARY:
        return Masks.redactedBinary();
      case FIXED:
        return new byte[((Types.FixedType) type).length()];
      case BOOLEAN:
        return Masks.REDACTED_BOOLEAN;
      case INTEGER:
      case DATE:
        return 0;
      case LONG:
      case TIME:
      case TIMESTAMP:
        return 0L;
      case FLOAT:
        return Masks.REDACTED_FLOAT;
      case DOUBLE:
        return Masks.REDACTED_DOUBLE;
      case DECIMAL:
        Types.DecimalType decimal = (Types.DecimalType) type;
        return Decimal.apply(0L, decimal.precision(), decimal.scale());
      default:
        throw new IllegalArgumentException("No redaction constant for type " + type);
    }
  }

  /**
   * {@link Masks#partial} on UTF-8 bytes: every code point but the last {@code keepLast} becomes
   * {@code '*'}; no round trip through a Java String.
   */
  static UTF8String partial(UTF8String value, int keepLast) {
    int total = value.numChars();
    int hide = Math.max(0, total - keepLast);
    if (hide == 0) {
      return value;
    }
    UTF8String kept = value.substring(hide, total);
    byte[] out = new byte[hide + kept.numBytes()];
    Arrays.fill(out, 0, hide, (byte) '*');
    kept.writeToMemory(out, Platform.BYTE_ARRAY_OFFSET + hide);
    return UTF8String.fromBytes(out);
  }

  private static ValueMask hash(Mask mask, Type type, ValueHash hash, String column) {
    switch (type.typeId()) {
      case STRING:
      case UUID:
        return value -> hash.string((UTF8String) value);
      case BINARY:
        return value -> hash.digest((byte[]) value);
      case FIXED:
        int length = ((Types.FixedType) type).length();
        return value -> hash.fixed((byte[]) value, length);
      case INTEGER:
        return value -> hash.ofInt((Integer) value);
      case LONG:
        return value -> hash.ofLong((Long) value);
      case DECIMAL:
        Types.DecimalType decimal = (Types.DecimalType) type;
        int precision = decimal.precision();
        int scale = decimal.scale();
        return value -> hash.ofDecimal((Decimal) value, precision, scale);
      case DATE:
        return value -> hash.ofDate((Integer) value);
      case TIMESTAMP:
        boolean withZone = ((Types.TimestampType) type).shouldAdjustToUTC();
        return value -> hash.ofTimestamp((Long) value, withZone);
      default:
        throw unsupported(mask, type, column);
    }
  }

  private static boolean isString(Type type) {
    return type.typeId() == Type.TypeID.STRING;
  }

  static ProtectorException unsupported(Mask mask, Type type, String column) {
    return new ProtectorException(
        String.format(
            "Mask '%s' cannot be applied to column '%s' of type %s; fix the policy (valid types:"
                + " %s)",
            mask.spec(), column, type, mask.applicableTypes()));
  }
}
