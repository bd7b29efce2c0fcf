/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.kms.token;

import io.icebergprotector.kms.KeyServiceException;

/**
 * A value cannot be tokenized or a token cannot be detokenized (wrong format, or a deterministic
 * token that does not verify under the key). Messages name the domain and the reason, never the
 * value or the token.
 */
public class TokenException extends KeyServiceException {
  public TokenException(String message) {
    super(message);
  }

  public TokenException(String message, Throwable cause) {
    super(message, cause);
  }
}
