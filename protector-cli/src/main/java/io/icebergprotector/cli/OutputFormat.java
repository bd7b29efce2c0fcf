/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.cli;

import io.icebergprotector.kms.wire.JsonCodec;
import java.io.PrintWriter;
import picocli.CommandLine.Option;

/**
 * {@code --format text|json}: text for people, one JSON document on stdout for scripts (like
 * Vault's {@code -format=json}). The JSON writer is the key-service client's, already in the CLI.
 */
final class OutputFormat {
  enum Format {
    text,
    json
  }

  @Option(
      names = "--format",
      defaultValue = "text",
      paramLabel = "<format>",
      description = "Output format: ${COMPLETION-CANDIDATES} (default: ${DEFAULT-VALUE}).")
  Format format = Format.text;

  boolean json() {
    return format == Format.json;
  }

  static void print(PrintWriter out, Object document) {
    out.println(JsonCodec.write(document));
    out.flush();
  }
}
