/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.cli;

import java.nio.file.Path;
import picocli.CommandLine.Option;

/** The local-Spark workspace options shared by {@code demo}, {@code sql} and {@code rewrite}. */
final class WorkspaceOptions {
  @Option(
      names = "--warehouse",
      defaultValue = Workspace.DEFAULT_WAREHOUSE,
      paramLabel = "<dir>",
      description = "Warehouse of catalog 'demo' (default: ${DEFAULT-VALUE}).")
  Path warehouse;

  @Option(
      names = "--state-dir",
      defaultValue = Workspace.DEFAULT_STATE_DIR,
      paramLabel = "<dir>",
      description = "Keystore + passphrase dir (default: ${DEFAULT-VALUE}).")
  Path stateDir;

  @Option(
      names = "--policy",
      paramLabel = "<file>",
      description = "Policy (default: " + Workspace.DEFAULT_POLICY + ").")
  Path policy;

  Workspace workspace() {
    return new Workspace(warehouse, stateDir, policy != null ? policy : Workspace.defaultPolicy());
  }
}
