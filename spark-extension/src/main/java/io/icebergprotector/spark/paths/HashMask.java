package io.icebergprotector.spark.paths;

import io.icebergprotector.spark.ProtectionSpec;
import io.icebergprotector.spark.crypto.ProtectorCrypto;
import java.io.Serializable;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Objects;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.apache.spark.sql.types.Decimal;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * The {@code hash} mask of one column for one principal, as the target object of a Catalyst
 * {@code Invoke}: HMAC-SHA256 under the column's hash-mask key ({@link
 * ProtectorCrypto#hashMaskKey}), over the same canonical text as the Iceberg read path, so equal
 * values hash alike in both. The key is derived on the executor on first use and never enters a
 * plan; {@link #toString()} names only the key id and the principal.
 */
public final class HashMask implements Serializable {
  private static final long serialVersionUID = 1L;
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

  private final ProtectionSpec keyScope;
  private final String keyId;
  private final int precision;
  private final int scale;
  private transient ThreadLocal<Mac> macs;

  HashMask(ProtectionSpec keyScope, String keyId, int precision, int scale) {
    this.keyScope = Objects.requireNonNull(keyScope, "keyScope");
    this.keyId = Objects.requireNonNull(keyId, "keyId");
    this.precision = precision;
    this.scale = scale;
  }

  private Mac mac() {
    ThreadLocal<Mac> local = macs;
    if (local == null) {
      synchronized (this) {
        if (macs == null) {
          macs = ThreadLocal.withInitial(this::newMac);
        }
        local = macs;
      }
    }
    return local.get();
  }

  private Mac newMac() {
    byte[] key = ProtectorCrypto.hashMaskKey(keyScope, keyId);
    try {
      Mac mac = Mac.getInstance("HmacSHA256");
      mac.init(new SecretKeySpec(key, "HmacSHA256"));
      return mac;
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("HmacSHA256 unavailable in this JVM", e);
    }
  }

  private byte[] digest(byte[] value) {
    return mac().doFinal(value);
  }

  /** Lowercase hex digest of the UTF-8 bytes, exactly {@code Masks.hashHex}. */
  public UTF8String hashString(UTF8String value) {
    byte[] digest = digest(value.getBytes());
    byte[] hex = new byte[digest.length * 2];
    for (int i = 0; i < digest.length; i++) {
      hex[2 * i] = HEX_DIGITS[(digest[i] >> 4) & 0xf];
      hex[2 * i + 1] = HEX_DIGITS[digest[i] & 0xf];
    }
    return UTF8String.fromBytes(hex);
  }

  /** The 32 digest bytes. */
  public byte[] hashBinary(byte[] value) {
    return digest(value);
  }

  public byte hashByte(byte value) {
    return (byte) hashInt(value);
  }

  public short hashShort(short value) {
    return (short) hashInt(value);
  }

  /** First 4 digest bytes of the decimal text, big-endian. */
  public int hashInt(int value) {
    return (int) (first8(digest(text(Integer.toString(value)))) >> 32);
  }

  public long hashLong(long value) {
    return first8(digest(text(Long.toString(value))));
  }

  public Decimal hashDecimal(Decimal value) {
    long modulus = POWERS_OF_TEN[Math.min(precision, 18)];
    String canonical = value.toJavaBigDecimal().setScale(scale).toPlainString();
    long unscaled = Math.floorMod(first8(digest(text(canonical))), modulus);
    return Decimal.apply(unscaled, precision, scale);
  }

  public int hashDate(int epochDay) {
    String canonical = LocalDate.ofEpochDay(epochDay).toString();
    return (int) (MIN_DAY + Math.floorMod(first8(digest(text(canonical))), DAY_RANGE));
  }

  /** A timestamp with time zone (Spark {@code TIMESTAMP}); canonical text ends in {@code Z}. */
  public long hashTimestamp(long micros) {
    return timestamp(micros, true);
  }

  /** A timestamp without time zone (Spark {@code TIMESTAMP_NTZ}). */
  public long hashTimestampNtz(long micros) {
    return timestamp(micros, false);
  }

  private long timestamp(long micros, boolean withZone) {
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
    Instant instant = dateTime.toInstant(ZoneOffset.UTC);
    return Math.addExact(
        Math.multiplyExact(instant.getEpochSecond(), 1_000_000L), instant.getNano() / 1000);
  }

  @Override
  public boolean equals(Object o) {
    if (this == o) {
      return true;
    }
    if (!(o instanceof HashMask)) {
      return false;
    }
    HashMask other = (HashMask) o;
    return keyId.equals(other.keyId)
        && precision == other.precision
        && scale == other.scale
        && keyScope.cacheToken().equals(other.keyScope.cacheToken());
  }

  @Override
  public int hashCode() {
    return Objects.hash(keyId, precision, scale, keyScope.cacheToken());
  }

  @Override
  public String toString() {
    return "hash(key=" + keyId + ", principal=" + keyScope.principal() + ")";
  }
}
