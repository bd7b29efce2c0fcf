/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.spark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.icebergprotector.spark.core.ProtectionSpec;
import io.icebergprotector.spark.core.ProtectorException;
import io.icebergprotector.spark.crypto.ProtectorCrypto;
import io.icebergprotector.spark.inspect.ColumnReport;
import io.icebergprotector.spark.inspect.FooterReport;
import io.icebergprotector.spark.inspect.ParquetFooterInspector;
import io.icebergprotector.spark.table.ProtectedTable;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Table;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SaveMode;
import org.apache.spark.sql.connector.catalog.Identifier;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Every write entry point stores protected columns encrypted; reads differ per role. */
class ProtectedTableTest extends SparkTestBase {
  private static final String T = "prot.db.customers";
  private static final String DDL =
      "CREATE TABLE "
          + T
          + " (id BIGINT, name STRING, ssn STRING, email STRING,"
          + " salary DECIMAL(10,2), address STRUCT<city: STRING, zip: STRING>, country STRING)"
          + " USING iceberg PARTITIONED BY (country)";

  @BeforeAll
  static void sourceData() {
    spark.sql(
        "CREATE OR REPLACE TEMP VIEW src AS SELECT id, concat('name', id) AS name,"
            + " concat('CANARY-SSN-', lpad(CAST(id AS STRING), 6, '0')) AS ssn,"
            + " concat('canary', id, '@example.test') AS email,"
            + " CAST(id * 1000.25 AS DECIMAL(10,2)) AS salary,"
            + " named_struct('city', concat('city', id % 3), 'zip', concat('CANARYZIP', id)) AS address,"
            + " CASE WHEN id % 2 = 0 THEN 'DE' ELSE 'FR' END AS country FROM range(1, 41)");
  }

  @BeforeEach
  void dropTable() {
    spark.sql("DROP TABLE IF EXISTS " + T + " PURGE");
  }

  private static Dataset<Row> src() {
    return spark.table("src");
  }

  // ---------------------------------------------------------------- write entry points

  @Test
  void insertInto() {
    spark.sql(DDL);
    spark.sql("INSERT INTO " + T + " SELECT * FROM src");
    assertProtectedAtRest(40);
  }

  @Test
  void insertOverwriteStatic() {
    spark.sql(DDL);
    spark.sql("INSERT INTO " + T + " SELECT * FROM src");
    spark.sql(
        "INSERT OVERWRITE "
            + T
            + " PARTITION (country = 'DE')"
            + " SELECT id, name, ssn, email, salary, address FROM src WHERE id <= 10");
    // 20 FR rows kept, DE replaced by the 10 first ids
    assertProtectedAtRest(30);
  }

  @Test
  void insertOverwriteDynamic() {
    spark.sql(DDL);
    spark.sql("INSERT INTO " + T + " SELECT * FROM src");
    spark.conf().set("spark.sql.sources.partitionOverwriteMode", "dynamic");
    try {
      spark.sql("INSERT OVERWRITE " + T + " SELECT * FROM src WHERE country = 'FR' AND id < 11");
    } finally {
      spark.conf().unset("spark.sql.sources.partitionOverwriteMode");
    }
    assertProtectedAtRest(25);
  }

  @Test
  void createTableAsSelect() {
    spark.sql("CREATE TABLE " + T + " USING iceberg AS SELECT * FROM src");
    assertProtectedAtRest(40);
  }

  @Test
  void replaceTableAsSelect() {
    spark.sql("CREATE TABLE " + T + " USING iceberg AS SELECT * FROM src WHERE id < 5");
    spark.sql(
        "REPLACE TABLE " + T + " USING iceberg PARTITIONED BY (country) AS SELECT * FROM src");
    assertProtectedAtRest(40);
  }

  @Test
  void dataFrameWriterV2() throws Exception {
    spark.sql(DDL);
    src().writeTo(T).append();
    assertProtectedAtRest(40);
    src()
        .where("id <= 4")
        .writeTo(T)
        .overwrite(org.apache.spark.sql.functions.col("country").equalTo("DE"));
    // 20 FR rows stay, DE is replaced by ids 1..4 (both countries: overwrite does not filter input)
    assertProtectedAtRest(24);
    src().where("id > 30").writeTo(T).overwritePartitions();
    assertProtectedAtRest(10);
  }

