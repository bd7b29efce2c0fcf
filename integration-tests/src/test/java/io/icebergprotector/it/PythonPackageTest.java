/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.icebergprotector.it.harness.ItPaths;
import io.icebergprotector.it.harness.KeyServerStackTestBase;
import io.icebergprotector.it.harness.PythonEnv;
import io.icebergprotector.testing.TestPolicy;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Issue 31: the Python package against the real stack. Spark writes protected tables through the
 * REST catalog into the bucket (both footer modes and both algorithms); pytest ({@code
 * python/tests}) then reads them with PyIceberg and PyArrow's PME through the key server as a
 * process, as each principal, and writes a protected path that Spark reads back here. The pytest
 * run is the suite's assertion: its failures fail this test, with pytest's report.
 */
class PythonPackageTest extends KeyServerStackTestBase {
  private static final String SSN = "ssn-canary-4410";

  private static String policy(Path paths) {
    Consumer<TestPolicy.Column> ssnMasked =
        c -> c.key("pii").clear("admin").masked("analyst", "partial(keep_last=4)");
    TestPolicy policy =
        TestPolicy.builder()
            .role("admin", "alice")
            .role("hr", "harry")
            .role("analyst", "bob")
            .role("etl", "etl")
            .role("keyadmin", "ops")
            .keys("pii", "fin", "footer", "footer2")
            .table(
                "db.people",
                t ->
                    t.footerKey("footer")
                        .writers("etl")
                        .column("ssn", ssnMasked)
                        .column("salary", c -> c.key("fin").clear("admin", "hr", "analyst"))
                        .column("address.zip", c -> c.key("pii").clear("admin")))
            .table(
                "db.plainfooter",
                t ->
                    t.footerKey("footer2")
                        .footerMode("plaintext")
                        .algorithm("AES_GCM_CTR_V1")
                        .writers("etl")
                        .column(
                            "ssn", c -> c.key("pii").clear("admin").masked("analyst", "redact")))
            .table(
                "db.strict",
                t ->
                    t.footerKey("footer")
                        .writers("etl")
                        .column("salary", c -> c.key("fin").clear("admin").onDenied("fail")))
            .table(
                "db.cards",
                t ->
                    t.footerKey("footer")
                        .writers("etl")
                        .column(
                            "card",
                            c ->
                                c.key("pii")
                                    .method("fpe(alphabet = digits, keep = \"-\")")
                                    .domain("card")
                                    .clear("admin")
                                    .token("hr")
                                    .masked("analyst", "partial(keep_last=4)")))
            .table(
                "db.swapped",
                t ->
                    t.footerKey("footer")
                        .writers("etl")
                        .column("ssn", c -> c.key("pii").clear("admin")))
            .table(
                "db.maskvectors",
                t ->
                    maskVectorColumns(
                        t.footerKey("footer").writers("etl"),
                        "p4",
                        "partial(keep_last=4)",
                        "p3",
                        "partial(keep_last=3)",
                        "p2",
                        "partial(keep_last=2)",
                        "p0",
                        "partial(keep_last=0)",
                        "redacted",
                        "redact",
                        "nulled",
                        "null"));
    for (String table : List.of("db.mor", "db.dv", "db.legacy")) {
      // a table of (id, ssn) whose ssn only admin reads in clear, and analysts redacted
      policy.table(
          table,
          t ->
              t.footerKey("footer")
                  .writers("etl")
                  .column("ssn", c -> c.key("pii").clear("admin").masked("analyst", "redact")));
    }
    // the path prefixes Python writes into (one per footer mode and algorithm)
    pathPrefix(policy, paths, "pii", "footer", "encrypted", "AES_GCM_V1");
    pathPrefix(policy, paths, "pii-ctr", "footer", "encrypted", "AES_GCM_CTR_V1");
    pathPrefix(policy, paths, "pii-pf", "footer2", "plaintext", "AES_GCM_V1");
    pathPrefix(policy, paths, "pii-pf-ctr", "footer2", "plaintext", "AES_GCM_CTR_V1");
    return policy.render();
  }

  /**
   * Tokenized columns masked for analysts with each mask: pytest has the key server mask the string
   * values of the shared mask vectors through them ({@code testdata/protection-vectors.json}).
   */
  private static TestPolicy.Table maskVectorColumns(
      TestPolicy.Table table, String... namesAndMasks) {
    for (int i = 0; i < namesAndMasks.length; i += 2) {
      String mask = namesAndMasks[i + 1];
      table.column(
          namesAndMasks[i],
          c ->
              c.key("pii")
                  .method("deterministic")
                  .domain("mv")
                  .clear("admin")
                  .masked("analyst", mask));
    }
    return table;
  }

