/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.kms;

/** The key store or remote key service cannot be reached or read (IO, network). */
public class KeyServiceUnavailableException extends KeyServiceException {
  public KeyServiceUnavailableException(String message) {
    super(message);
  }

  public KeyServiceUnavailableException(String message, Throwable cause) {
    super(message, cause);
  }
}
