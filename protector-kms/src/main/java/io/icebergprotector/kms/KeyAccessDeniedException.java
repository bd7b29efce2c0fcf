/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.kms;

/** The policy does not allow this principal to use this key for this operation. */
public class KeyAccessDeniedException extends KeyServiceException {
  private final String principal;
  private final String keyId;
  private final String operation;

  public KeyAccessDeniedException(String principal, String keyId, String operation) {
    this(principal, keyId, operation, "");
  }

  /**
   * @param hint appended to the message: what the caller can do about it, naming no other principal
   *     and no policy detail the caller cannot see
   */
  public KeyAccessDeniedException(String principal, String keyId, String operation, String hint) {
    super(
        String.format(
            "principal '%s' is not allowed to %s with key '%s'%s",
            principal, operation, keyId, hint));
    this.principal = principal;
    this.keyId = keyId;
    this.operation = operation;
  }

  public String principal() {
    return principal;
  }

  public String keyId() {
    return keyId;
  }

  public String operation() {
    return operation;
  }
}
