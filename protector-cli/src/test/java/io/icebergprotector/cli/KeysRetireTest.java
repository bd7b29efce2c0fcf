/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.icebergprotector.kms.KeyInfo;
import io.icebergprotector.kms.LocalKeyService;
import io.icebergprotector.kms.Passphrase;
import io.icebergprotector.kms.wire.JsonCodec;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code keys retire} against a real key server and a real table: refused while a file (of any kept
 * snapshot) still needs an old version, done after the rewrite and the expiry of the old snapshots.
 */
@SuppressWarnings("unchecked")
class KeysRetireTest {
  @TempDir Path dir;

  private static List<String> args(KeyServer server, String principal, String... command) {
    List<String> all = new ArrayList<>(List.of(command));
    all.addAll(server.as(principal));
    return all;
  }

  private static Cli.Result run(List<String> args) {
    return Cli.run(args.toArray(String[]::new));
  }

  @Test
  void refusedWhileAFileNeedsAnOldVersionThenRetiredOnTheKeyServer() throws Exception {
    try (KeyServer server = new KeyServer(Files.createDirectories(dir.resolve("server")))) {
      Path warehouse = dir.resolve("prod-warehouse");
      Path props = KeyServer.prodCatalog(dir, warehouse);
      List<String> catalog = List.of("--catalog", "prod", "--properties-file", props.toString());
      List<String> write =
          args(
              server,
              "alice",
              "sql",
              "--user",
              "alice",
              "-e",
              "CREATE NAMESPACE IF NOT EXISTS db; "
                  + "CREATE TABLE db.customers (id BIGINT, ssn STRING, email STRING) USING iceberg; "
                  + "INSERT INTO db.customers VALUES (1, '000-00-4321', 'x@example.com')");
      write.addAll(catalog);
      Cli.Result w = run(write);
      assertThat(w.code()).as(w.err()).isZero();
      Cli.Result rotated = run(args(server, "ops", "keys", "rotate", "pii"));
      assertThat(rotated.code()).as(rotated.err()).isZero();

      // ops administers keys and reads no column; footer keys are released to every principal
      List<String> retire = args(server, "ops", "keys", "retire", "pii", "--below", "2");
      retire.addAll(catalog);
      Cli.Result refused = run(retire);
      assertThat(refused.code()).as(refused.err()).isEqualTo(1);
      assertThat(refused.out())
          .contains("table prod.db.customers: 1 Parquet file in kept snapshots")
          .contains("refused: 1 file still needs key pii below v2; nothing was retired:")
          .containsPattern("  \\S+/db/customers/data/\\S+\\.parquet: pii v1 \\(email, ssn\\)")
          .contains(
              "bin/protector rewrite --user <writer> --table db.customers --min-key-version 2");
      assertThat(describe(server, "pii").minDecryptionVersion()).isEqualTo(1);

      List<String> rewrite =
          args(
              server,
              "alice",
              "rewrite",
              "--user",
              "alice",
              "--table",
              "db.customers",
              "--min-key-version",
              "2");
      rewrite.addAll(catalog);
      Cli.Result rewritten = run(rewrite);
      assertThat(rewritten.code()).as(rewritten.err()).isZero();

      // the snapshot before the rewrite still references the v1 file (time travel would read it)
      retire.addAll(List.of("--format", "json"));
      Cli.Result stillKept = run(retire);
      assertThat(stillKept.code()).as(stillKept.err()).isEqualTo(1);
      Map<String, Object> doc = JsonCodec.parseObject(stillKept.out().strip());
      assertThat(doc)
          .containsEntry("key", "pii")
          .containsEntry("below", 2L)
          .containsEntry("retired", false);
      List<Object> files = (List<Object>) doc.get("files_needing_retired_versions");
      assertThat(files)
          .singleElement()
          .satisfies(
              f ->
                  assertThat((Map<String, Object>) f)
                      .containsEntry("table", "prod.db.customers")
                      .containsEntry(
                          "needs",
                          List.of(Map.of("version", "v1", "used_by", List.of("email", "ssn")))));
      assertThat(((List<Object>) doc.get("tables")))
          .singleElement()
          .satisfies(t -> assertThat((Map<String, Object>) t).containsEntry("files", 2L));

      org.apache.iceberg.Table table =
          new org.apache.iceberg.hadoop.HadoopTables(new org.apache.hadoop.conf.Configuration())
              .load(warehouse.resolve("db/customers").toUri().toString());
      table
          .expireSnapshots()
          .expireOlderThan(System.currentTimeMillis() + 1)
          .retainLast(1)
          .commit();

      retire.removeAll(List.of("--format", "json"));
      Cli.Result retired = run(retire);
      assertThat(retired.code()).as(retired.err()).isZero();
      assertThat(retired.out())
          .contains("table prod.db.customers: 1 Parquet file in kept snapshots")
          .contains(
              "retired key pii versions below v2 in key server "
                  + server.url()
                  + ": minimum decryption version is now 2 (latest v2)");
      assertThat(describe(server, "pii").minDecryptionVersion()).isEqualTo(2);

      // the rewritten table still reads; the key list shows the retirement
      List<String> read =
          args(server, "alice", "sql", "--user", "alice", "-e", "SELECT ssn FROM db.customers");
      read.addAll(catalog);
      Cli.Result r = run(read);
      assertThat(r.code()).as(r.err()).isZero();
      assertThat(r.out()).contains("(1 row)");
      Cli.Result list = run(args(server, "ops", "keys", "list"));
      assertThat(list.out()).containsPattern("pii +v2 +v2 +\\S+ +active, below v2 retired");
    }
  }

  private static KeyInfo describe(KeyServer server, String key) {
    try (Passphrase p = Passphrase.of("cli-test-keystore".toCharArray());
        LocalKeyService keys = LocalKeyService.open(server.dir.resolve("keys.p12"), p, false)) {
      return keys.describeKey(key);
    }
  }

  @Test
  void badVersionsFailBeforeAnyScan() throws Exception {
    Files.writeString(dir.resolve("passphrase"), "a test passphrase\n");
    String[] keystore = {
      "--keystore",
      dir.resolve("keys.p12").toString(),
      "--passphrase-file",
      dir.resolve("passphrase").toString()
    };
    assertThat(Cli.run(concat(new String[] {"keys", "create", "pii"}, keystore)).code()).isZero();

    Cli.Result zero =
        Cli.run(concat(new String[] {"keys", "retire", "pii", "--below", "0"}, keystore));
    assertThat(zero.code()).isEqualTo(2);
    assertThat(zero.err()).contains("--below must be a version number >= 1: 0");

    Cli.Result pastLatest =
        Cli.run(concat(new String[] {"keys", "retire", "pii", "--below", "2"}, keystore));
    assertThat(pastLatest.code()).isEqualTo(1);
    assertThat(pastLatest.err()).contains("key 'pii'").contains("to 2: the latest version is 1");

    Cli.Result unknown =
        Cli.run(concat(new String[] {"keys", "retire", "nope", "--below", "1"}, keystore));
    assertThat(unknown.code()).isEqualTo(1);
    assertThat(unknown.err()).contains("key 'nope' does not exist");
  }

  private static String[] concat(String[] a, String[] b) {
    String[] all = java.util.Arrays.copyOf(a, a.length + b.length);
    System.arraycopy(b, 0, all, a.length, b.length);
    return all;
  }
}
