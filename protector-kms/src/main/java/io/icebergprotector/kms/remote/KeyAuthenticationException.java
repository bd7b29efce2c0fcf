/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.kms.remote;

import io.icebergprotector.kms.KeyServiceException;

/**
 * The key service rejected the caller's credentials (HTTP 401): missing, unknown, expired or badly
 * signed token. The message names the cause category the server reported, never the token.
 */
public class KeyAuthenticationException extends KeyServiceException {
  public KeyAuthenticationException(String message) {
    super(message);
  }
}