  @Test
  void dataFrameWriterV1() {
    spark.sql(DDL);
    src().write().format("iceberg").mode(SaveMode.Append).save(T);
    assertProtectedAtRest(40);
    src().where("id <= 7").write().format("iceberg").mode(SaveMode.Overwrite).save(T);
    assertProtectedAtRest(7);
    spark.sql("DROP TABLE " + T + " PURGE");
    src().write().format("iceberg").mode(SaveMode.ErrorIfExists).saveAsTable(T);
    assertProtectedAtRest(40);
    src().write().format("iceberg").mode(SaveMode.Append).saveAsTable(T);
    assertProtectedAtRest(80);
  }

  // ---------------------------------------------------------------- reads per role

  @Test
  void eachRoleGetsItsView() {
    spark.sql(DDL);
    spark.sql("INSERT INTO " + T + " SELECT * FROM src");
    String q =
        "SELECT id, name, ssn, email, salary, address.city, address.zip FROM "
            + T
            + " WHERE id = 7";

    Row admin = sqlAs("alice", q).get(0);
    assertThat(admin.getString(2)).isEqualTo("CANARY-SSN-000007");
    assertThat(admin.getString(3)).isEqualTo("canary7@example.test");
    assertThat(admin.getDecimal(4)).isEqualByComparingTo("7001.75");
    assertThat(admin.getString(6)).isEqualTo("CANARYZIP7");

    Row analyst = sqlAs("bob", q).get(0);
    assertThat(analyst.getString(1)).isEqualTo("name7");
    assertThat(analyst.getString(2)).isEqualTo("*************0007");
    assertThat(analyst.getString(3)).matches("[0-9a-f]{64}");
    assertThat(analyst.isNullAt(4)).as("salary denied for analyst").isTrue();
    assertThat(analyst.getString(5)).isEqualTo("city1");
    assertThat(analyst.isNullAt(6)).as("zip denied for analyst").isTrue();

    // the hash mask is deterministic, so masked values still join and group
    Row analystAgain = sqlAs("bob", q).get(0);
    assertThat(analystAgain.getString(3)).isEqualTo(analyst.getString(3));

    Row nobody = sqlAs("mallory", q).get(0);
    assertThat(nobody.getString(1)).isEqualTo("name7");
    for (int i = 2; i <= 6; i++) {
      if (i != 5) {
        assertThat(nobody.isNullAt(i)).as("column %d for a principal without role", i).isTrue();
      }
    }
  }

  @Test
  void groupMembershipGrantsTheRole() {
    spark.sql(DDL);
    spark.sql("INSERT INTO " + T + " SELECT * FROM src");
    spark.conf().set("spark.sql.catalog.prot.protector.groups", "secops");
    try {
      Row row = sqlAs("carol", "SELECT ssn FROM " + T + " WHERE id = 3").get(0);
      assertThat(row.getString(0)).isEqualTo("CANARY-SSN-000003");
    } finally {
      spark.conf().unset("spark.sql.catalog.prot.protector.groups");
    }
  }

  @Test
  void protectedColumnsAreNullableInTheSchema() {
    spark.sql(DDL);
    var schema = spark.table(T).schema();
    assertThat(schema.apply("ssn").nullable()).isTrue();
    assertThat(schema.apply("salary").nullable()).isTrue();
  }

  @Test
  void filterOnDeniedColumnBehavesLikeNull() {
    spark.sql(DDL);
    spark.sql("INSERT INTO " + T + " SELECT * FROM src");
    assertThat(sqlAs("bob", "SELECT * FROM " + T + " WHERE salary > 0")).isEmpty();
    assertThat(sqlAs("bob", "SELECT * FROM " + T + " WHERE address.zip = 'CANARYZIP7'")).isEmpty();
    assertThat(
            sqlAs("bob", "SELECT count(*) FROM " + T + " WHERE salary IS NULL").get(0).getLong(0))
        .isEqualTo(40L);
    assertThat(
            sqlAs("alice", "SELECT count(*) FROM " + T + " WHERE salary > 20000").get(0).getLong(0))
        .isEqualTo(21L);
    // masked: filters see the mask, not the clear value
    assertThat(sqlAs("bob", "SELECT * FROM " + T + " WHERE ssn = 'CANARY-SSN-000007'")).isEmpty();
  }

  @Test
  void onDeniedFailRefusesTheQuery() {
    spark.sql("CREATE TABLE prot.db.strict (id BIGINT, salary DECIMAL(10,2)) USING iceberg");
    spark.sql("INSERT INTO prot.db.strict VALUES (1, 10.50)");
    assertThat(sqlAs("alice", "SELECT salary FROM prot.db.strict").get(0).getDecimal(0))
        .isEqualByComparingTo("10.50");
    assertThat(sqlAs("bob", "SELECT id FROM prot.db.strict")).hasSize(1);
    assertThatThrownBy(() -> sqlAs("bob", "SELECT salary FROM prot.db.strict"))
        .hasStackTraceContaining("salary")
        .hasStackTraceContaining("bob")
        .hasStackTraceContaining("fail");
    spark.sql("DROP TABLE prot.db.strict PURGE");
  }

