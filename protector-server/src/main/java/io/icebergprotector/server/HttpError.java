package io.icebergprotector.server;

/**
 * A request ends with this status and client-safe message (Vault style {@code {"errors":[...]}}).
 */
final class HttpError extends RuntimeException {
  final int status;
  final boolean closeConnection;

  HttpError(int status, String message) {
    this(status, message, false);
  }

  HttpError(int status, String message, boolean closeConnection) {
    super(message, null, false, false);
    this.status = status;
    this.closeConnection = closeConnection;
  }
}
