/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.cli;

import java.io.PrintWriter;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.IExecutionExceptionHandler;
import picocli.CommandLine.IParameterExceptionHandler;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.ParseResult;
import picocli.CommandLine.ScopeType;
import picocli.CommandLine.Spec;
import picocli.CommandLine.UnmatchedArgumentException;

/**
 * The {@code protector} command. One class per subcommand group ({@link PolicyCommand}, {@link
 * KeysCommand}, ...); register new groups in {@code subcommands} below.
 *
 * <p>Exit codes: 0 success, 1 failure (invalid policy, key service error, ...), 2 usage error.
 * Failures print one line, {@code error: <what>}, to stderr, and for causes the user can fix a
 * {@code hint: } line; {@code --verbose} adds the stack trace and the libraries' warnings.
 *
 * <p>{@code policy}, {@code keys} and {@code server} run from the shaded CLI jar alone. {@code
 * inspect}, {@code sql} and {@code demo} need Spark, Iceberg and the Spark extension on the
 * classpath, which {@code bin/protector} adds for them; their command classes keep Spark types out
 * of their signatures so that picocli can build the command tree without those classes.
 */
@Command(
    name = "protector",
    mixinStandardHelpOptions = true,
    versionProvider = ProtectorCli.Version.class,
    description = "Iceberg Protector: column-level Parquet encryption for Iceberg tables.",
    subcommands = {
      DemoCommand.class,
      SqlCommand.class,
      RewriteCommand.class,
      InspectCommand.class,
      PolicyCommand.class,
      KeysCommand.class,
      ServerCommand.class,
      WhoamiCommand.class,
      HelpCommand.class
    })
public final class ProtectorCli implements Runnable {
  public static final int OK = 0;
  public static final int FAILED = 1;
  public static final int USAGE = 2;

  /** Where the CLI asks for confirmations; null when there is no terminal (scripts, CI). */
  @FunctionalInterface
  public interface Terminal {
    /** Shows {@code prompt} and returns the line typed, or null at end of input. */
    String readLine(String prompt);

    /** The process's console, or null if stdin/stdout are not a terminal. */
    static Terminal system() {
      java.io.Console console = System.console();
      return console == null ? null : prompt -> console.readLine("%s", prompt);
    }
  }

  @Spec CommandSpec spec;

  final Terminal terminal;

  ProtectorCli(Terminal terminal) {
    this.terminal = terminal;
  }

  @Option(
      names = {"-v", "--verbose"},
      scope = ScopeType.INHERIT,
      description = "Print stack traces of errors.")
  boolean verbose;

  @Override
  public void run() {
    throw new ParameterException(spec.commandLine(), "missing command");
  }

  public static void main(String[] args) {
    // Spark's chatter (INFO at startup, a stack trace per failed task) would bury the output.
    if (System.getProperty("log4j2.configurationFile") == null) {
      java.net.URL config = ProtectorCli.class.getResource(logConfiguration(args));
      if (config != null) {
        System.setProperty("log4j2.configurationFile", config.toString());
      }
    }
    System.exit(newCommandLine().execute(args));
  }

  /** The log4j2 configuration (a resource of this class): libraries silent unless --verbose. */
  static String logConfiguration(String[] args) {
    for (String a : args) {
      if (a.equals("--verbose") || a.equals("-v")) {
        return "log4j2-cli-verbose.properties";
      }
      if (a.equals("--")) {
        break;
      }
    }
    return "log4j2-cli.properties";
  }

  /** The configured command line; tests call {@code setOut/setErr} and {@code execute}. */
  public static CommandLine newCommandLine() {
    return newCommandLine(Terminal.system());
  }

  /** As {@link #newCommandLine()}, asking confirmations on {@code terminal} (null: none). */
  public static CommandLine newCommandLine(Terminal terminal) {
    CommandLine cmd = new CommandLine(new ProtectorCli(terminal));
    cmd.setExecutionExceptionHandler(new ErrorHandler());
    cmd.setParameterExceptionHandler(new UsageHandler());
    return cmd;
  }

  /** One-line {@code error: ...}; the stack trace only with --verbose. */
  static final class ErrorHandler implements IExecutionExceptionHandler {
    @Override
    public int handleExecutionException(Exception ex, CommandLine cmd, ParseResult parseResult) {
      PrintWriter err = cmd.getErr();
      String msg =
          ex.getMessage() == null || ex.getMessage().isBlank() ? ex.toString() : ex.getMessage();
      err.println("error: " + msg.strip().replaceAll("\\s*\\R\\s*", " "));
      String hint = ErrorHints.hintFor(ex);
      if (hint != null) {
        err.println("hint: " + hint);
      }
      if (verbose(parseResult)) {
        ex.printStackTrace(err);
      }
      err.flush();
      return FAILED;
    }

    private static boolean verbose(ParseResult pr) {
      for (ParseResult r = pr; r != null; r = r.subcommand()) {
        if (r.hasMatchedOption("--verbose")) {
          return true;
        }
      }
      return false;
    }
  }

  /** Usage errors: the problem, a hint, exit 2. */
  static final class UsageHandler implements IParameterExceptionHandler {
    @Override
    public int handleParseException(ParameterException ex, String[] args) {
      CommandLine cmd = ex.getCommandLine();
      PrintWriter err = cmd.getErr();
      err.println("error: " + ex.getMessage());
      UnmatchedArgumentException.printSuggestions(ex, err);
      err.println(cmd.getHelp().fullSynopsis().trim());
      err.println(
          "Try '" + cmd.getCommandSpec().qualifiedName() + " --help' for more information.");
      err.flush();
      return USAGE;
    }
  }

  static final class Version implements CommandLine.IVersionProvider {
    @Override
    public String[] getVersion() {
      String v = ProtectorCli.class.getPackage().getImplementationVersion();
      return new String[] {"iceberg-protector " + (v == null ? "dev" : v)};
    }
  }
}
