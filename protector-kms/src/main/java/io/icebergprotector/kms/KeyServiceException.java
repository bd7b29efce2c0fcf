/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.kms;

/** Base of all key-service failures. Messages name key ids and principals, never key material. */
public class KeyServiceException extends RuntimeException {
  public KeyServiceException(String message) {
    super(message);
  }

  public KeyServiceException(String message, Throwable cause) {
    super(message, cause);
  }
}
