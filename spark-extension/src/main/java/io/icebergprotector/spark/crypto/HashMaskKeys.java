/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.spark.crypto;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.Expiry;
import com.github.benmanes.caffeine.cache.RemovalCause;
import io.icebergprotector.kms.KeyScope;
import io.icebergprotector.kms.KeyService;
import io.icebergprotector.policy.Policy;
import java.time.Duration;
import java.util.Arrays;

/**
 * The keys of {@code hash} masks, derived by the key service once per scope and master key. Cached
 * for as long as Parquet caches key-encryption keys (the scope's key-cache lifetime, so that a
 * revoked grant stops working within it), at most {@link #MAX_KEYS}; bytes are wiped when an entry
 * leaves the cache. Free of Iceberg classes (plain-Parquet paths use it too).
 */
public final class HashMaskKeys {
  private static final int MAX_KEYS = 10_000;

  /** A derived key and how long it may be used, from its scope's settings. */
  private record Cached(byte[] key, long lifetimeNanos) {}

  private static final Cache<String, Cached> KEYS =
      Caffeine.newBuilder()
          .maximumSize(MAX_KEYS)
          .expireAfter(
              new Expiry<String, Cached>() {
                @Override
                public long expireAfterCreate(String k, Cached v, long now) {
                  return v.lifetimeNanos();
                }

                @Override
                public long expireAfterUpdate(String k, Cached v, long now, long remaining) {
                  return v.lifetimeNanos();
                }

                @Override
                public long expireAfterRead(String k, Cached v, long now, long remaining) {
                  return remaining;
                }
              })
          .ticker(CacheClock.TICKER)
          .executor(Runnable::run)
          .removalListener((String k, Cached cached, RemovalCause cause) -> wipe(cached))
          .build();

  private HashMaskKeys() {}

  /**
   * The HMAC key for hash masks of columns under {@code keyId}, for {@code scope}. Callers get a
   * copy, which they own (and should wipe).
   */
  public static byte[] get(KeyScope scope, Policy policy, String keyId) {
    Cached cached =
        KEYS.get(
            scope.handle() + "/" + keyId,
            k ->
                new Cached(
                    KeyServiceRegistry.obtain(scope, policy)
                        .deriveKey(keyId, KeyService.HASH_MASK_CONTEXT),
                    Duration.ofSeconds(scope.kms().keyCacheSeconds()).toNanos()));
    return cached.key().clone();
  }

  /** Forgets (and wipes) every cached hash-mask key. */
  public static void clear() {
    KEYS.invalidateAll();
    KEYS.cleanUp();
  }

  /** The cached bytes themselves, or null (for tests that check wiping). */
  static byte[] cached(KeyScope scope, String keyId) {
    Cached cached = KEYS.getIfPresent(scope.handle() + "/" + keyId);
    return cached == null ? null : cached.key();
  }

  /** Keys cached now (for tests of the bounds). */
  static long size() {
    KEYS.cleanUp();
    return KEYS.estimatedSize();
  }

  private static void wipe(Cached cached) {
    if (cached != null) {
      Arrays.fill(cached.key(), (byte) 0);
    }
  }
}
