/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.spark;

import static io.icebergprotector.spark.SparkTestBase.assertRefused;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.icebergprotector.spark.testing.TestSessions;
import io.icebergprotector.testing.LocalCatalog;
import io.icebergprotector.testing.TestPolicy;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.function.Consumer;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SaveMode;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * With {@link ProtectingSessionCatalog} as {@code spark_catalog}, a non-Iceberg table whose name
 * the policy lists is refused (create, write, read), unless it lies under a protected {@code paths}
 * prefix; Iceberg tables of the policy are protected as before, and the session catalog's
 * procedures are guarded like the protecting catalog's.
 */
class SessionCatalogTablesTest {
  private static final String CANARY = "SQ-CANARY-";
  private static SparkSession spark;
  private static Path root;
  private static Path sparkWarehouse;

  @BeforeAll
  static void start() throws IOException {
    root = Files.createTempDirectory("protector-session-tables").toRealPath();
    sparkWarehouse = root.resolve("spark-warehouse");
    Consumer<TestPolicy.Table> ssnClearToAdmin =
        t -> t.footerKey("footer").writers("etl").column("ssn", c -> c.key("pii").clear("admin"));
    String policy =
        TestPolicy.builder()
            .role("admin", "alice")
            .role("etl", "etl")
            .keys("pii", "footer")
            .table("db.sq", ssnClearToAdmin)
            .table("db.ice", ssnClearToAdmin)
            .path("file:" + root.resolve("prot") + "/", ssnClearToAdmin)
            .render();
    LocalCatalog files =
        LocalCatalog.create(root, policy, "session-tables-" + System.nanoTime())
            .withWarehouse(root.resolve("iceberg"));
    SparkSession.Builder builder =
        TestSessions.config(
            TestSessions.protector("session-catalog-tables"),
            LocalCatalog.catalogConf(
                "spark_catalog", ProtectingSessionCatalog.class.getName(), files.options("etl")));
    spark =
        TestSessions.config(builder, files.sessionConf("etl"))
            .config("spark.sql.warehouse.dir", sparkWarehouse.toString())
            .config("spark.sql.parquet.compression.codec", "uncompressed")
            .getOrCreate();
    spark.sql("CREATE NAMESPACE IF NOT EXISTS db");
  }

  @AfterAll
  static void stop() {
    TestSessions.stop(spark);
  }

  @AfterEach
  void dropTables() {
    for (String table : List.of("db.sq", "db.other", "db.ice")) {
      spark.sql("DROP TABLE IF EXISTS " + table);
    }
  }

  private static Dataset<Row> rows(int id) {
    return spark.sql("SELECT CAST(" + id + " AS BIGINT) AS id, '" + CANARY + id + "' AS ssn");
  }

  private static boolean exists(String table) {
    return spark.catalog().tableExists(table);
  }

