/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.server.auth;

/**
 * A request's credentials were refused. The message is a fixed cause category ("token expired",
 * "unknown token", ...) that is safe to return to the client: it never contains the token.
 */
public final class AuthenticationException extends Exception {
  AuthenticationException(String category) {
    super(category, null, false, false); // no stack trace: this is a normal, frequent outcome
  }
}
