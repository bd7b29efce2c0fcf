/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.spark.masks;

import io.icebergprotector.policy.masks.HashKernel;
import java.io.Serializable;
import java.util.Objects;
import org.apache.spark.sql.types.Decimal;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * The {@code hash} kernel of one key as the target of a Catalyst {@code Invoke}: one method per
 * type on Spark's values, each on the calling thread's own {@link HashKernel} (a keyed Mac is not
 * thread-safe, and the tasks of an executor share this object). Public for generated code.
 */
public final class SharedHash implements Serializable {
  private static final long serialVersionUID = 1L;

  private final HashKeySource key;
  private transient volatile ThreadLocal<HashKernel> hashes;

  SharedHash(HashKeySource key) {
    this.key = Objects.requireNonNull(key, "key");
  }

  private HashKernel hash() {
    ThreadLocal<HashKernel> local = hashes;
    if (local == null) {
      synchronized (this) {
        if (hashes == null) {
          hashes = ThreadLocal.withInitial(() -> new HashKernel(key));
        }
        local = hashes;
      }
    }
    return local.get();
  }

  public UTF8String string(UTF8String value) {
    return HashMask.string(hash(), value);
  }

  public byte[] digest(byte[] value) {
    return hash().ofBinary(value);
  }

  public byte[] fixed(byte[] value, int length) {
    return hash().ofFixed(value, length);
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
    return HashMask.decimal(hash(), value, precision, scale);
  }

  public int ofDate(int epochDay) {
    return hash().ofEpochDay(epochDay);
  }

  public long ofTimestamp(long micros, boolean withZone) {
    return hash().ofEpochMicros(micros, withZone);
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
