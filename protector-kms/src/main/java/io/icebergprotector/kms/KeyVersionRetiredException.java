/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.kms;

/**
 * The wrapped key was wrapped under a master-key version below the key's minimum decryption version
 * ({@code keys retire}); that version can no longer unwrap.
 */
public class KeyVersionRetiredException extends KeyServiceException {
  public KeyVersionRetiredException(String message) {
    super(message);
  }

  /** The standard message: names the key, the version asked for and the minimum. */
  public static KeyVersionRetiredException of(String keyId, int version, int minDecryptionVersion) {
    return new KeyVersionRetiredException(
        "cannot unwrap with key '"
            + keyId
            + "' v"
            + version
            + ": version "
            + version
            + " is retired (minimum decryption version is "
            + minDecryptionVersion
            + "; rewrite files wrapped under older versions before retiring them)");
  }
}
