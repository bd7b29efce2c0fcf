/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.spark.crypto;

import com.github.benmanes.caffeine.cache.Ticker;

/**
 * The time the key caches of this package expire by: the system's monotonic clock, which tests can
 * move forward to see entries expire without waiting.
 */
final class CacheClock {
  private static volatile long offsetNanos = 0;

  static final Ticker TICKER = () -> System.nanoTime() + offsetNanos;

  private CacheClock() {}

  /** For tests: moves every key cache's clock forward. */
  static void advance(java.time.Duration by) {
    offsetNanos += by.toNanos();
  }
}