  private static void pathPrefix(
      TestPolicy policy,
      Path paths,
      String dir,
      String footerKey,
      String footerMode,
      String algorithm) {
    policy.path(
        "file:" + paths.resolve(dir) + "/",
        p ->
            p.footerKey(footerKey)
                .footerMode(footerMode)
                .algorithm(algorithm)
                .writers("etl")
                .column(
                    "ssn",
                    c -> c.key("pii").clear("admin").masked("analyst", "partial(keep_last=4)"))
                .column("salary", c -> c.key("fin").clear("admin", "hr")));
  }

  /** The prefixes Python writes into, each read back here by Spark as every principal. */
  private static final List<String> PREFIXES = List.of("pii", "pii-ctr", "pii-pf", "pii-pf-ctr");

  // made anew (emptied) for each run: files of an earlier run were written under other keys
  private static final Path PATHS = ItPaths.workDir("PythonPackageTest-paths");
  private static final Path VIEWS = ItPaths.workDir("PythonPackageTest-views");
  private static final Path SQL_DIR = ItPaths.workDir("PythonPackageTest-sql");
  private static final Path SQL_CATALOG = SQL_DIR.resolve("catalog.db");
  private static final Path SQL_WAREHOUSE = SQL_DIR.resolve("warehouse");

  PythonPackageTest() {
    super(
        policy(PATHS),
        List.of("alice", "harry", "bob", "etl"),
        List.of("pii", "fin", "footer", "footer2"));
  }

  @BeforeAll
  void writeTables() throws IOException {
    for (String prefix : PREFIXES) {
      Files.createDirectories(PATHS.resolve(prefix));
    }
    SparkSession etl = spark.newSession();
    configureProt(etl, "etl", Map.of());
    etl.sql("CREATE NAMESPACE IF NOT EXISTS prot.db");
    etl.sql(
        "CREATE TABLE prot.db.people (id BIGINT, ssn STRING, salary BIGINT,"
            + " address STRUCT<city: STRING, zip: STRING>) USING iceberg");
    etl.sql(
        "INSERT INTO prot.db.people VALUES"
            + " (1, '"
            + SSN
            + "', 5100, named_struct('city', 'Berlin', 'zip', '10115')),"
            + " (2, 'ssn-0002', 6200, named_struct('city', 'Paris', 'zip', '75001')),"
            + " (3, NULL, NULL, NULL)");
    etl.sql("CREATE TABLE prot.db.plainfooter (id BIGINT, ssn STRING) USING iceberg");
    etl.sql("INSERT INTO prot.db.plainfooter VALUES (1, 'pf-ssn-1'), (2, 'pf-ssn-2')");
    etl.sql("CREATE TABLE prot.db.strict (id BIGINT, salary BIGINT) USING iceberg");
    etl.sql("INSERT INTO prot.db.strict VALUES (1, 100)");
    SparkSession tokenizing = spark.newSession();
    configureProt(tokenizing, "etl", Map.of("protector.kms.token-mode", "server"));
    tokenizing.sql("CREATE TABLE prot.db.cards (id BIGINT, card STRING) USING iceberg");
    tokenizing.sql(
        "INSERT INTO prot.db.cards VALUES (1, '4111-1111-1111-1111'), (2, '5500-0000-0000-0004'),"
            + " (3, NULL)");
    etl.sql("CREATE TABLE prot.db.swapped (id BIGINT, ssn STRING) USING iceberg");
    etl.sql("INSERT INTO prot.db.swapped VALUES (1, 'first-ssn')");
    etl.sql("INSERT INTO prot.db.swapped VALUES (2, 'second-ssn')");
    swapTheTwoFilesOf("swapped");
    writeRowLevelDeletes(etl);
    writeLegacyAndUnverifiedFiles(etl);
    writeSqlCatalogTable();
    writeSparkViews();
  }

  /**
   * Merge-on-read DELETEs as the writer: position delete files in a format v2 table, a deletion
   * vector in a format v3 table. Python must apply both.
   */
  private void writeRowLevelDeletes(SparkSession etl) {
    for (String[] table : new String[][] {{"mor", "2"}, {"dv", "3"}}) {
      String name = "prot.db." + table[0];
      etl.sql(
          "CREATE TABLE "
              + name
              + " (id BIGINT, ssn STRING) USING iceberg TBLPROPERTIES ('format-version' = '"
              + table[1]
              + "', 'write.delete.mode' = 'merge-on-read')");
      etl.sql(
          "INSERT INTO "
              + name
              + " VALUES (1, '"
              + table[0]
              + "-1'), (2, '"
              + table[0]
              + "-2'), (3, '"
              + table[0]
              + "-3')");
      etl.sql("DELETE FROM " + name + " WHERE id = 2");
      assertThat(etl.sql("SELECT * FROM " + name + ".delete_files").count())
          .as("delete files of %s", name)
          .isEqualTo(1);
    }
  }

