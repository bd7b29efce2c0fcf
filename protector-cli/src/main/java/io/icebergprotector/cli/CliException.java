/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.cli;

/** A failure whose message is already the one line the user should read. */
final class CliException extends RuntimeException {
  CliException(String message, Throwable cause) {
    super(message, cause);
  }
}
