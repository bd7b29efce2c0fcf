/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.spark.procedures;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.icebergprotector.spark.ProtectingSparkCatalog;
import io.icebergprotector.spark.SparkTestBase;
import io.icebergprotector.spark.core.RecordedColumns;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Iceberg's procedures on protected tables: table arguments are resolved as Iceberg resolves them,
 * so quoting, catalog prefixes and the current namespace do not bypass the guard; importing
 * procedures are refused; procedures that change a table's state need a writer role.
 */
class ProcedureGuardTest extends SparkTestBase {
  private static final String T = "prot.db.customers";
  private static final String WRITERS = "writer roles [admin, etl]";
  private static String plaintextFiles;

  @BeforeAll
  static void plaintextSource() {
    plaintextFiles = root.resolve("plaintext-source").toUri().toString();
    spark
        .sql(
            "SELECT CAST(id + 1000 AS BIGINT) AS id, 'intruder' AS name, 'INJECTED-SSN' AS ssn,"
                + " 'injected@example.test' AS email, CAST(1 AS DECIMAL(10,2)) AS salary,"
                + " named_struct('city', 'x', 'zip', 'INJECTEDZIP') AS address, 'FR' AS country"
                + " FROM range(3)")
        .write()
        .parquet(plaintextFiles);
  }

  @BeforeEach
  void createTable() {
    spark.sql("USE spark_catalog.default");
    spark.sql("DROP TABLE IF EXISTS " + T + " PURGE");
    spark.sql("DROP TABLE IF EXISTS prot.db.plain PURGE");
    spark.sql(
        "CREATE TABLE "
            + T
            + " (id BIGINT, name STRING, ssn STRING, email STRING,"
            + " salary DECIMAL(10,2), address STRUCT<city: STRING, zip: STRING>, country STRING)"
            + " USING iceberg");
    spark.sql(
        "INSERT INTO "
            + T
            + " VALUES (1, 'n1', 'PROC-SSN-1', 'p1@example.test', 1.00,"
            + " named_struct('city', 'c', 'zip', 'PROCZIP1'), 'DE')");
    spark.sql(
        "INSERT INTO "
            + T
            + " VALUES (2, 'n2', 'PROC-SSN-2', 'p2@example.test', 2.00,"
            + " named_struct('city', 'c', 'zip', 'PROCZIP2'), 'FR')");
  }

  private static String addFiles(String table) {
    return "CALL prot.system.add_files(table => '"
        + table
        + "', source_table => '`parquet`.`"
        + plaintextFiles
        + "`')";
  }

  private static void assertNothingInjected() {
    assertThat(spark.table(T).count()).isEqualTo(2);
    assertThat(filesContaining("db.customers", "INJECTED-SSN", "INJECTEDZIP")).isEmpty();
  }

  @Test
  void quotingAndCatalogPrefixesDoNotBypassTheGuard() {
    // a writer, even: add_files imports plaintext files
    for (String name :
        List.of(
            "`db`.`customers`",
            "prot.db.customers",
            "`prot`.`db`.`customers`",
            "db.`customers`",
            "db.customers",
            "DB.customers",
            "db.CUSTOMERS")) {
      assertRefused(
          () -> spark.sql(addFiles(name)),
          "Procedure add_files is not supported on protected table " + T,
          "table => '" + name + "'",
          "rewrite_protected");
    }
    assertRefusedAs(
        "mallory", addFiles("`db`.`customers`"), "Procedure add_files", "protected table " + T);
    try {
      spark.sql("USE prot.db");
      assertRefused(
          () -> spark.sql(addFiles("customers")),
          "Procedure add_files is not supported on protected table " + T,
          "table => 'customers'");
      assertRefused(
          () ->
              spark.sql(
                  "CALL system.add_files(table => '`customers`', source_table => '`parquet`.`"
                      + plaintextFiles
                      + "`')"),
          "Procedure add_files is not supported on protected table " + T);
    } finally {
      spark.sql("USE spark_catalog.default");
    }
    // catalog names are case-sensitive: PROT is no catalog, and prot has no namespace PROT.DB
    Throwable thrown = catchThrowable(() -> spark.sql(addFiles("PROT.DB.CUSTOMERS")));
    assertThat(thrown).hasMessageContaining("PROT.DB");
    assertNothingInjected();
  }

  @Test
  void addFilesStillWorksOnUnprotectedTables() {
    spark.sql(
        "CREATE TABLE prot.db.plain (id BIGINT, name STRING, ssn STRING, email STRING,"
            + " salary DECIMAL(10,2), address STRUCT<city: STRING, zip: STRING>, country STRING)"
            + " USING iceberg");
    spark.sql(addFiles("`db`.`plain`"));
    assertThat(spark.table("prot.db.plain").count()).isEqualTo(3);
    spark.sql("DROP TABLE prot.db.plain PURGE");
  }

