package io.icebergprotector.policy;

import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * Engine-neutral implementations of the masks, so every engine masks the same way.
 *
 * <p>Redaction constants ({@code redact} mask), by type:
 *
 * <ul>
 *   <li>STRING: {@code "****"} ({@link #REDACTED_STRING})
 *   <li>INT, LONG, FLOAT, DOUBLE, DECIMAL: {@code 0} of the type
 *   <li>DATE: {@code 1970-01-01}; TIMESTAMP: {@code 1970-01-01T00:00:00Z}
 *   <li>BOOLEAN: {@code false}
 *   <li>BINARY: empty byte array
 * </ul>
 *
 * Nulls stay null under every mask.
 */
public final class Masks {
  /** What {@code redact} turns a string into. */
  public static final String REDACTED_STRING = "****";
  public static final int REDACTED_INT = 0;
  public static final long REDACTED_LONG = 0L;
  public static final float REDACTED_FLOAT = 0f;
  public static final double REDACTED_DOUBLE = 0d;
  public static final BigDecimal REDACTED_DECIMAL = BigDecimal.ZERO;
  public static final boolean REDACTED_BOOLEAN = false;
  public static final LocalDate REDACTED_DATE = LocalDate.EPOCH;
  public static final Instant REDACTED_TIMESTAMP = Instant.EPOCH;

  private static final char[] HEX = "0123456789abcdef".toCharArray();

  private Masks() {}

  /** {@link #REDACTED_STRING}. */
  public static String redactedString() {
    return REDACTED_STRING;
  }

  /** A fresh empty array (callers may not share a mutable constant). */
  public static byte[] redactedBinary() {
    return new byte[0];
  }

  /**
   * The {@code redact} constant for a type as a Java value (String, Integer, Long, Float, Double,
   * BigDecimal, Boolean, LocalDate, Instant, byte[]).
   *
   * @throws IllegalArgumentException for STRUCT, LIST, MAP, OTHER (use the {@code null} mask)
   */
  public static Object redacted(ColumnType type) {
    switch (type) {
      case STRING:
        return REDACTED_STRING;
      case BINARY:
        return redactedBinary();
      case BOOLEAN:
        return REDACTED_BOOLEAN;
      case INT:
        return REDACTED_INT;
      case LONG:
        return REDACTED_LONG;
      case FLOAT:
        return REDACTED_FLOAT;
      case DOUBLE:
        return REDACTED_DOUBLE;
      case DECIMAL:
        return REDACTED_DECIMAL;
      case DATE:
        return REDACTED_DATE;
      case TIMESTAMP:
        return REDACTED_TIMESTAMP;
      default:
        throw new IllegalArgumentException("no redaction constant for type " + type + "; use the null mask");
    }
  }

  /**
   * Replaces all but the last {@code keepLast} code points with {@code '*'}; the result has as many
   * code points as the input. {@code partial("123-45-6789", 4)} is {@code "*******6789"}.
   */
  public static String partial(String value, int keepLast) {
    if (keepLast < 0) {
      throw new IllegalArgumentException("keep_last must be >= 0, got " + keepLast);
    }
    if (value == null) {
      return null;
    }
    int total = value.codePointCount(0, value.length());
    int hide = Math.max(0, total - keepLast);
    int cut = value.offsetByCodePoints(0, hide);
    return "*".repeat(hide) + value.substring(cut);
  }

  /** HMAC-SHA256 of {@code value} under {@code hmacKey}, lowercase hex (64 chars). Null value stays null. */
  public static String hashHex(byte[] hmacKey, byte[] value) {
    checkHmacKey(hmacKey);
    if (value == null) {
      return null;
    }
    // Mac.getInstance is a provider lookup: far dearer than the HMAC of a short value, so each
    // thread keeps one Mac and only re-keys it.
    Mac mac = THREAD_MAC.get();
    try {
      mac.init(new SecretKeySpec(hmacKey, HMAC_SHA256));
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("Cannot key HmacSHA256", e);
    }
    return hex(mac.doFinal(value));
  }

  /**
   * A reusable keyed HMAC-SHA256 for hashing many values under one key (e.g. a column of a batch):
   * same digests as {@link #hashHex(byte[], byte[])}, without re-keying per value. Not thread-safe:
   * use one per thread or reader.
   */
  public static Hasher hasher(byte[] hmacKey) {
    checkHmacKey(hmacKey);
    return new Hasher(hmacKey);
  }

  /** See {@link #hasher(byte[])}. */
  public static final class Hasher {
    private final Mac mac;

    private Hasher(byte[] hmacKey) {
      this.mac = newMac();
      try {
        mac.init(new SecretKeySpec(hmacKey, HMAC_SHA256));
      } catch (GeneralSecurityException e) {
        throw new IllegalStateException("Cannot key HmacSHA256", e);
      }
    }

    /** The 32-byte HMAC-SHA256 of {@code value}. */
    public byte[] digest(byte[] value) {
      return mac.doFinal(value);
    }

    /** The 32-byte HMAC-SHA256 of {@code length} bytes of {@code value} from {@code offset}. */
    public byte[] digest(byte[] value, int offset, int length) {
      mac.update(value, offset, length);
      return mac.doFinal();
    }

    /** {@link #digest(byte[])} as lowercase hex, equal to {@link Masks#hashHex(byte[], byte[])}. */
    public String hashHex(byte[] value) {
      return value == null ? null : hex(mac.doFinal(value));
    }
  }

  private static final String HMAC_SHA256 = "HmacSHA256";
  private static final ThreadLocal<Mac> THREAD_MAC = ThreadLocal.withInitial(Masks::newMac);

  private static Mac newMac() {
    try {
      return Mac.getInstance(HMAC_SHA256);
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("HmacSHA256 unavailable in this JVM", e);
    }
  }

  private static void checkHmacKey(byte[] hmacKey) {
    if (hmacKey == null || hmacKey.length == 0) {
      throw new IllegalArgumentException("hash mask needs a non-empty HMAC key");
    }
  }

  /** {@link #hashHex(byte[], byte[])} of the UTF-8 bytes of a string. */
  public static String hashHex(byte[] hmacKey, String value) {
    return value == null ? null : hashHex(hmacKey, value.getBytes(StandardCharsets.UTF_8));
  }

  /** {@code year} mask: January 1st of the date's year. */
  public static LocalDate year(LocalDate date) {
    return date == null ? null : date.withDayOfYear(1);
  }

  /** {@code year} mask: January 1st, 00:00 of the timestamp's year. */
  public static LocalDateTime year(LocalDateTime ts) {
    return ts == null ? null : ts.toLocalDate().withDayOfYear(1).atStartOfDay();
  }

  /** {@code year} mask: January 1st, 00:00 UTC of the instant's UTC year. */
  public static Instant year(Instant ts) {
    return ts == null ? null : year(LocalDateTime.ofInstant(ts, ZoneOffset.UTC)).toInstant(ZoneOffset.UTC);
  }

  /** {@code year} mask on a date stored as days since epoch (Spark/Iceberg internal form). */
  public static int yearOfEpochDay(int epochDay) {
    return (int) LocalDate.ofEpochDay(epochDay).withDayOfYear(1).toEpochDay();
  }

  /** {@code year} mask on a timestamp stored as microseconds since epoch, UTC (Spark/Iceberg internal form). */
  public static long yearOfEpochMicros(long epochMicros) {
    Instant ts = Instant.EPOCH.plus(epochMicros, ChronoUnit.MICROS);
    Instant start = year(ts);
    // Not ChronoUnit.MICROS.between: it goes through nanoseconds and overflows outside 1678-2262.
    return Math.addExact(
        Math.multiplyExact(start.getEpochSecond(), 1_000_000L), start.getNano() / 1_000L);
  }

  private static String hex(byte[] bytes) {
    char[] out = new char[bytes.length * 2];
    for (int i = 0; i < bytes.length; i++) {
      out[2 * i] = HEX[(bytes[i] >> 4) & 0xf];
      out[2 * i + 1] = HEX[bytes[i] & 0xf];
    }
    return new String(out);
  }
}
