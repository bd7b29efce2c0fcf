/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.kms;

/**
 * A key service: it holds master keys ({@link KeyAdministration}), wraps and unwraps keys under
 * them and derives keys from them ({@link KeyWrapping}), and gives token keys and tokenizers of
 * their domains ({@link TokenizerFactory}). The master key material never leaves the
 * implementation; callers only see wrapped blobs in Vault Transit format ({@code
 * vault:v<N>:<base64>}). Code that needs one of these roles takes that interface.
 *
 * <p>Every failure is a typed {@link KeyServiceException}; a refusal is never answered with a wrong
 * key.
 */
public interface KeyService
    extends KeyAdministration, KeyWrapping, TokenizerFactory, AutoCloseable {
  @Override
  void close();
}
