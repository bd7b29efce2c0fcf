/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code sql} on a catalog the user configures (--properties-file, --conf, --catalog) with keys
 * from a real key server (--url, --token-file, --trust-cert): no local keystore exists.
 */
@SuppressWarnings("unchecked")
class SqlAnyCatalogTest {
  @TempDir Path dir;

  @Test
  void writeAsAliceReadAsBobThroughTheKeyServer() throws Exception {
    try (KeyServer server = new KeyServer(Files.createDirectories(dir.resolve("server")))) {
      Path warehouse = dir.resolve("prod-warehouse");
      Path props = KeyServer.prodCatalog(dir, warehouse);
      Path policy = dir.resolve("policy.conf");

      List<String> write =
          new ArrayList<>(
              List.of(
                  "sql",
                  "--user",
                  "alice",
                  "--catalog",
                  "prod",
                  "--properties-file",
                  props.toString(),
                  "--state-dir",
                  dir.resolve("no-state").toString(),
                  "-e",
                  "CREATE NAMESPACE IF NOT EXISTS db; "
                      + "CREATE TABLE db.customers (id BIGINT, ssn STRING, email STRING) USING iceberg; "
                      + "INSERT INTO db.customers VALUES (1, '000-00-4321', 'x@example.com')"));
      write.addAll(server.as("alice"));
      Cli.Result w = Cli.run(write.toArray(String[]::new));
      assertThat(w.code()).as(w.err()).isZero();
      assertThat(w.err()).contains("catalog prod, key server " + server.url());
      assertThat(dir.resolve("no-state/keys.p12")).doesNotExist();
      assertThat(dir.resolve("no-state/passphrase")).doesNotExist();
      assertThat(Files.readString(server.dir.resolve("audit.log")))
          .contains("alice")
          .contains("pii");

      // inspect --table: every file encrypted, grouped; then a plaintext file slipped in fails the
      // check
      List<String> check =
          new ArrayList<>(
              List.of(
                  "inspect",
                  "--table",
                  "db.customers",
                  "--catalog",
                  "prod",
                  "--properties-file",
                  props.toString()));
      check.addAll(server.as("alice"));
      Cli.Result clean = Cli.run(check.toArray(String[]::new));
      assertThat(clean.code()).as(clean.err()).isZero();
      assertThat(clean.out())
          .startsWith("table prod.db.customers: 1 data file (protected by " + policy + ")\n")
          .contains(
              "  1      encrypted footer, AES_GCM_V1, binding stored, footer footer v1, pii v1\n");
      // the same catalog through --conf; bob is an analyst: ssn masked, email denied
      List<String> read =
          new ArrayList<>(
              List.of(
                  "sql",
                  "--user",
                  "bob",
                  "--catalog",
                  "prod",
                  "--conf",
                  "spark.sql.catalog.prod=" + LocalSpark.CATALOG_CLASS,
                  "--conf",
                  "spark.sql.catalog.prod.type=hadoop",
                  "--conf",
                  "spark.sql.catalog.prod.warehouse=" + warehouse.toUri(),
                  "--conf",
                  "spark.sql.catalog.prod.protector.policy=" + policy,
                  "-e",
                  "SELECT id, ssn, email FROM db.customers"));
      read.addAll(server.as("bob"));
      Cli.Result r = Cli.run(read.toArray(String[]::new));
      assertThat(r.code()).as(r.err()).isZero();
      assertThat(r.out())
          .contains("*******4321")
          .contains("NULL")
          .doesNotContain("000-00-")
          .contains("(1 row)");

      Path plain = appendPlaintextFile(warehouse.resolve("db/customers"));
      check.add("--format");
      check.add("json");
      Cli.Result dirty = Cli.run(check.toArray(String[]::new));
      assertThat(dirty.code()).as(dirty.err()).isEqualTo(1);
      java.util.Map<String, Object> doc =
          io.icebergprotector.kms.wire.JsonCodec.parseObject(dirty.out().strip());
      assertThat(doc).containsEntry("files", 2L).containsEntry("ok", false);
      // committed after the table came under protection: added without the protector, not legacy
      assertThat((List<Object>) doc.get("plaintext_files"))
          .singleElement()
          .asString()
          .endsWith(plain.getFileName().toString());
      assertThat((List<Object>) doc.get("written_before_protection")).isEmpty();

      // inspect unwraps the footer key through the key server too
      Path dataFile;
      try (var files = Files.walk(warehouse.resolve("db/customers/data"))) {
        // the protector's file, not the plaintext one appended above (walk order is the disk's)
        dataFile =
            files
                .filter(
                    f ->
                        f.toString().endsWith(".parquet")
                            && !f.getFileName().equals(plain.getFileName()))
                .findFirst()
                .orElseThrow();
      }
      List<String> inspect =
          new ArrayList<>(
              List.of(
                  "inspect", dataFile.toString(), "--policy", policy.toString(), "--user", "bob"));
      inspect.addAll(server.as("bob"));
      Cli.Result i = Cli.run(inspect.toArray(String[]::new));
      assertThat(i.code()).as(i.err()).isZero();
      assertThat(i.out())
          .contains("Footer:     ENCRYPTED (decrypted)")
          .containsPattern("ssn: encrypted .*masterKeyID=pii");
    }
  }

  /** A file written without the protector, committed to the table with Iceberg's API. */
  private Path appendPlaintextFile(Path tableDir) throws Exception {
    org.apache.iceberg.Table table =
        new org.apache.iceberg.hadoop.HadoopTables(new org.apache.hadoop.conf.Configuration())
            .load(tableDir.toUri().toString());
    org.apache.iceberg.shaded.org.apache.parquet.schema.MessageType type =
        org.apache.iceberg.shaded.org.apache.parquet.schema.MessageTypeParser.parseMessageType(
            "message t { optional int64 id = 1; optional binary ssn (UTF8) = 2; optional binary email (UTF8) = 3; }");
    Path file = tableDir.resolve("data/plain-00000.parquet");
    try (var writer =
        org.apache.iceberg.shaded.org.apache.parquet.hadoop.example.ExampleParquetWriter.builder(
                new org.apache.iceberg.shaded.org.apache.parquet.io.LocalOutputFile(file))
            .withType(type)
            .withConf(new org.apache.hadoop.conf.Configuration(false))
            .build()) {
      writer.write(
          new org.apache.iceberg.shaded.org.apache.parquet.example.data.simple.SimpleGroupFactory(
                  type)
              .newGroup()
              .append("id", 2L)
              .append("ssn", "000-00-9999"));
    }
    table
        .newAppend()
        .appendFile(
            org.apache.iceberg.DataFiles.builder(table.spec())
                .withPath(file.toUri().toString())
                .withFileSizeInBytes(Files.size(file))
                .withRecordCount(1)
                .withFormat(org.apache.iceberg.FileFormat.PARQUET)
                .build())
        .commit();
    return file;
  }

  @Test
  void keyServerOptionsNeedUrl() {
    Cli.Result r = Cli.run("sql", "--user", "bob", "--token-file", "t", "-e", "SELECT 1");
    assertThat(r.code()).isEqualTo(2);
    assertThat(r.err())
        .startsWith(
            "error: --token-env, --token-file, --trust-cert and --allow-insecure-http need --url");
  }
}