  /** Files under {@code dir} whose bytes hold a canary of the protected column. */
  private static List<Path> plaintextFiles(Path dir) {
    if (!Files.exists(dir)) {
      return List.of();
    }
    byte[] needle = CANARY.getBytes(StandardCharsets.UTF_8);
    try (Stream<Path> files = Files.walk(dir)) {
      return files
          .filter(Files::isRegularFile)
          .filter(
              f -> {
                try {
                  return SparkTestBase.indexOf(Files.readAllBytes(f), needle) >= 0;
                } catch (IOException e) {
                  throw new UncheckedIOException(e);
                }
              })
          .collect(Collectors.toList());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Test
  void creatingANonIcebergTableUnderAPolicyNameIsRefused() {
    String[] cause = {
      "spark_catalog.db.sq",
      "lists it as a protected table",
      "parquet table",
      "protected columns [ssn]",
      "USING iceberg"
    };
    assertRefused(
        () -> spark.sql("CREATE TABLE db.sq (id BIGINT, ssn STRING) USING parquet"),
        withPrefix("Cannot create ", cause));
    assertRefused(
        () ->
            spark.sql(
                "CREATE TABLE db.sq USING parquet AS SELECT 1L AS id, '" + CANARY + "1' AS ssn"),
        withPrefix("Cannot create ", cause));
    // Spark 4.1 plans a V1 saveAsTable as a write to the new table, refused before it creates it
    boolean asWrite = org.apache.spark.package$.MODULE$.SPARK_VERSION().compareTo("4.1") >= 0;
    assertRefused(
        () -> rows(2).write().format("parquet").saveAsTable("db.sq"),
        withPrefix(asWrite ? "Cannot write to " : "Cannot create ", cause));
    assertThat(spark.catalog().tableExists("db.sq")).isFalse();
    assertRefused(
        () -> rows(3).writeTo("db.sq").using("parquet").create(),
        withPrefix("Cannot create ", cause));
    spark.sql("CREATE TABLE db.other (id BIGINT, ssn STRING) USING parquet");
    assertRefused(
        () -> spark.sql("CREATE TABLE db.sq LIKE db.other"), withPrefix("Cannot create ", cause));
    // Spark itself refuses RTAS for V1 sources of the session catalog
    Throwable replace =
        catchThrowable(
            () ->
                spark.sql(
                    "CREATE OR REPLACE TABLE db.sq USING parquet AS SELECT 4L AS id, '"
                        + CANARY
                        + "4' AS ssn"));
    assertThat(replace)
        .isInstanceOf(org.apache.spark.sql.AnalysisException.class)
        .hasMessageContaining("does not support REPLACE TABLE AS SELECT");
    assertRefused(
        () -> spark.sql("ALTER TABLE db.other RENAME TO db.sq"),
        "Cannot rename a table to spark_catalog.db.sq",
        "parquet table");
    assertThat(exists("db.sq")).isFalse();
    assertThat(plaintextFiles(sparkWarehouse)).isEmpty();
  }

  private static String[] withPrefix(String prefix, String[] cause) {
    String[] out = cause.clone();
    out[0] = prefix + cause[0];
    return out;
  }

  @Test
  void aPlaintextTableUnderAPolicyNameIsNeitherReadNorWritten() throws Exception {
    // made before the policy listed its name, or by another engine: simulated below Spark's checks
    spark.sql("CREATE TABLE db.other (id BIGINT, ssn STRING) USING parquet");
    spark.sql("INSERT INTO db.other VALUES (1, '" + CANARY + "1')");
    spark.sessionState().catalog().externalCatalog().renameTable("db", "other", "sq");
    String location =
        spark
            .sessionState()
            .catalog()
            .getTableMetadata(
                new org.apache.spark.sql.catalyst.TableIdentifier("sq", scala.Option.apply("db")))
            .location()
            .toString();

    String[] refusal = {"spark_catalog.db.sq", "parquet table", "USING iceberg"};
    assertRefused(() -> spark.sql("SELECT ssn FROM db.sq").collectAsList(), refusal);
    assertRefused(() -> spark.table("db.sq").collectAsList(), refusal);
    assertRefused(() -> spark.sql("INSERT INTO db.sq VALUES (2, '" + CANARY + "2')"), refusal);
    assertRefused(() -> rows(3).write().insertInto("db.sq"), refusal);
    assertRefused(() -> rows(4).write().mode(SaveMode.Append).saveAsTable("db.sq"), refusal);
    assertRefused(
        () -> rows(5).write().mode(SaveMode.Append).parquet(location),
        "Cannot write files",
        "into the location of spark_catalog.db.sq",
        "parquet table");
    assertThat(plaintextFiles(sparkWarehouse)).hasSize(1); // only the planted file
    spark.sql("DROP TABLE db.sq");
    assertThat(exists("db.sq")).isFalse();
  }

  @Test
  void aTableUnderAProtectedPathPrefixIsProtectedByPath() {
    Path location = root.resolve("prot").resolve("sq");
    spark.sql(
        "CREATE TABLE db.sq (id BIGINT, ssn STRING) USING parquet LOCATION '" + location + "'");
    spark.sql("INSERT INTO db.sq VALUES (1, '" + CANARY + "1')");
    assertThat(plaintextFiles(location)).isEmpty();
    // path protection applies: etl writes, but is no reader of ssn
    assertThat(spark.sql("SELECT ssn FROM db.sq").first().isNullAt(0)).isTrue();
  }

  @Test
  void icebergTablesOfThePolicyAreProtectedAsBefore() {
    spark.sql("CREATE TABLE db.ice (id BIGINT, ssn STRING) USING iceberg");
    spark.sql("INSERT INTO db.ice VALUES (1, '" + CANARY + "1')");
    assertThat(plaintextFiles(root.resolve("iceberg"))).isEmpty();
    spark.conf().set("spark.sql.catalog.spark_catalog.protector.user", "mallory");
    try {
      assertRefused(
          () -> spark.sql("ALTER TABLE db.ice RENAME COLUMN ssn TO x"),
          "Principal 'mallory' (roles [])",
          "protected table spark_catalog.db.ice");
      assertRefused(
          () -> spark.sql("CALL spark_catalog.system.expire_snapshots(table => 'db.ice')"),
          "Principal 'mallory'",
          "CALL spark_catalog.system.expire_snapshots",
          "protected table spark_catalog.db.ice");
      assertRefused(() -> spark.sql("DROP TABLE db.ice"), "Principal 'mallory'", "DROP TABLE");
    } finally {
      spark.conf().set("spark.sql.catalog.spark_catalog.protector.user", "etl");
    }
    assertRefused(
        () ->
            spark.sql(
                "CALL spark_catalog.system.add_files(table => '`db`.`ice`', source_table => 'db.other')"),
        "Procedure add_files is not supported on protected table spark_catalog.db.ice");
    assertThat(spark.table("db.ice").count()).isEqualTo(1);
  }
}
