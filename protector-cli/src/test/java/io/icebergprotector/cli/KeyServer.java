/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.cli;

import io.icebergprotector.kms.LocalKeyService;
import io.icebergprotector.kms.Passphrase;
import io.icebergprotector.policy.Digests;
import io.icebergprotector.server.ProtectorServer;
import io.icebergprotector.testing.SelfSignedTls;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/**
 * A real protector key server on loopback with a self-signed certificate (keytool), a keystore with
 * keys pii and footer, the {@link #POLICY}, and a token file per user: alice (admin of the policy),
 * ops (the server's admin role keyadmin) and bob (analyst).
 */
final class KeyServer implements AutoCloseable {
  static final String POLICY =
      """
      protector {
        roles { admin { users = [alice] }, analyst { users = [bob] }, keyadmin { users = [ops] } }
        keys { pii {}, footer {} }
        tables {
          "db.customers" {
            footer-key = footer
            writers = [admin]
            columns {
              ssn   { key = pii, clear = [admin], masked { analyst = "partial(keep_last=4)" } }
              email { key = pii, clear = [admin] }
            }
          }
        }
      }
      """;
  private static final String TLS_PASSWORD = "cli-test-tls";
  private static final String PASSPHRASE = "cli-test-keystore";

  final Path dir;
  final Path certificate;
  final ProtectorServer server;

  KeyServer(Path dir) throws Exception {
    this.dir = dir;
    Path p12 = dir.resolve("tls.p12");
    this.certificate = dir.resolve("server.pem");
    SelfSignedTls.create(p12, TLS_PASSWORD, certificate);
    Files.writeString(dir.resolve("tls-password"), TLS_PASSWORD);
    Files.writeString(dir.resolve("passphrase"), PASSPHRASE);
    Files.writeString(dir.resolve("policy.conf"), POLICY);
    try (Passphrase p = Passphrase.of(PASSPHRASE.toCharArray());
        LocalKeyService keys = LocalKeyService.open(dir.resolve("keys.p12"), p, true)) {
      keys.createKey("pii");
      keys.createKey("footer");
    }
    StringBuilder tokens = new StringBuilder();
    for (String user : List.of("alice", "ops", "bob")) {
      String token = UUID.randomUUID() + "-" + UUID.randomUUID();
      Files.writeString(tokenFile(user), token + "\n");
      tokens
          .append("    { name = \"")
          .append(user)
          .append("\", sha256 = \"")
          .append(Digests.sha256Hex(token))
          .append("\", principal = \"")
          .append(user)
          .append("\" }\n");
    }
    Path config = dir.resolve("server.conf");
    Files.writeString(
        config,
        String.join(
            "\n",
            "protector-server {",
            "  bind { host = \"127.0.0.1\", port = 0 }",
            "  tls { keystore = \"tls.p12\", password-file = \"tls-password\" }",
            "  keys { keystore = \"keys.p12\", passphrase-file = \"passphrase\" }",
            "  policy = \"policy.conf\"",
            "  admin-roles = [keyadmin]",
            "  auth {",
            "    tokens = [",
            tokens.toString(),
            "    ]",
            // the command line acts as one principal, as on a single-user cluster
            "    release-mask-keys-to-principals = true",
            "  }",
            "  audit { file = \"audit.log\" }",
            "}",
            ""));
    this.server = ProtectorServer.start(config);
  }

  /**
   * Writes {@link #POLICY} and the Spark settings of a hadoop catalog 'prod' over {@code warehouse}
   * protected by it (a properties file, as spark-submit's --properties-file); returns that file.
   */
  static Path prodCatalog(Path dir, Path warehouse) throws IOException {
    Path policy = Files.writeString(dir.resolve("policy.conf"), POLICY);
    return Files.writeString(
        dir.resolve("prod.properties"),
        String.join(
            "\n",
            "spark.sql.catalog.prod = " + LocalSpark.CATALOG_CLASS,
            "spark.sql.catalog.prod.type = hadoop",
            "spark.sql.catalog.prod.warehouse = " + warehouse.toUri(),
            "spark.sql.catalog.prod.protector.policy = " + policy,
            ""));
  }

  String url() {
    return server.url().toString();
  }

  Path tokenFile(String user) {
    return dir.resolve(user + ".token");
  }

  /** The options that reach this server as {@code user}. */
  List<String> as(String user) {
    return new ArrayList<>(
        List.of(
            "--url",
            url(),
            "--token-file",
            tokenFile(user).toString(),
            "--trust-cert",
            certificate.toString()));
  }

  @Override
  public void close() {
    server.close();
  }
}