  /**
   * Table db.legacy: a plaintext file written through Iceberg's own catalog before the table came
   * under protection (legacy), a bound file of the protected writer (which sets the table's binding
   * boundary), then a plaintext file added through Iceberg's catalog again (unverified).
   */
  private void writeLegacyAndUnverifiedFiles(SparkSession etl) {
    SparkSession plain = spark.newSession();
    String prefix = "spark.sql.catalog.plain";
    plain.conf().set(prefix, "org.apache.iceberg.spark.SparkCatalog");
    restCatalogOptions().forEach((k, v) -> plain.conf().set(prefix + "." + k, v));
    plain.sql("CREATE TABLE plain.db.legacy (id BIGINT, ssn STRING) USING iceberg");
    plain.sql("INSERT INTO plain.db.legacy VALUES (1, 'legacy-1')");
    etl.sql("INSERT INTO prot.db.legacy VALUES (2, 'bound-2')");
    plain.sql("INSERT INTO plain.db.legacy VALUES (3, 'unverified-3')");
  }

  /**
   * Table db.people again, in a SQL (JDBC) catalog on SQLite with a local warehouse, which
   * PyIceberg's SQL catalog opens from the same database file.
   */
  private void writeSqlCatalogTable() {
    SparkSession etl = spark.newSession();
    configureSql(etl, "etl");
    etl.sql("CREATE NAMESPACE IF NOT EXISTS protsql.db");
    etl.sql(
        "CREATE TABLE protsql.db.people (id BIGINT, ssn STRING, salary BIGINT,"
            + " address STRUCT<city: STRING, zip: STRING>) USING iceberg");
    etl.sql(
        "INSERT INTO protsql.db.people VALUES"
            + " (7, 'sql-ssn-7', 7700, named_struct('city', 'Oslo', 'zip', '0150'))");
  }

  /** Catalog protsql of {@code session}: a protecting JDBC catalog, keyed as {@code principal}. */
  private void configureSql(SparkSession session, String principal) {
    String prefix = "spark.sql.catalog.protsql";
    session.conf().set(prefix, "io.icebergprotector.spark.ProtectingSparkCatalog");
    Map<String, String> options = new LinkedHashMap<>();
    options.put("type", "jdbc");
    options.put("uri", "jdbc:sqlite:" + SQL_CATALOG);
    options.put("jdbc.schema-version", "V1");
    options.put("warehouse", "file:" + SQL_WAREHOUSE);
    options.put("protector.kms.type", "remote");
    options.put("protector.kms.url", keyServer.url());
    options.put("protector.token-file", keyServer.tokenFile(principal).toString());
    options.put("protector.kms.trust-store", keyServer.certificate().toString());
    options.forEach((k, v) -> session.conf().set(prefix + "." + k, v));
  }

  /**
   * What Spark shows each principal of each table, one JSON line per row, for pytest to compare its
   * own reads with ({@code IP_SPARK_VIEWS/<principal>/<table>.jsonl}).
   */
  private void writeSparkViews() throws IOException {
    for (String principal : List.of("alice", "harry", "bob")) {
      SparkSession reader = spark.newSession();
      configureProt(reader, principal, Map.of("protector.kms.token-mode", "server"));
      Path dir = Files.createDirectories(VIEWS.resolve(principal));
      for (String table : List.of("people", "plainfooter", "cards", "mor", "dv")) {
        List<String> rows =
            reader.sql("SELECT * FROM prot.db." + table + " ORDER BY id").toJSON().collectAsList();
        Files.write(dir.resolve("db." + table + ".jsonl"), rows);
      }
      List<String> legacy =
          reader
              .read()
              .option("protector.accept-unverified-files", "true")
              .table("prot.db.legacy")
              .orderBy("id")
              .toJSON()
              .collectAsList();
      Files.write(dir.resolve("db.legacy.jsonl"), legacy);
      configureSql(reader, principal);
      List<String> sql =
          reader.sql("SELECT * FROM protsql.db.people ORDER BY id").toJSON().collectAsList();
      Files.write(dir.resolve("sql.db.people.jsonl"), sql);
    }
  }

