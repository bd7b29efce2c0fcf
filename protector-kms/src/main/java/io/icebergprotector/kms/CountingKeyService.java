/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.kms;

import java.util.concurrent.atomic.AtomicLong;

/**
 * Decorator counting key traffic (calls of wrap, unwrap and deriveKey that reached this layer,
 * including the ones that failed). Used for the Spark key-traffic metric and to prove that refused
 * calls never reach a store.
 */
public final class CountingKeyService extends ForwardingKeyService {
  private final AtomicLong wraps = new AtomicLong();
  private final AtomicLong unwraps = new AtomicLong();
  private final AtomicLong derives = new AtomicLong();

  public CountingKeyService(KeyService delegate) {
    super(delegate);
  }

  public long wrapCount() {
    return wraps.get();
  }

  public long unwrapCount() {
    return unwraps.get();
  }

  public long deriveKeyCount() {
    return derives.get();
  }

  /** wrap + unwrap + deriveKey calls. */
  public long totalCount() {
    return wraps.get() + unwraps.get() + derives.get();
  }

  @Override
  public String wrapKey(byte[] plaintext, String keyId) {
    wraps.incrementAndGet();
    return delegate().wrapKey(plaintext, keyId);
  }

  @Override
  public byte[] unwrapKey(String wrapped, String keyId) {
    unwraps.incrementAndGet();
    return delegate().unwrapKey(wrapped, keyId);
  }

  @Override
  public byte[] deriveKey(String keyId, String context) {
    derives.incrementAndGet();
    return delegate().deriveKey(keyId, context);
  }

  @Override
  public String toString() {
    return "Counting(" + delegate() + ")";
  }
}
