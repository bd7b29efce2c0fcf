/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.kms.remote;

import java.util.Arrays;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.LongSupplier;

/**
 * A small TTL + LRU cache of unwrapped (and derived) key bytes. Stores private copies, hands out
 * copies, and wipes entries when they expire, are evicted, invalidated or the cache is cleared, so
 * key material does not linger longer than the TTL in this process.
 */
final class UnwrapCache {
  /** kind distinguishes unwrap results from derived keys of the same key id. */
  private record Entry(String kind, String keyId, String text) {}

  private record Value(byte[] bytes, long expiresAtNanos) {}

  private final long ttlNanos;
  private final int maxEntries;
  private final LongSupplier nanoClock;
  private final LinkedHashMap<Entry, Value> map = new LinkedHashMap<>(16, 0.75f, true);

  UnwrapCache(long ttlNanos, int maxEntries, LongSupplier nanoClock) {
    this.ttlNanos = ttlNanos;
    this.maxEntries = maxEntries;
    this.nanoClock = nanoClock;
  }

  boolean enabled() {
    return ttlNanos > 0 && maxEntries > 0;
  }

  synchronized byte[] get(String kind, String keyId, String text) {
    if (!enabled()) {
      return null;
    }
    Entry entry = new Entry(kind, keyId, text);
    Value value = map.get(entry);
    if (value == null) {
      return null;
    }
    if (nanoClock.getAsLong() - value.expiresAtNanos >= 0) {
      map.remove(entry);
      Arrays.fill(value.bytes, (byte) 0);
      return null;
    }
    return value.bytes.clone();
  }

  synchronized void put(String kind, String keyId, String text, byte[] bytes) {
    if (!enabled()) {
      return;
    }
    long now = nanoClock.getAsLong();
    Value old = map.put(new Entry(kind, keyId, text), new Value(bytes.clone(), now + ttlNanos));
    if (old != null) {
      Arrays.fill(old.bytes, (byte) 0);
    }
    if (map.size() > maxEntries) {
      purgeExpired(now);
    }
    Iterator<Value> eldest = map.values().iterator();
    while (map.size() > maxEntries && eldest.hasNext()) {
      Arrays.fill(eldest.next().bytes, (byte) 0);
      eldest.remove();
    }
  }

  /**
   * Drops every entry of a key id (after destroy, so a shredded key cannot be served from cache).
   */
  synchronized void invalidate(String keyId) {
    Iterator<Map.Entry<Entry, Value>> it = map.entrySet().iterator();
    while (it.hasNext()) {
      Map.Entry<Entry, Value> e = it.next();
      if (e.getKey().keyId().equals(keyId)) {
        Arrays.fill(e.getValue().bytes, (byte) 0);
        it.remove();
      }
    }
  }

  synchronized void clear() {
    for (Value value : map.values()) {
      Arrays.fill(value.bytes, (byte) 0);
    }
    map.clear();
  }

  synchronized int size() {
    return map.size();
  }

  private void purgeExpired(long now) {
    Iterator<Value> it = map.values().iterator();
    while (it.hasNext()) {
      Value value = it.next();
      if (now - value.expiresAtNanos >= 0) {
        Arrays.fill(value.bytes, (byte) 0);
        it.remove();
      }
    }
  }
}
