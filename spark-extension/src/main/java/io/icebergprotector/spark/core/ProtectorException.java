/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.spark.core;

/**
 * A protection rule was violated or protection could not be applied; the message names the cause.
 *
 * <p>It is an {@link IllegalArgumentException} (a request the protector refuses) so that PySpark
 * raises it as {@code pyspark.errors.IllegalArgumentException}, whose text is this message, rather
 * than as a {@code Py4JJavaError} whose first line is "An error occurred while calling o44.sql" and
 * whose message sits under the JVM trace: PySpark converts only the exception types it knows.
 */
public class ProtectorException extends IllegalArgumentException {
  private static final long serialVersionUID = 1L;

  public ProtectorException(String message) {
    super(message);
  }

  public ProtectorException(String message, Throwable cause) {
    super(message, cause);
  }
}