  @Test
  void timeTravelAndMetadataTables() {
    spark.sql(DDL);
    spark.sql("INSERT INTO " + T + " SELECT * FROM src WHERE id <= 10");
    long first = spark.sql("SELECT snapshot_id FROM " + T + ".snapshots").first().getLong(0);
    spark.sql("INSERT INTO " + T + " SELECT * FROM src WHERE id > 10");
    assertThat(sqlAs("alice", "SELECT ssn FROM " + T + " VERSION AS OF " + first)).hasSize(10);
    List<Row> bob = sqlAs("bob", "SELECT salary FROM " + T + " VERSION AS OF " + first);
    assertThat(bob).hasSize(10).allMatch(r -> r.isNullAt(0));
    assertThat(spark.sql("SELECT * FROM " + T + ".snapshots").count()).isEqualTo(2);
    assertThat(spark.sql("SELECT * FROM " + T + ".files").count()).isGreaterThanOrEqualTo(2);
  }

  @Test
  void rowLevelOperationsThatCopyDeniedColumnsAndDataRewritingProceduresAreRefused() {
    spark.sql(DDL);
    spark.sql("INSERT INTO " + T + " SELECT * FROM src");
    // etl writes but reads no protected column in clear: copy-on-write would copy them as NULL
    assertThatThrownBy(() -> spark.sql("DELETE FROM " + T + " WHERE id = 1"))
        .isInstanceOf(ProtectorException.class)
        .hasMessageContaining("may not run DELETE (copy-on-write) on protected table db.customers")
        .hasMessageContaining("ssn: denied");
    assertThatThrownBy(() -> spark.sql("UPDATE " + T + " SET name = 'x' WHERE id = 1"))
        .isInstanceOf(ProtectorException.class)
        .hasMessageContaining("may not run UPDATE (copy-on-write) on protected table db.customers");
    assertThatThrownBy(
            () ->
                spark.sql(
                    "MERGE INTO "
                        + T
                        + " t USING src s ON t.id = s.id"
                        + " WHEN MATCHED THEN UPDATE SET t.name = s.name"))
        .isInstanceOf(ProtectorException.class)
        .hasMessageContaining("may not run MERGE (copy-on-write) on protected table db.customers");
    // compaction copies every column: etl, who reads none of the protected ones, may not run it
    assertThatThrownBy(
            () -> spark.sql("CALL prot.system.rewrite_data_files(table => 'db.customers')"))
        .isInstanceOf(ProtectorException.class)
        .hasMessageContaining(
            "may not run CALL prot.system.rewrite_data_files on protected table db.customers")
        .hasMessageContaining("ssn: denied");
    assertThatThrownBy(
            () ->
                spark.sql(
                    "CALL prot.system.add_files(table => 'db.customers', source_table => '`parquet`.`/tmp/x`')"))
        .hasStackTraceContaining("Procedure add_files is not supported on protected table");
    assertThat(spark.table(T).count()).isEqualTo(40);
  }

  @Test
  void protectedPartitionSourceIsRefused() {
    assertThatThrownBy(
            () ->
                spark.sql(
                    "CREATE TABLE "
                        + T
                        + " (id BIGINT, ssn STRING, email STRING, salary DECIMAL(10,2),"
                        + " address STRUCT<city: STRING, zip: STRING>) USING iceberg PARTITIONED BY (bucket(4, ssn))"))
        .hasStackTraceContaining("partition")
        .hasStackTraceContaining("ssn");
    spark.sql(DDL);
    assertThatThrownBy(
            () -> spark.sql("ALTER TABLE " + T + " ADD PARTITION FIELD truncate(2, email)"))
        .hasStackTraceContaining("email");
  }

  @Test
  void unknownPolicyColumnRefusesWrites() {
    assertThatThrownBy(
            () -> spark.sql("CREATE TABLE " + T + " (id BIGINT, ssn STRING) USING iceberg"))
        .hasStackTraceContaining("email");
  }

  @Test
  void nonWriterCannotWrite() {
    spark.sql(DDL);
    asUser(
        "bob",
        () ->
            assertThatThrownBy(() -> spark.sql("INSERT INTO " + T + " SELECT * FROM src"))
                .hasStackTraceContaining("bob")
                .hasStackTraceContaining("not a writer"));
  }

