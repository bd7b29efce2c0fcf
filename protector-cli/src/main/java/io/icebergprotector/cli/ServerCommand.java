package io.icebergprotector.cli;

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
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code protector server}: runs the key server (its own jar, its own process). bin/protector
 * execs the server jar directly; this command is the same for {@code java -jar} users.
 */
@Command(
    name = "server",
    header = "Run the key server (its own jar and process).",
    mixinStandardHelpOptions = true,
    description = {
      "Run the protector key server: bin/protector server --config conf/server.conf",
      "Also: 'server new-token' prints a new token and its sha256 for auth.tokens."
    })
public final class ServerCommand implements Callable<Integer> {
  static final String JAR = "protector-server/target/iceberg-protector-server.jar";

  @Spec CommandSpec spec;

  @Option(names = "--config", paramLabel = "<server.conf>", description = "Server configuration (see conf/server.conf).")
  Path config;

  @Option(names = "--jar", paramLabel = "<file>", description = "The server jar (default: <protector home>/" + JAR + ").")
  Path jar;

  @Parameters(arity = "0..*", paramLabel = "<args>", description = "Server subcommand, e.g. new-token.")
  List<String> args = new ArrayList<>();

  @Override
  public Integer call() throws InterruptedException {
    Path serverJar = jar != null ? jar : Path.of(System.getProperty(Workspace.HOME_PROPERTY, "."), JAR);
    if (!Files.isRegularFile(serverJar)) {
      throw new IllegalArgumentException("key server jar " + serverJar + " not found; build it with"
          + " 'mvn -pl protector-server -am package -DskipTests' (bin/protector server builds it for you)");
    }
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.add("-jar");
    command.add(serverJar.toString());
    command.addAll(args);
    if (config != null) {
      command.add("--config");
      command.add(config.toString());
    }
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