  /** Overwrites the newer data file of {@code table} with the older one's bytes, in the bucket. */
  private void swapTheTwoFilesOf(String table) {
    Map<String, byte[]> files = new TreeMap<>();
    for (Map.Entry<String, byte[]> object : store.readAllObjects().entrySet()) {
      if (object.getKey().contains("/" + table + "/") && object.getKey().endsWith(".parquet")) {
        files.put(object.getKey(), object.getValue());
      }
    }
    assertThat(files).as("data files of db.%s", table).hasSize(2);
    List<String> keys = List.copyOf(files.keySet());
    store.put(keys.get(1), files.get(keys.get(0)));
  }

  private Map<String, String> stackEnv() {
    Map<String, String> env = new LinkedHashMap<>();
    env.put("IP_STACK", "1");
    env.put("IP_KEY_SERVER_URL", keyServer.url());
    env.put("IP_CA_CERT", keyServer.certificate().toString());
    env.put("IP_TOKEN_DIR", keyServer.tokenFile("alice").getParent().toString());
    env.put("IP_AUDIT_FILE", keyServer.auditFile().toString());
    env.put("IP_REST_URI", rest.uri());
    env.put("IP_S3_ENDPOINT", store.endpoint());
    env.put("IP_S3_ACCESS_KEY", store.accessKey());
    env.put("IP_S3_SECRET_KEY", store.secretKey());
    env.put("IP_S3_REGION", store.region());
    env.put("IP_PATHS", PATHS.toString());
    env.put("IP_SSN", SSN);
    env.put("IP_SPARK_VIEWS", VIEWS.toString());
    env.put("IP_SQL_CATALOG_URI", "sqlite:///" + SQL_CATALOG);
    env.put("IP_SQL_WAREHOUSE", "file:" + SQL_WAREHOUSE);
    env.put(
        "IP_EXPIRED_TOKEN_FILE",
        keyServer
            .writeTokenFile(
                "alice-expired.jwt",
                keyServer.jwt("alice", List.of(), Instant.now().minus(Duration.ofHours(1))))
            .toString());
    env.put(
        "IP_JWT_TOKEN_FILE",
        keyServer
            .writeTokenFile(
                "harry.jwt",
                keyServer.jwt("harry", List.of(), Instant.now().plus(Duration.ofHours(1))))
            .toString());
    return env;
  }

  @Test
  void pythonReadsWhatSparkWroteAndSparkReadsWhatPythonWrote() throws IOException {
    String report =
        PythonEnv.pytest("pytest-stack", stackEnv(), "-q", "-rs", "-p", "no:cacheprovider");
    assertThat(report).contains(" passed").doesNotContain(" skipped");

    // pytest wrote these files as etl, in both footer modes and both algorithms: Spark reads
    // each under the same policy, as each principal
    for (String prefix : PREFIXES) {
      Path written = PATHS.resolve(prefix).resolve("people");
      try (Stream<Path> files = Files.list(written)) {
        assertThat(files.filter(f -> f.toString().endsWith(".parquet")).count())
            .as("files Python wrote under %s", prefix)
            .isPositive();
      }
      assertThat(readPathAs("alice", written))
          .as("alice reads %s", prefix)
          .containsExactly("1|py-ssn-1|7000", "2|py-ssn-2|8000");
      assertThat(readPathAs("harry", written))
          .as("harry reads %s", prefix)
          .containsExactly("1|null|7000", "2|null|8000");
      assertThat(readPathAs("bob", written))
          .as("bob reads %s", prefix)
          .containsExactly("1|****sn-1|null", "2|****sn-2|null");
    }
  }

  @Test
  void pythonSourcesPassTheLinterAndTheFormatter() {
    PythonEnv.ruff("ruff-check", "check", ".");
    PythonEnv.ruff("ruff-format", "format", "--check", ".");
  }

  private List<String> readPathAs(String principal, Path dir) {
    SparkSession session = spark.newSession();
    session.conf().set("spark.protector.kms.type", "remote");
    session.conf().set("spark.protector.kms.url", keyServer.url());
    session.conf().set("spark.protector.token-file", keyServer.tokenFile(principal).toString());
    session.conf().set("spark.protector.kms.trust-store", keyServer.certificate().toString());
    return session.read().parquet("file:" + dir).orderBy("id").collectAsList().stream()
        .map(PythonPackageTest::row)
        .toList();
  }

  private static String row(Row r) {
    return r.get(r.fieldIndex("id"))
        + "|"
        + r.get(r.fieldIndex("ssn"))
        + "|"
        + r.get(r.fieldIndex("salary"));
  }
}
