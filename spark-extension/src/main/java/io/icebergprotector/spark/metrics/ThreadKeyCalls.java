/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.spark.metrics;

import io.icebergprotector.kms.ForwardingKeyService;
import io.icebergprotector.kms.KeyService;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Counts the key-service calls (wrap, unwrap, deriveKey, failed ones included) that reach a
 * backend: per thread, so a Spark task reports its own calls even when other tasks of the same
 * executor call the key service at the same time (reads and writes call it on the task thread), and
 * per endpoint for the whole JVM.
 */
public final class ThreadKeyCalls extends ForwardingKeyService {
  private static final ThreadLocal<long[]> CALLS = ThreadLocal.withInitial(() -> new long[1]);

  private final AtomicLong total;

  public ThreadKeyCalls(KeyService delegate, AtomicLong total) {
    super(delegate);
    this.total = total;
  }

  /** Calls that reached a key-service backend from this thread since it started. */
  public static long ofThisThread() {
    return CALLS.get()[0];
  }

  private void count() {
    CALLS.get()[0] += 1;
    total.incrementAndGet();
  }

  @Override
  public String wrapKey(byte[] plaintext, String keyId) {
    count();
    return delegate().wrapKey(plaintext, keyId);
  }

  @Override
  public byte[] unwrapKey(String wrapped, String keyId) {
    count();
    return delegate().unwrapKey(wrapped, keyId);
  }

  @Override
  public byte[] deriveKey(String keyId, String context) {
    count();
    return delegate().deriveKey(keyId, context);
  }

  @Override
  public String toString() {
    return "ThreadKeyCalls(" + delegate() + ")";
  }
}
