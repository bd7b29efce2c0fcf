/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.kms;

/** createKey on an id that exists or was destroyed (ids are never reused). */
public class KeyAlreadyExistsException extends KeyServiceException {
  public KeyAlreadyExistsException(String message) {
    super(message);
  }

  public KeyAlreadyExistsException(String message, Throwable cause) {
    super(message, cause);
  }
}
