package io.icebergprotector.cli;

import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** {@code protector demo}: the one-command tour (see {@link Demo}). */
@Command(
    name = "demo",
    header = "The tour: a protected write, one query as three users, proof of protection at rest.",
    mixinStandardHelpOptions = true,
    description = {
      "Write a generated customers table through the protector on local Spark, read one row",
      "as alice (clear), bob (masked) and carol (denied), then show that the data at rest is",
      "encrypted: the footer's per-column key ids, and a byte search that finds no protected",
      "value. First run creates ./.protector (keystore, passphrase file with mode 0600) and the",
      "policy's keys; re-runs replace the table."
    })
public final class DemoCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Option(names = "--rows", defaultValue = "100000", paramLabel = "<n>", description = "Rows to write (default: ${DEFAULT-VALUE}).")
  long rows;

  @Option(names = "--warehouse", defaultValue = Workspace.DEFAULT_WAREHOUSE, paramLabel = "<dir>", description = "Warehouse of catalog 'demo' (default: ${DEFAULT-VALUE}).")
  Path warehouse;

  @Option(names = "--state-dir", defaultValue = Workspace.DEFAULT_STATE_DIR, paramLabel = "<dir>", description = "Keystore and passphrase directory (default: ${DEFAULT-VALUE}).")
  Path stateDir;

  @Option(names = "--policy", paramLabel = "<file>", description = "Policy (default: " + Workspace.DEFAULT_POLICY + ").")
  Path policy;

  @Override
  public Integer call() {
    if (rows < Demo.MIN_ROWS) {
      throw new ParameterException(spec.commandLine(), "--rows must be at least " + Demo.MIN_ROWS + ": " + rows);
    }
    HeavyClasspath.require("demo", HeavyClasspath.SPARK, HeavyClasspath.ICEBERG, HeavyClasspath.EXTENSION);
    Workspace ws = new Workspace(warehouse, stateDir, policy != null ? policy : Workspace.defaultPolicy());
    DemoLauncher.run(ws, rows, spec.commandLine().getOut(), spec.commandLine().getErr());
    return ProtectorCli.OK;
  }
}
