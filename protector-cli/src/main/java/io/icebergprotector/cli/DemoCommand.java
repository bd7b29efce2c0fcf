/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.cli;

import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** {@code protector demo}: the one-command tour (see {@link Demo}). */
@Command(
    name = "demo",
    header = "The tour: a protected write, one query as three users, proof of protection at rest.",
    mixinStandardHelpOptions = true,
    description =
        "Writes a generated customers table through the protector on local Spark, reads "
            + "one row as alice (clear), bob (masked) and carol (denied), then shows the footer's per-column "
            + "key ids and a byte search that finds no protected value. The first run creates ./.protector "
            + "(keystore, passphrase file with mode 0600) and the policy's keys; re-runs replace the table.")
public final class DemoCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Option(
      names = "--rows",
      defaultValue = "100000",
      paramLabel = "<n>",
      description = "Rows to write (default: ${DEFAULT-VALUE}).")
  long rows;

  @Mixin WorkspaceOptions workspace;

  @Override
  public Integer call() {
    if (rows < Demo.MIN_ROWS) {
      throw new ParameterException(
          spec.commandLine(), "--rows must be at least " + Demo.MIN_ROWS + ": " + rows);
    }
    HeavyClasspath.require(
        "demo", HeavyClasspath.SPARK, HeavyClasspath.ICEBERG, HeavyClasspath.EXTENSION);
    Workspace ws = workspace.workspace();
    DemoLauncher.run(ws, rows, spec.commandLine().getOut(), spec.commandLine().getErr());
    return ProtectorCli.OK;
  }
}
