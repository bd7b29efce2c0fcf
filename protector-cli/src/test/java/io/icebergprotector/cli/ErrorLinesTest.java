/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Failures are one line (plus a hint where the user can fix the cause); traces only with --verbose.
 */
class ErrorLinesTest {
  @TempDir static Path dir;
  static KeyServer server;

  @BeforeAll
  static void startServer() throws Exception {
    server = new KeyServer(dir);
  }

  @AfterAll
  static void stopServer() {
    if (server != null) {
      server.close();
    }
  }

  static Cli.Result run(List<String> args) {
    return Cli.run(args.toArray(String[]::new));
  }

  @Test
  void untrustedCertificateNamesTheOptionToPass() {
    List<String> args =
        new ArrayList<>(
            List.of(
                "keys",
                "list",
                "--url",
                server.url(),
                "--token-file",
                server.tokenFile("ops").toString()));
    Cli.Result r = run(args);
    assertThat(r.code()).isEqualTo(1);
    List<String> lines = r.err().lines().toList();
    assertThat(lines).hasSize(2);
    assertThat(lines.get(0)).startsWith("error: TLS connection to key service at " + server.url());
    assertThat(lines.get(1))
        .startsWith(
            "hint: the key server's TLS certificate is not trusted by this JVM;"
                + " pass --trust-cert <server.pem>");

    args.add("--verbose");
    Cli.Result verbose = run(args);
    assertThat(verbose.err()).contains("hint: the key server's TLS certificate").contains("\tat ");
  }

  @Test
  void refusedAdminOperationNamesTheRoleNeeded() {
    List<String> args = new ArrayList<>(List.of("keys", "list"));
    args.addAll(server.as("bob"));
    Cli.Result r = run(args);
    assertThat(r.code()).isEqualTo(1);
    List<String> lines = r.err().lines().toList();
    assertThat(lines).hasSize(2);
    assertThat(lines.get(0))
        .isEqualTo("error: principal 'bob' is not allowed to list with key '(none)'");
    assertThat(lines.get(1))
        .isEqualTo(
            "hint: 'keys list' on the key server needs a role listed in the"
                + " server's admin-roles (conf/server.conf); principal 'bob' holds none of them ('protector whoami'"
                + " with the same --url and token shows its roles)");

    List<String> admin = new ArrayList<>(List.of("keys", "list"));
    admin.addAll(server.as("ops"));
    Cli.Result ok = run(admin);
    assertThat(ok.code()).as(ok.err()).isZero();
    assertThat(ok.out()).contains("pii").contains("footer");
  }

  @Test
  void librariesAreSilentUnlessVerbose() throws IOException {
    assertThat(
            ProtectorCli.logConfiguration(new String[] {"sql", "--user", "bob", "-e", "SELECT 1"}))
        .isEqualTo("log4j2-cli.properties");
    assertThat(ProtectorCli.logConfiguration(new String[] {"sql", "--verbose", "--user", "bob"}))
        .isEqualTo("log4j2-cli-verbose.properties");
    assertThat(ProtectorCli.logConfiguration(new String[] {"-v", "demo"}))
        .isEqualTo("log4j2-cli-verbose.properties");
    assertThat(load("log4j2-cli.properties").getProperty("rootLogger.level")).isEqualTo("off");
    assertThat(load("log4j2-cli-verbose.properties").getProperty("rootLogger.level"))
        .isEqualTo("warn");
  }

  private static Properties load(String resource) throws IOException {
    Properties p = new Properties();
    try (InputStream in = ProtectorCli.class.getResourceAsStream(resource)) {
      p.load(in);
    }
    return p;
  }
}
