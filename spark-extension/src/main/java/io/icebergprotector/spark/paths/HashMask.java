package io.icebergprotector.spark.paths;

import io.icebergprotector.kms.KeyScope;
import io.icebergprotector.policy.Policy;
import io.icebergprotector.spark.crypto.HashMaskKeys;
import io.icebergprotector.spark.read.ValueHash;
import java.io.Serializable;
import java.util.Objects;
import org.apache.spark.sql.types.Decimal;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * The {@code hash} mask of one column for one principal, as the target object of a Catalyst
 * {@code Invoke}: HMAC-SHA256 under the column's hash-mask key ({@link
 * HashMaskKeys}), over the same canonical text as the Iceberg read path, so equal
 * values hash alike in both. The key is derived on the executor on first use and never enters a
 * plan; {@link #toString()} names only the key id and the principal.
 */
public final class HashMask implements Serializable {
  private static final long serialVersionUID = 1L;

  private final KeyScope keyScope;
  private final Policy policy;
  private final String keyId;
  private final int precision;
  private final int scale;
  private transient ThreadLocal<ValueHash> hashes;

  HashMask(KeyScope keyScope, Policy policy, String keyId, int precision, int scale) {
    this.keyScope = Objects.requireNonNull(keyScope, "keyScope");
    this.policy = Objects.requireNonNull(policy, "policy");
    this.keyId = Objects.requireNonNull(keyId, "keyId");
    this.precision = precision;
    this.scale = scale;
  }

  /** One hasher per thread: a keyed Mac is not thread-safe, and tasks share this object. */
  private ValueHash hash() {
    ThreadLocal<ValueHash> local = hashes;
    if (local == null) {
      synchronized (this) {
        if (hashes == null) {
          hashes =
              ThreadLocal.withInitial(
                  () -> new ValueHash(() -> HashMaskKeys.get(keyScope, policy, keyId)));
        }
        local = hashes;
      }
    }
    return local.get();
  }

  /** Lowercase hex digest of the UTF-8 bytes, exactly {@code Masks.hashHex}. */
  public UTF8String hashString(UTF8String value) {
    return hash().string(value);
  }

  /** The 32 digest bytes. */
  public byte[] hashBinary(byte[] value) {
    return hash().digest(value);
  }

  public byte hashByte(byte value) {
    return (byte) hashInt(value);
  }

  public short hashShort(short value) {
    return (short) hashInt(value);
  }

  /** First 4 digest bytes of the decimal text, big-endian. */
  public int hashInt(int value) {
    return hash().ofInt(value);
  }

  public long hashLong(long value) {
    return hash().ofLong(value);
  }

  public Decimal hashDecimal(Decimal value) {
    return hash().ofDecimal(value, precision, scale);
  }

  public int hashDate(int epochDay) {
    return hash().ofDate(epochDay);
  }

  /** A timestamp with time zone (Spark {@code TIMESTAMP}); canonical text ends in {@code Z}. */
  public long hashTimestamp(long micros) {
    return hash().ofTimestamp(micros, true);
  }

  /** A timestamp without time zone (Spark {@code TIMESTAMP_NTZ}). */
  public long hashTimestampNtz(long micros) {
    return hash().ofTimestamp(micros, false);
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
        && keyScope.equals(other.keyScope);
  }

  @Override
  public int hashCode() {
    return Objects.hash(keyId, precision, scale, keyScope);
  }

  @Override
  public String toString() {
    return "hash(key=" + keyId + ", principal=" + keyScope.principal() + ")";
  }
}
