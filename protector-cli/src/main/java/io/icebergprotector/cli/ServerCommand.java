/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.cli;

import static io.icebergprotector.policy.Preconditions.checkArgument;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

/**
 * {@code protector server}: runs the key server (its own jar, its own process). bin/protector execs
 * the server jar directly, except for help, which this command prints so that {@code server --help}
 * and {@code help server} are the same text.
 */
@Command(
    name = "server",
    header = "Run the key server (its own jar and process).",
    mixinStandardHelpOptions = true,
    description =
        "Serves the keys of the policy to Spark over HTTPS; see conf/server.conf. "
            + "'server new-token' prints a new token and its sha256 for auth.tokens.",
    footerHeading = "%nExample:%n",
    footer = "  bin/protector server --config conf/server.conf",
    subcommands = ServerCommand.NewToken.class)
public final class ServerCommand implements Callable<Integer> {
  static final String JAR = "protector-server/target/iceberg-protector-server.jar";

  @Spec CommandSpec spec;

  @Option(
      names = "--config",
      paramLabel = "<server.conf>",
      description = "Server configuration (see conf/server.conf).")
  Path config;

  @Option(
      names = "--jar",
      paramLabel = "<file>",
      description = "The server jar (default: <protector home>/" + JAR + ").")
  Path jar;

  @Override
  public Integer call() throws InterruptedException {
    List<String> args = new ArrayList<>();
    if (config != null) {
      args.add("--config");
      args.add(config.toString());
    }
    return runServerJar(jar, args);
  }

  /** {@code server new-token}: a token and the hash that goes into the server's auth.tokens. */
  @Command(
      name = "new-token",
      mixinStandardHelpOptions = true,
      header = "Print a new server token and its sha256.",
      description =
          "Give the token to the client (e.g. in a file for --token-file); put the sha256, "
              + "never the token, into auth.tokens of the server configuration.")
  static final class NewToken implements Callable<Integer> {
    @ParentCommand ServerCommand server;

    @Override
    public Integer call() throws InterruptedException {
      return runServerJar(server.jar, List.of("new-token"));
    }
  }

  static int runServerJar(Path jar, List<String> args) throws InterruptedException {
    Path serverJar =
        jar != null ? jar : Path.of(System.getProperty(Workspace.HOME_PROPERTY, "."), JAR);
    checkArgument(
        Files.isRegularFile(serverJar),
        "Key server jar %s not found; build it with 'mvn -pl "
            + "protector-server -am package -DskipTests' (bin/protector "
            + "server builds it for you)",
        serverJar);
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.add("-jar");
    command.add(serverJar.toString());
    command.addAll(args);
    Process process;
    try {
      process = new ProcessBuilder(command).inheritIO().start();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start the key server: " + e.getMessage(), e);
    }
    Runtime.getRuntime().addShutdownHook(new Thread(process::destroy, "stop-protector-server"));
    return process.waitFor();
  }
}