  @Test
  void aTableProtectedByRecordedFieldIdsIsCaughtUnderAnyName() throws Exception {
    // a table that holds protected columns but no longer has a policy entry (renamed elsewhere,
    // or its entry removed) fails to load: procedures fail with that error, they do not run
    spark.sql(
        "CREATE TABLE prot.db.plain (id BIGINT, name STRING, ssn STRING, email STRING,"
            + " salary DECIMAL(10,2), address STRUCT<city: STRING, zip: STRING>, country STRING)"
            + " USING iceberg");
    org.apache.iceberg.Table plain =
        ((ProtectingSparkCatalog) spark.sessionState().catalogManager().catalog("prot"))
            .icebergCatalog()
            .loadTable(org.apache.iceberg.catalog.TableIdentifier.of("db", "plain"));
    int ssnId = plain.schema().findField("ssn").fieldId();
    plain.updateProperties().set(RecordedColumns.PROPERTY, "ssn=" + ssnId + ":pii").commit();
    try {
      assertRefused(
          () -> spark.sql(addFiles("`db`.`plain`")),
          "Table prot.db.plain holds protected columns [ssn]",
          "no longer lists the table");
      assertRefusedAs(
          "mallory",
          "CALL prot.system.expire_snapshots(table => 'db.plain')",
          "Table prot.db.plain holds protected columns [ssn]");
    } finally {
      plain.updateProperties().remove(RecordedColumns.PROPERTY).commit();
    }
    assertThat(spark.table("prot.db.plain").count()).isZero();
  }

  @Test
  void importingProceduresAreRefusedOnProtectedNames() {
    assertRefused(
        () -> spark.sql("CALL prot.system.migrate(table => 'prot.db.customers')"),
        "Procedure migrate is not supported on protected table " + T,
        "rewrite_protected");
    // a destination that does not exist yet, but that the policy lists
    assertRefused(
        () ->
            spark.sql(
                "CALL prot.system.snapshot(source_table => 'default.nothing', table => 'prot.db.strict')"),
        "Procedure snapshot is not supported on protected table prot.db.strict");
    assertRefused(
        () ->
            spark.sql(
                "CALL prot.system.migrate(table => 'default.nothing',"
                    + " properties => map('protector.protected-columns', 'id=1:pii'))"),
        "Cannot set table property 'protector.protected-columns'");
    assertRefused(
        () -> spark.sql("CALL prot.system.create_changelog_view(table => '`db`.`customers`')"),
        "Procedure create_changelog_view is not supported on protected table " + T,
        "it would read protected columns outside the protected read path");
    assertNothingInjected();
  }

  @Test
  void stateChangingProceduresNeedTheWriterRole() {
    long first =
        spark
            .sql("SELECT snapshot_id FROM " + T + ".snapshots ORDER BY committed_at LIMIT 1")
            .first()
            .getLong(0);
    List<String> calls =
        List.of(
            "rollback_to_snapshot(table => '`db`.`customers`', snapshot_id => " + first + ")",
            "rollback_to_timestamp(table => 'prot.db.customers', timestamp => TIMESTAMP '2000-01-01 00:00:00')",
            "set_current_snapshot(table => 'db.customers', snapshot_id => " + first + ")",
            "cherrypick_snapshot(table => 'db.customers', snapshot_id => " + first + ")",
            "expire_snapshots(table => 'db.customers', older_than => TIMESTAMP '2999-01-01 00:00:00', retain_last => 1)",
            "remove_orphan_files(table => 'db.customers', dry_run => true)",
            "rewrite_manifests(table => 'db.customers')",
            "fast_forward(table => 'db.customers', branch => 'main', to => 'audit')",
            "publish_changes(table => 'db.customers', wap_id => 'w1')",
            "compute_partition_stats(table => 'db.customers')",
            "rewrite_table_path(table => 'db.customers', source_prefix => 'file:/a', target_prefix => 'file:/b')");
    for (String call : calls) {
      String name = call.substring(0, call.indexOf('('));
      assertRefusedAs(
          "mallory",
          "CALL prot.system." + call,
          "Principal 'mallory' (roles [])",
          "CALL prot.system." + name,
          "protected table " + T,
          WRITERS);
    }
    assertRefusedAs(
        "bob", "CALL prot.system." + calls.get(0), "Principal 'bob' (roles [analyst])", WRITERS);
    // registering metadata under a protected name
    assertRefusedAs(
        "mallory",
        "CALL prot.system.register_table(table => 'db.strict', metadata_file => 'file:/nothing.json')",
        "CALL prot.system.register_table",
        "protected table prot.db.strict",
        "writer roles [etl]");
    assertThat(spark.sql("SELECT * FROM " + T + ".snapshots").count()).isEqualTo(2);

    // reading history is open to everyone; writers roll back
    asUser(
        "mallory",
        () ->
            assertThat(spark.sql("CALL prot.system.ancestors_of(table => 'db.customers')").count())
                .isEqualTo(2));
    spark.sql("CALL prot.system." + calls.get(0));
    assertThat(spark.table(T).count()).isEqualTo(1);
    assertThat(sqlAs("alice", "SELECT ssn FROM " + T).get(0).getString(0)).isEqualTo("PROC-SSN-1");
  }
}
