/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.spark.binding;

import io.icebergprotector.spark.core.ProtectorException;

/**
 * A protected table lists a data file that the protector did not write, committed after the table
 * came under file binding (for example through a catalog without the protector). The message names
 * the file, the table and the ways out.
 */
public class UnverifiedFileException extends ProtectorException {
  public UnverifiedFileException(String message) {
    super(message);
  }
}
