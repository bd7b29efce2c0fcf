/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.kms.remote;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class UnwrapCacheTest {
  private final AtomicLong now = new AtomicLong(1_000);

  @Test
  void storesAndReturnsCopies() {
    UnwrapCache cache = new UnwrapCache(Duration.ofSeconds(60).toNanos(), 10, now::get);
    byte[] key = {1, 2, 3};
    cache.put("unwrap", "k", "vault:v1:x", key);
    key[0] = 9; // the caller's array is not the cached one
    byte[] got = cache.get("unwrap", "k", "vault:v1:x");
    assertThat(got).containsExactly(1, 2, 3);
    got[1] = 9;
    assertThat(cache.get("unwrap", "k", "vault:v1:x")).containsExactly(1, 2, 3);
    assertThat(cache.get("derive", "k", "vault:v1:x")).isNull(); // kinds are separate
    assertThat(cache.get("unwrap", "other", "vault:v1:x")).isNull();
  }

  @Test
  void expiresAfterTtl() {
    UnwrapCache cache = new UnwrapCache(Duration.ofSeconds(60).toNanos(), 10, now::get);
    cache.put("unwrap", "k", "w", new byte[] {1});
    now.addAndGet(Duration.ofSeconds(59).toNanos());
    assertThat(cache.get("unwrap", "k", "w")).isNotNull();
    now.addAndGet(Duration.ofSeconds(2).toNanos());
    assertThat(cache.get("unwrap", "k", "w")).isNull();
    assertThat(cache.size()).isZero();
  }

  @Test
  void boundedLeastRecentlyUsed() {
    UnwrapCache cache = new UnwrapCache(Duration.ofSeconds(60).toNanos(), 3, now::get);
    for (int i = 0; i < 3; i++) {
      cache.put("unwrap", "k", "w" + i, new byte[] {(byte) i});
    }
    cache.get("unwrap", "k", "w0"); // w0 is now the most recently used
    cache.put("unwrap", "k", "w3", new byte[] {3});
    assertThat(cache.size()).isEqualTo(3);
    assertThat(cache.get("unwrap", "k", "w1")).isNull();
    assertThat(cache.get("unwrap", "k", "w0")).isNotNull();
  }

  @Test
  void invalidateAndClear() {
    UnwrapCache cache = new UnwrapCache(Duration.ofSeconds(60).toNanos(), 10, now::get);
    cache.put("unwrap", "a", "w", new byte[] {1});
    cache.put("unwrap", "b", "w", new byte[] {2});
    cache.invalidate("a");
    assertThat(cache.get("unwrap", "a", "w")).isNull();
    assertThat(cache.get("unwrap", "b", "w")).isNotNull();
    cache.clear();
    assertThat(cache.size()).isZero();
  }

  @Test
  void disabledCacheStoresNothing() {
    UnwrapCache cache = new UnwrapCache(0, 10, now::get);
    cache.put("unwrap", "k", "w", new byte[] {1});
    assertThat(cache.get("unwrap", "k", "w")).isNull();
  }

  @Test
  void builderValidatesWithoutEchoingTheToken() {
    assertThatThrownBy(() -> RemoteKeyService.builder().token("secret\ttoken"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageNotContaining("secret")
        .hasMessageContaining("Token contains a character not allowed in an HTTP header");
    assertThatThrownBy(() -> RemoteKeyService.builder().url("https://h").build())
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("token");
    assertThatThrownBy(() -> RemoteKeyService.builder().maxAttempts(0))
        .hasMessageContaining("1..20");
    assertThat(RemoteKeyService.segment("a.b-c_d")).isEqualTo("a.b-c_d");
    assertThat(RemoteKeyService.segment("..")).isEqualTo("%2E%2E");
    assertThat(RemoteKeyService.segment("a/b é")).isEqualTo("a%2Fb%20%C3%A9");
  }
}
