/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.server.http;

/**
 * A request ends with this status and client-safe message (Vault style {@code {"errors":[...]}}).
 */
public final class HttpError extends RuntimeException {
  final int status;
  final boolean closeConnection;

  public HttpError(int status, String message) {
    this(status, message, false);
  }

  public HttpError(int status, String message, boolean closeConnection) {
    super(message, null, false, false);
    this.status = status;
    this.closeConnection = closeConnection;
  }
}
