package io.icebergprotector.spark.core;

/**
 * A protection rule was violated or protection could not be applied; the message names the cause.
 */
public class ProtectorException extends RuntimeException {
  public ProtectorException(String message) {
    super(message);
  }

  public ProtectorException(String message, Throwable cause) {
    super(message, cause);
  }
}
