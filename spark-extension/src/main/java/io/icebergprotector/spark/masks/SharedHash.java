package io.icebergprotector.spark.masks;

import java.io.Serializable;
import java.util.Objects;
import org.apache.spark.sql.types.Decimal;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * The {@code hash} kernel of one key as the target of a Catalyst {@code Invoke}: the methods of
 * {@link ValueHash}, each on the calling thread's own {@link ValueHash} (a keyed Mac is not
 * thread-safe, and the tasks of an executor share this object). Public for generated code.
 */
public final class SharedHash implements Serializable {
  private static final long serialVersionUID = 1L;

  private final HashKeySource key;
  private transient volatile ThreadLocal<ValueHash> hashes;

  SharedHash(HashKeySource key) {
    this.key = Objects.requireNonNull(key, "key");
  }

  private ValueHash hash() {
    ThreadLocal<ValueHash> local = hashes;
    if (local == null) {
      synchronized (this) {
        if (hashes == null) {
          hashes = ThreadLocal.withInitial(() -> new ValueHash(key));
        }
        local = hashes;
      }
    }
    return local.get();
  }

  public UTF8String string(UTF8String value) {
    return hash().string(value);
  }

  public byte[] digest(byte[] value) {
    return hash().digest(value);
  }

  public byte[] fixed(byte[] value, int length) {
    return hash().fixed(value, length);
  }

  public byte ofByte(byte value) {
    return hash().ofByte(value);
  }

  public short ofShort(short value) {
    return hash().ofShort(value);
  }

  public int ofInt(int value) {
    return hash().ofInt(value);
  }

  public long ofLong(long value) {
    return hash().ofLong(value);
  }

  public Decimal ofDecimal(Decimal value, int precision, int scale) {
    return hash().ofDecimal(value, precision, scale);
  }

  public int ofDate(int epochDay) {
    return hash().ofDate(epochDay);
  }

  public long ofTimestamp(long micros, boolean withZone) {
    return hash().ofTimestamp(micros, withZone);
  }

  @Override
  public boolean equals(Object o) {
    return this == o || (o instanceof SharedHash && key.equals(((SharedHash) o).key));
  }

  @Override
  public int hashCode() {
    return key.hashCode();
  }

  @Override
  public String toString() {
    return key.toString();
  }
}
