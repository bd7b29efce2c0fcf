/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.kms;

/** A wrapped blob failed authentication: tampered, truncated, or wrapped under another key id. */
public class KeyIntegrityException extends KeyServiceException {
  public KeyIntegrityException(String message) {
    super(message);
  }

  public KeyIntegrityException(String message, Throwable cause) {
    super(message, cause);
  }
}
