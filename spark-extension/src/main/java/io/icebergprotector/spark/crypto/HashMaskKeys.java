package io.icebergprotector.spark.crypto;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.RemovalCause;
import io.icebergprotector.kms.KeyScope;
import io.icebergprotector.policy.Policy;
import java.time.Duration;
import java.util.Arrays;

/**
 * The keys of {@code hash} masks, derived by the key service once per scope and master key. Cached
 * for as long as Parquet caches key-encryption keys, at most {@link #MAX_KEYS}; bytes are wiped
 * when an entry leaves the cache. Free of Iceberg classes (plain-Parquet paths use it too).
 */
public final class HashMaskKeys {
  /** Key-derivation context: one HMAC key per master key, stable across rotation. */
  public static final String CONTEXT = "iceberg-protector/mask/hash/v1";

  private static final int MAX_KEYS = 10_000;
  private static final Cache<String, byte[]> KEYS =
      Caffeine.newBuilder()
          .maximumSize(MAX_KEYS)
          .expireAfterWrite(Duration.ofSeconds(KeyTools.CACHE_LIFETIME_SECONDS))
          .ticker(CacheClock.TICKER)
          .executor(Runnable::run)
          .removalListener((String k, byte[] key, RemovalCause cause) -> wipe(key))
          .build();

  private HashMaskKeys() {}

  /**
   * The HMAC key for hash masks of columns under {@code keyId}, for {@code scope}. Callers get a
   * copy, which they own (and should wipe).
   */
  public static byte[] get(KeyScope scope, Policy policy, String keyId) {
    byte[] key =
        KEYS.get(
            scope.handle() + "/" + keyId,
            k -> KeyServiceRegistry.obtain(scope, policy).deriveKey(keyId, CONTEXT));
    return key.clone();
  }

  /** Forgets (and wipes) every cached hash-mask key. */
  public static void clear() {
    KEYS.invalidateAll();
    KEYS.cleanUp();
  }

  /** The cached bytes themselves, or null (for tests that check wiping). */
  static byte[] cached(KeyScope scope, String keyId) {
    return KEYS.getIfPresent(scope.handle() + "/" + keyId);
  }

  /** Keys cached now (for tests of the bounds). */
  static long size() {
    KEYS.cleanUp();
    return KEYS.estimatedSize();
  }

  private static void wipe(byte[] key) {
    if (key != null) {
      Arrays.fill(key, (byte) 0);
    }
  }
}