  @Test
  void unprotectedTablesAreIcebergsOwn() throws Exception {
    spark.sql("CREATE TABLE prot.db.plain (id BIGINT, ssn STRING) USING iceberg");
    spark.sql("INSERT INTO prot.db.plain VALUES (1, 'PLAIN-CANARY-1')");
    var table = catalog().loadTable(Identifier.of(new String[] {"db"}, "plain"));
    assertThat(table).isNotInstanceOf(ProtectedTable.class);
    assertThat(filesContaining("db.plain", "PLAIN-CANARY-1")).isNotEmpty();
    spark.sql("DELETE FROM prot.db.plain WHERE id = 1");
    spark.sql("DROP TABLE prot.db.plain PURGE");
  }

  // ---------------------------------------------------------------- helpers

  static ProtectingSparkCatalog catalog() {
    return (ProtectingSparkCatalog) spark.sessionState().catalogManager().catalog("prot");
  }

  static Table icebergTable() {
    try {
      return ((ProtectedTable) catalog().loadTable(Identifier.of(new String[] {"db"}, "customers")))
          .table();
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  private static void assertProtectedAtRest(long expectedRows) {
    assertThat(sqlAs("alice", "SELECT count(*) FROM " + T).get(0).getLong(0))
        .isEqualTo(expectedRows);
    assertThat(dataFiles("db.customers")).isNotEmpty();
    assertThat(filesContaining("db.customers", "CANARY-SSN-0000", "@example.test", "CANARYZIP"))
        .as("plaintext of protected columns at rest")
        .isEmpty();
    assertThat(filesContaining("db.customers", "name1"))
        .as("unprotected column is readable")
        .isNotEmpty();

    Table table = icebergTable();
    table.refresh();
    Set<Integer> protectedIds =
        Set.of("ssn", "email", "salary", "address.zip").stream()
            .map(c -> table.schema().findField(c).fieldId())
            .collect(Collectors.toSet());
    int idField = table.schema().findField("id").fieldId();
    try (CloseableIterable<FileScanTask> tasks = table.newScan().includeColumnStats().planFiles()) {
      for (FileScanTask task : tasks) {
        DataFile file = task.file();
        Map<Integer, ?> lower = file.lowerBounds();
        Map<Integer, ?> upper = file.upperBounds();
        assertThat(lower).as("bounds of unprotected id").containsKey(idField);
        for (int id : protectedIds) {
          assertThat(lower == null ? Map.of() : lower).doesNotContainKey(id);
          assertThat(upper == null ? Map.of() : upper).doesNotContainKey(id);
          assertThat(file.columnSizes()).doesNotContainKey(id);
          assertThat(file.valueCounts()).doesNotContainKey(id);
        }
        assertThat(file.valueCounts()).as("counts of unprotected id").containsKey(idField);
      }
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
    assertFootersEncryptUnderPolicyKeys();
    List<Row> analyst = sqlAs("bob", "SELECT ssn, salary, address.zip FROM " + T + " LIMIT 3");
    assertThat(analyst)
        .allSatisfy(
            r -> {
              assertThat(r.getString(0)).startsWith("*");
              assertThat(r.isNullAt(1)).isTrue();
              assertThat(r.isNullAt(2)).isTrue();
            });
  }

  /** Each data file's footer marks the protected columns encrypted under their policy keys. */
  private static void assertFootersEncryptUnderPolicyKeys() {
    ProtectionSpec alice = specFor("alice");
    Map<String, String> expected =
        Map.of("ssn", "pii", "email", "pii", "salary", "fin", "address.zip", "pii");
    for (java.nio.file.Path file : dataFiles("db.customers")) {
      FooterReport report =
          ParquetFooterInspector.inspect(
              file,
              ProtectorCrypto.fileDecryption(
                  alice, file.toString(), bindingOf("prot.db.customers")));
      assertThat(report.footerMode()).isEqualTo(FooterReport.FooterMode.ENCRYPTED);
      assertThat(report.footerKey().map(k -> k.masterKeyId())).contains("footer");
      for (ColumnReport column : report.columns()) {
        String key = expected.get(column.path());
        if (key == null) {
          assertThat(column.encrypted()).as("%s in %s", column.path(), file).isFalse();
        } else {
          assertThat(column.encrypted()).as("%s in %s", column.path(), file).isTrue();
          assertThat(column.keyMaterial().map(k -> k.masterKeyId()))
              .as("master key of %s", column.path())
              .contains(key);
        }
      }
    }
  }
}
