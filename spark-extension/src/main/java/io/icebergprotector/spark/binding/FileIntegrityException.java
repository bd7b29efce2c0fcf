/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.spark.binding;

import io.icebergprotector.spark.core.ProtectorException;

/**
 * A data file failed its integrity check: its bytes are not the ones the table expects at that
 * place (another table's or another file's, unbound, or modified after they were written). The
 * message names the file and the table; it never holds a value of the file.
 */
public class FileIntegrityException extends ProtectorException {
  public FileIntegrityException(String message, Throwable cause) {
    super(message, cause);
  }
}
