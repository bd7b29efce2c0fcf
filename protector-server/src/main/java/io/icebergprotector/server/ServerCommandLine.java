/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.server;

import io.icebergprotector.kms.SecretRef;
import io.icebergprotector.policy.Digests;
import io.icebergprotector.server.auth.TokenAuthenticator;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;

/**
 * The key server's own command line (picocli).
 *
 * <pre>
 *   protector-server [server] --config server.conf   run the key server
 *   protector-server new-token                       print a new token and its sha256
 *   protector-server hash-token &lt; token-file        print the sha256 of a token
 * </pre>
 */
@Command(
    name = "protector-server",
    mixinStandardHelpOptions = true,
    header = "The Iceberg Protector key server.",
    description =
        "Runs the key server with --config (see conf/server.conf); it prints '"
            + ProtectorServer.LISTENING
            + "<url>' once it serves.",
    subcommands = {
      ServerCommandLine.Serve.class,
      ServerCommandLine.NewToken.class,
      ServerCommandLine.HashToken.class
    })
final class ServerCommandLine implements Callable<Integer> {
  private final InputStream stdin;
  private final PrintStream out;
  private final PrintStream err;

  @Option(
      names = "--config",
      paramLabel = "<server.conf>",
      description = "The server configuration (HOCON, see conf/server.conf).")
  Path config;

  private ServerCommandLine(InputStream stdin, PrintStream out, PrintStream err) {
    this.stdin = stdin;
    this.out = out;
    this.err = err;
  }

  static int execute(String[] args, InputStream stdin, PrintStream out, PrintStream err) {
    CommandLine cl = new CommandLine(new ServerCommandLine(stdin, out, err));
    cl.setOut(new PrintWriter(out, true, StandardCharsets.UTF_8));
    cl.setErr(new PrintWriter(err, true, StandardCharsets.UTF_8));
    return cl.execute(args);
  }

  @Override
  public Integer call() {
    return serve(config);
  }

  private int serve(Path configFile) {
    if (configFile == null) {
      err.println("protector-server: --config <server.conf> is required (see --help)");
      return 2;
    }
    ProtectorServer server;
    try {
      server = ProtectorServer.start(configFile);
    } catch (RuntimeException e) {
      err.println("protector-server: error: " + e.getMessage());
      return 1;
    }
    Runtime.getRuntime().addShutdownHook(new Thread(server::close, "protector-shutdown"));
    out.println(ProtectorServer.LISTENING + server.url());
    out.flush();
    return 0;
  }

  /** {@code server --config ...}: the same as the top level, as {@code bin/protector} calls it. */
  @Command(
      name = "server",
      mixinStandardHelpOptions = true,
      header = "Run the key server (the default command).")
  static final class Serve implements Callable<Integer> {
    @ParentCommand ServerCommandLine top;

    @Option(
        names = "--config",
        paramLabel = "<server.conf>",
        description = "The server configuration (HOCON, see conf/server.conf).")
    Path config;

    @Override
    public Integer call() {
      return top.serve(config != null ? config : top.config);
    }
  }

  @Command(
      name = "new-token",
      mixinStandardHelpOptions = true,
      header = "Print a new token and its sha256 (the sha256 goes into auth.tokens).")
  static final class NewToken implements Callable<Integer> {
    @ParentCommand ServerCommandLine top;

    @Override
    public Integer call() {
      String token = TokenAuthenticator.newToken();
      top.out.println("token:  " + token);
      top.out.println("sha256: " + Digests.sha256Hex(token));
      top.out.println("# give the token to its owner; put only the sha256 in auth.tokens");
      return 0;
    }
  }

  @Command(
      name = "hash-token",
      mixinStandardHelpOptions = true,
      header = "Print the sha256 of the token read from standard input.")
  static final class HashToken implements Callable<Integer> {
    @ParentCommand ServerCommandLine top;

    @Override
    public Integer call() {
      try {
        // The rule clients read token files by: the whole input, trimmed, on one line.
        String token =
            SecretRef.token(
                new String(top.stdin.readAllBytes(), StandardCharsets.UTF_8), "standard input");
        top.out.println(Digests.sha256Hex(token));
        return 0;
      } catch (IllegalArgumentException e) {
        top.err.println(
            "protector-server: hash-token reads one token from standard input: " + e.getMessage());
        return 2;
      } catch (IOException e) {
        top.err.println("protector-server: cannot read standard input: " + e.getMessage());
        return 2;
      }
    }
  }
}
