/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.kms;

/** The key was crypto-shredded; its material is gone for good. */
public class KeyDestroyedException extends KeyServiceException {
  public KeyDestroyedException(String message) {
    super(message);
  }

  public KeyDestroyedException(String message, Throwable cause) {
    super(message, cause);
  }
}
