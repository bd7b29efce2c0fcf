/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.kms;

import io.icebergprotector.kms.token.TokenKey;
import io.icebergprotector.kms.token.TokenMode;
import io.icebergprotector.kms.token.Tokenizer;
import io.icebergprotector.policy.ProtectionMethod;

/** Token keys and tokenizers of a master key's token domains (deterministic and FPE tokens). */
public interface TokenizerFactory {
  /** {@link #deriveTokenKey}'s version for the latest version of the master key. */
  int LATEST_VERSION = 0;

  /**
   * The token key of ({@code keyId}, {@code version}, {@code domain}) for a tokenizing method: HKDF
   * of that version's material (see {@link TokenKey#derive}). {@link #LATEST_VERSION} asks for the
   * latest version (writers); the returned key names the version it was derived from. A retired
   * version is refused, as for {@link KeyWrapping#unwrapKey}. The caller closes the key to wipe it.
   *
   * @throws TokenKeysUnsupportedException where the implementation cannot derive token keys
   */
  default TokenKey deriveTokenKey(
      String keyId, int version, String domain, ProtectionMethod.Kind kind) {
    throw new TokenKeysUnsupportedException(
        "Cannot derive token keys with " + this + ": it has no token-key derivation");
  }

  /**
   * A tokenizer of {@code domain} under ({@code keyId}, {@code version}; {@link #LATEST_VERSION}
   * for writers). {@link TokenMode#LOCAL} derives the token key ({@link #deriveTokenKey}, with its
   * checks and audit) and tokenizes in this process; {@link TokenMode#SERVER} leaves the key in the
   * key service, which tokenizes each batch the tokenizer sends. The caller closes the tokenizer.
   *
   * @throws KeyServiceException where the mode is not available, or the key is refused
   */
  default Tokenizer tokenizer(
      String keyId, int version, String domain, ProtectionMethod method, TokenMode mode) {
    if (mode == TokenMode.SERVER) {
      throw new KeyServiceException(
          "Cannot tokenize domain '"
              + domain
              + "' in token mode server with "
              + this
              + ": only a key server tokenizes for its callers; use token mode local");
    }
    try (TokenKey key = deriveTokenKey(keyId, version, domain, method.kind())) {
      return Tokenizer.of(key, method);
    }
  }
}
