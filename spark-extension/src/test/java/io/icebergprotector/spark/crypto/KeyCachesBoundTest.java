/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.spark.crypto;

import static org.assertj.core.api.Assertions.assertThat;

import io.icebergprotector.kms.KeyScope;
import io.icebergprotector.kms.KeyService;
import io.icebergprotector.kms.KeyServices;
import io.icebergprotector.kms.KmsSettings;
import io.icebergprotector.kms.SecretRef;
import io.icebergprotector.policy.Policy;
import io.icebergprotector.policy.Principal;
import io.icebergprotector.testing.TestPolicy;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The per-JVM key caches stay bounded however many principals, policies and rotations a
 * long-running shared cluster sees, and wipe key bytes when they drop them.
 */
class KeyCachesBoundTest {
  private static final String POLICY =
      TestPolicy.resource(KeyCachesBoundTest.class, "policies/KeyCachesBoundTest.conf");

  @TempDir static Path dir;
  private static KmsSettings kms;
  private static Policy policy;

  @BeforeAll
  static void keystore() throws IOException {
    Path passphrase = dir.resolve("passphrase");
    Files.writeString(passphrase, "bounds-" + System.nanoTime());
    kms =
        KmsSettings.builder(KmsSettings.Type.LOCAL)
            .keystore(dir.resolve("keys.p12").toString())
            .passphrase(SecretRef.ofFile(passphrase.toString()))
            .build();
    try (KeyService admin = KeyServices.open(kms, true)) {
      for (String key : List.of("pii", "fin", "footer")) {
        admin.createKey(key);
      }
    }
    policy = Policy.parse(POLICY, "bounds.conf");
    KeyServiceRegistry.clear();
    HashMaskKeys.clear();
  }

  @AfterAll
  static void clear() {
    KeyServiceRegistry.clear();
    HashMaskKeys.clear();
  }

  @Test
  void tenThousandPrincipalsAndRotationsKeepTheCachesBoundedAndWipeWhatTheyDrop() throws Exception {
    Runtime runtime = Runtime.getRuntime();
    long heapBefore = usedHeapAfterGc(runtime);
    KeyScope first = KeyScope.of(kms, Principal.of("user-0", List.of("analysts")), policy.digest());
    byte[] firstKey = HashMaskKeys.get(first, policy, "pii");
    byte[] firstCached = HashMaskKeys.cached(first, "pii");
    assertThat(firstCached).isEqualTo(firstKey).isNotSameAs(firstKey);

    try (KeyService admin = KeyServices.open(kms)) {
      for (int i = 1; i <= 10_000; i++) {
        KeyScope scope =
            KeyScope.of(kms, Principal.of("user-" + i, List.of("analysts")), policy.digest());
        HashMaskKeys.get(scope, policy, "pii");
        HashMaskKeys.get(scope, policy, "fin");
        if (i % 1_000 == 0) {
          admin.rotateKey("pii");
        }
      }
    }
    long heapAfter = usedHeapAfterGc(runtime);
    System.out.printf(
        "[bounds] 10000 principals, 20000 hash keys, 10 rotations: %d scopes registered,"
            + " %d hash keys cached, %d backends open, heap %+.1f MiB%n",
        KeyServiceRegistry.registeredScopes(),
        HashMaskKeys.size(),
        KeyServiceRegistry.openBackends(),
        (heapAfter - heapBefore) / 1048576.0);
    assertThat(KeyServiceRegistry.registeredScopes()).isLessThanOrEqualTo(1_000);
    assertThat(HashMaskKeys.size()).isLessThanOrEqualTo(10_000);
    assertThat(KeyServiceRegistry.openBackends()).isEqualTo(1);
    // the first principal's key was evicted by size and its bytes were wiped
    assertThat(HashMaskKeys.cached(first, "pii")).isNull();
    assertThat(firstCached).containsOnly(0);

    // after the cache lifetime (30 s by default) nothing derived earlier is served any more: keys
    // are derived again, so a revoked grant stops working within it
    KeyScope late = KeyScope.of(kms, Principal.of("late", List.of("analysts")), policy.digest());
    HashMaskKeys.get(late, policy, "pii");
    byte[] lateCached = HashMaskKeys.cached(late, "pii");
    long callsBefore = KeyServiceRegistry.backendCalls(kms);
    CacheClock.advance(Duration.ofSeconds(KmsSettings.DEFAULT_KEY_CACHE_SECONDS - 1));
    assertThat(HashMaskKeys.cached(late, "pii")).as("still within the lifetime").isNotNull();
    CacheClock.advance(Duration.ofSeconds(2));
    assertThat(HashMaskKeys.cached(late, "pii")).isNull();
    assertThat(lateCached).containsOnly(0);
    assertThat(HashMaskKeys.get(late, policy, "pii")).isNotEmpty();
    assertThat(KeyServiceRegistry.backendCalls(kms)).isEqualTo(callsBefore + 1);

    // idle scopes and backends expire too; a later use opens them again
    CacheClock.advance(KeyServiceRegistry.IDLE.plusSeconds(1));
    assertThat(KeyServiceRegistry.registeredScopes()).isZero();
    assertThat(KeyServiceRegistry.openBackends()).isZero();
    assertThat(KeyServiceRegistry.lookup(late.handle())).isEmpty();
    assertThat(HashMaskKeys.get(late, policy, "fin")).hasSize(32);
    assertThat(KeyServiceRegistry.lookup(late.handle())).isPresent();
  }

  private static long usedHeapAfterGc(Runtime runtime) throws InterruptedException {
    for (int i = 0; i < 3; i++) {
      System.gc();
    }
    return runtime.totalMemory() - runtime.freeMemory();
  }
}
