/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.kms;

/**
 * The key service cannot derive token keys (a PKCS#11 token keeps its master keys unextractable, so
 * no HKDF of their material can run outside it). A key server answers 501 for it, never 500.
 */
public class TokenKeysUnsupportedException extends KeyServiceException {
  public TokenKeysUnsupportedException(String message) {
    super(message);
  }
}
