/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.icebergprotector.kms.wire.JsonCodec;
import io.icebergprotector.policy.Policy;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** policy explain, whoami (local and against a real key server) and --format json. */
class ExplainWhoamiJsonTest {
  @TempDir static Path dir;
  static KeyServer server;
  static Path policy;

  @BeforeAll
  static void start() throws Exception {
    server = new KeyServer(Files.createDirectories(dir.resolve("server")));
    policy = Files.writeString(dir.resolve("policy.conf"), KeyServer.POLICY);
  }

  @AfterAll
  static void stop() {
    if (server != null) {
      server.close();
    }
  }

  static Cli.Result run(List<String> args) {
    return Cli.run(args.toArray(String[]::new));
  }

  static List<String> with(List<String> head, List<String> tail) {
    List<String> all = new ArrayList<>(head);
    all.addAll(tail);
    return all;
  }

  @Test
  void explainPrintsAccessAndKeyPerColumn() {
    Cli.Result bob =
        Cli.run("policy", "explain", policy.toString(), "--user", "bob", "--table", "db.customers");
    assertThat(bob.code()).as(bob.err()).isZero();
    assertThat(bob.out())
        .isEqualTo(
            "bob: roles analyst in "
                + policy
                + "\n"
                + "\n"
                + "table db.customers (footer key footer; may not write)\n"
                + "  COLUMN  ACCESS                        KEY\n"
                + "  ssn     masked(partial(keep_last=4))  pii\n"
                + "  email   denied                        pii\n"
                + "  other columns: clear (not protected)\n");

    Cli.Result alice = Cli.run("policy", "explain", policy.toString(), "--user", "alice");
    assertThat(alice.out()).contains("may write").contains("  ssn     clear   pii");

    Cli.Result unknown =
        Cli.run("policy", "explain", policy.toString(), "--user", "bob", "--table", "db.nope");
    assertThat(unknown.code()).isEqualTo(1);
    assertThat(unknown.err()).startsWith("error: Table db.nope is not in policy " + policy);
  }

  @Test
  @SuppressWarnings("unchecked")
  void explainAsJson() {
    Cli.Result r =
        Cli.run(
            "policy",
            "explain",
            policy.toString(),
            "--user",
            "carol",
            "--groups",
            "bi,ops",
            "--format",
            "json");
    assertThat(r.code()).as(r.err()).isZero();
    Map<String, Object> doc = JsonCodec.parseObject(r.out().strip());
    assertThat(doc)
        .containsEntry("user", "carol")
        .containsEntry("groups", List.of("bi", "ops"))
        .containsEntry("roles", List.of());
    Map<String, Object> table = (Map<String, Object>) ((List<Object>) doc.get("tables")).get(0);
    assertThat(table).containsEntry("table", "db.customers").containsEntry("writer", false);
    assertThat((List<Object>) table.get("columns"))
        .contains(
            JsonCodec.object("column", "ssn", "access", "denied", "mask", null, "key", "pii"));
  }

  @Test
  void whoamiLocalReadsThePolicy() {
    Cli.Result r = Cli.run("whoami", "--policy", policy.toString(), "--user", "bob");
    assertThat(r.code()).as(r.err()).isZero();
    assertThat(r.out())
        .isEqualTo(
            "principal: bob (policy "
                + policy
                + ")\n"
                + "groups:    none\n"
                + "roles:     analyst\n"
                + "wraps:     none (keys of the tables it writes)\n"
                + "unwraps:   footer, pii (keys of the columns it reads, footer keys)\n"
                + "policy:    "
                + Policy.parse(KeyServer.POLICY, "any").contentDigest()
                + " (content digest)\n");
  }

  @Test
  void whoamiRemoteAsksTheKeyServer() {
    Cli.Result ops = run(with(List.of("whoami"), server.as("ops")));
    assertThat(ops.code()).as(ops.err()).isZero();
    assertThat(ops.out())
        .startsWith("principal: ops (key server " + server.url())
        .contains("roles:     keyadmin\n")
        .contains("admin:     yes");

    Cli.Result bob = run(with(List.of("whoami", "--format", "json"), server.as("bob")));
    assertThat(bob.code()).as(bob.err()).isZero();
    Map<String, Object> doc = JsonCodec.parseObject(bob.out().strip());
    assertThat(doc)
        .containsEntry("principal", "bob")
        .containsEntry("admin", false)
        .containsEntry("roles", List.of("analyst"));
    assertThat((List<Object>) doc.get("unwrappable_keys")).contains("pii", "footer");
    // the server's policy is the local file's: the same content digest
    assertThat(doc)
        .containsEntry("policy_digest", Policy.parse(KeyServer.POLICY, "any").contentDigest());
  }

  @Test
  @SuppressWarnings("unchecked")
  void keysListAsJson() {
    Cli.Result r = run(with(List.of("keys", "list", "--format", "json"), server.as("ops")));
    assertThat(r.code()).as(r.err()).isZero();
    Map<String, Object> doc = JsonCodec.parseObject(r.out().strip());
    List<Object> keys = (List<Object>) doc.get("keys");
    assertThat(keys).hasSize(2);
    assertThat((Map<String, Object>) keys.get(1))
        .containsEntry("id", "pii")
        .containsEntry("latest_version", 1L)
        .containsEntry("versions", List.of(1L))
        .containsEntry("status", "active");
  }

  @Test
  @SuppressWarnings("unchecked")
  void validateAsJsonListsEveryError() throws Exception {
    Path bad =
        Files.writeString(
            dir.resolve("bad.conf"),
            KeyServer.POLICY
                .replace("ssn   { key = pii, clear = [admin]", "ssn   { key = pii, clear = [admn]")
                .replace("email { key = pii", "email { key = pki"));
    Cli.Result r = Cli.run("policy", "validate", bad.toString(), "--format", "json");
    assertThat(r.code()).isEqualTo(1);
    assertThat(r.err()).isEmpty();
    Map<String, Object> doc = JsonCodec.parseObject(r.out().strip());
    assertThat(doc).containsEntry("valid", false);
    List<Object> errors = (List<Object>) doc.get("errors");
    assertThat(errors).hasSize(2);
    assertThat((Map<String, Object>) errors.get(0))
        .containsEntry("file", bad.toString())
        .containsEntry("line", 9L)
        .containsEntry("key", "protector.tables.\"db.customers\".columns.ssn.clear");
    assertThat((Map<String, Object>) errors.get(1))
        .containsEntry("line", 10L)
        .containsEntry("key", "protector.tables.\"db.customers\".columns.email.key");

    Cli.Result good = Cli.run("policy", "validate", policy.toString(), "--format", "json");
    assertThat(good.code()).isZero();
    assertThat(JsonCodec.parseObject(good.out().strip()))
        .containsEntry("valid", true)
        .containsEntry("tables", 1L)
        .containsEntry("protected_columns", 2L);
  }
}
