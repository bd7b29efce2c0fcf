/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.kms;

import static io.icebergprotector.policy.Preconditions.checkArgument;

import java.util.List;

/**
 * A key service that forwards every call to another one; decorators override only the calls they
 * change (authorization, counting).
 */
public abstract class ForwardingKeyService implements KeyService {
  private final KeyService delegate;

  protected ForwardingKeyService(KeyService delegate) {
    checkArgument(delegate != null, "Invalid delegate key service: null");
    this.delegate = delegate;
  }

  /** For decorators that override {@link #delegate()} to find their delegate on every call. */
  protected ForwardingKeyService() {
    this.delegate = null;
  }

  /** The key service calls are forwarded to. */
  public KeyService delegate() {
    return delegate;
  }

  @Override
  public KeyInfo createKey(String keyId) {
    return delegate().createKey(keyId);
  }

  @Override
  public KeyInfo rotateKey(String keyId) {
    return delegate().rotateKey(keyId);
  }

  @Override
  public void destroyKey(String keyId) {
    delegate().destroyKey(keyId);
  }

  @Override
  public KeyInfo setMinDecryptionVersion(String keyId, int minDecryptionVersion) {
    return delegate().setMinDecryptionVersion(keyId, minDecryptionVersion);
  }

  @Override
  public List<KeyInfo> listKeys() {
    return delegate().listKeys();
  }

  @Override
  public KeyInfo describeKey(String keyId) {
    return delegate().describeKey(keyId);
  }

  @Override
  public String wrapKey(byte[] plaintext, String keyId) {
    return delegate().wrapKey(plaintext, keyId);
  }

  @Override
  public byte[] unwrapKey(String wrapped, String keyId) {
    return delegate().unwrapKey(wrapped, keyId);
  }

  @Override
  public byte[] deriveKey(String keyId, String context) {
    return delegate().deriveKey(keyId, context);
  }

  @Override
  public io.icebergprotector.kms.token.TokenKey deriveTokenKey(
      String keyId,
      int version,
      String domain,
      io.icebergprotector.policy.ProtectionMethod.Kind kind) {
    return delegate().deriveTokenKey(keyId, version, domain, kind);
  }

  /**
   * Server mode goes to the delegate (the key service that tokenizes); local mode derives the token
   * key through {@link #deriveTokenKey} of this decorator, so its checks apply.
   */
  @Override
  public io.icebergprotector.kms.token.Tokenizer tokenizer(
      String keyId,
      int version,
      String domain,
      io.icebergprotector.policy.ProtectionMethod method,
      io.icebergprotector.kms.token.TokenMode mode) {
    if (mode == io.icebergprotector.kms.token.TokenMode.SERVER) {
      return delegate().tokenizer(keyId, version, domain, method, mode);
    }
    return KeyService.super.tokenizer(keyId, version, domain, method, mode);
  }

  @Override
  public void close() {
    delegate().close();
  }
}
