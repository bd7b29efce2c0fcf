/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.spark.rowlevel;

import static org.assertj.core.api.Assertions.assertThat;

import io.icebergprotector.spark.binding.FileAdmission;
import io.icebergprotector.spark.compat.ScalaCollections;
import io.icebergprotector.spark.read.ProtectedScan;
import io.icebergprotector.spark.write.ProtectedCommit;
import java.io.IOException;
import java.math.BigDecimal;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.iceberg.ContentFile;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileContent;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.shaded.org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.iceberg.shaded.org.apache.parquet.io.LocalInputFile;
import org.apache.iceberg.shaded.org.apache.parquet.schema.Type;
import org.apache.iceberg.spark.CommitMetadata;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.execution.SparkPlan;
import org.apache.spark.sql.execution.datasources.v2.BatchScanExec;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * DELETE, UPDATE and MERGE on protected tables, end to end, in both write modes and on format
 * versions 2 (position delete files) and 3 (deletion vectors): results per role, nothing in
 * plaintext at rest, no metrics of protected columns, only position deletes without row data, and
 * the same rows read row by row and in columnar batches.
 */
class RowLevelOperationsTest extends RowLevelTestBase {
  static Stream<Arguments> modes() {
    return Stream.of(
        Arguments.of(0, 2, "copy-on-write"),
        Arguments.of(1, 2, "merge-on-read"),
        Arguments.of(2, 3, "copy-on-write"),
        Arguments.of(3, 3, "merge-on-read"));
  }

  static Map<String, String> properties(int formatVersion, String mode) {
    Map<String, String> properties = new HashMap<>();
    properties.put("format-version", Integer.toString(formatVersion));
    properties.put("write.delete.mode", mode);
    properties.put("write.update.mode", mode);
    properties.put("write.merge.mode", mode);
    return properties;
  }

  @ParameterizedTest(name = "format v{1}, {2}")
  @MethodSource("modes")
  void deleteUpdateAndMergeByAClearWriter(int index, int formatVersion, String mode) {
    String t = "db.t" + index;
    create(t, properties(formatVersion, mode));
    insert(t, 1, 10);
    insert(t, 11, 20);
    Map<Long, Long> rowIds = formatVersion >= 3 ? rowIds(t) : Map.of();

    as("alice", "DELETE FROM " + name(t) + " WHERE id = 3");
    as("alice", "DELETE FROM " + name(t) + " WHERE ssn = '" + ssn(4) + "'");
    as(
        "alice",
        "UPDATE "
            + name(t)
            + " SET email = '"
            + email(105)
            + "', salary = 1.50 WHERE ssn = '"
            + ssn(5)
            + "'");
    as(
        "alice",
        "MERGE INTO "
            + name(t)
            + " t USING (SELECT * FROM VALUES"
            + " (6L, 'update', '"
            + ssn(106)
            + "'), (7L, 'delete', NULL), (21L, 'insert', '"
            + ssn(21)
            + "') AS s(id, op, ssn)) s ON t.id = s.id"
            + " WHEN MATCHED AND t.email = '"
            + email(6)
            + "' THEN UPDATE SET ssn = s.ssn"
            + " WHEN MATCHED AND s.op = 'delete' THEN DELETE"
            + " WHEN NOT MATCHED THEN INSERT (id, name, ssn, email, salary, dept)"
            + " VALUES (s.id, 'name-21', s.ssn, '"
            + email(21)
            + "', 21.00, 'odd')");

    // alice reads every change in clear
    Map<Long, Row> rows = byId(as("alice", "SELECT id, ssn, email, salary FROM " + name(t)));
    assertThat(rows.keySet())
        .containsExactlyInAnyOrder(
            1L, 2L, 5L, 6L, 8L, 9L, 10L, 11L, 12L, 13L, 14L, 15L, 16L, 17L, 18L, 19L, 20L, 21L);
    assertThat(rows.get(5L).getString(2)).isEqualTo(email(105));
    assertThat(rows.get(5L).getDecimal(3)).isEqualByComparingTo(new BigDecimal("1.50"));
    assertThat(rows.get(6L).getString(1)).isEqualTo(ssn(106));
    assertThat(rows.get(6L).getString(2)).isEqualTo(email(6));
    assertThat(rows.get(21L).getString(1)).isEqualTo(ssn(21));
    assertThat(rows.get(20L).getString(1)).isEqualTo(ssn(20));
    assertThat(rows.get(20L).getDecimal(3)).isEqualByComparingTo(new BigDecimal(salary(20)));
    if (formatVersion >= 3) {
      // row lineage: updated and copied rows keep their row ids, a new row gets a new one
      Map<Long, Long> after = rowIds(t);
      assertThat(rowIds).hasSize(20).doesNotContainValue(null);
      for (long id : List.of(1L, 2L, 5L, 6L, 8L, 20L)) {
        assertThat(after.get(id)).as("_row_id of row %s", id).isEqualTo(rowIds.get(id));
      }
      assertThat(after.get(21L)).isNotNull().isNotIn(rowIds.values());
    }

    // bob sees masks, etl sees NULLs, on the rewritten rows as on the others
    Map<Long, Row> bob = byId(as("bob", "SELECT id, ssn, email, salary FROM " + name(t)));
    assertThat(bob).hasSize(18);
    assertThat(bob.get(6L).getString(1)).isEqualTo("*".repeat(11) + "0106");
    assertThat(bob.get(5L).getString(2)).doesNotContain("canary").hasSizeGreaterThan(10);
    assertThat(bob.values()).allMatch(r -> r.isNullAt(3));
    List<Row> etl = as("etl", "SELECT ssn, email, salary FROM " + name(t));
    assertThat(etl).hasSize(18).allMatch(r -> r.isNullAt(0) && r.isNullAt(1) && r.isNullAt(2));

    // at rest: no canary in any file (uncompressed), no metrics of protected columns
    List<String> canaries = canaries(1, 21);
    canaries.addAll(List.of(ssn(106), email(105)));
    assertThat(filesHolding(t, canaries)).isEmpty();
    assertNoProtectedMetrics(t);

    // data files are protected and bound; deletes are positions only
    Table table = iceberg(t);
    List<ContentFile<?>> live = liveFiles(table);
    List<DataFile> dataFiles = new ArrayList<>();
    List<DeleteFile> deleteFiles = new ArrayList<>();
    for (ContentFile<?> file : live) {
      if (file.content() == FileContent.DATA) {
        dataFiles.add((DataFile) file);
      } else {
        deleteFiles.add((DeleteFile) file);
      }
    }
    assertThat(dataFiles).allMatch(FileAdmission::bound);
    if (mode.equals("copy-on-write")) {
      assertThat(deleteFiles).isEmpty();
    } else {
      assertThat(deleteFiles)
          .isNotEmpty()
          .allMatch(f -> f.content() == FileContent.POSITION_DELETES);
      FileFormat expected = formatVersion >= 3 ? FileFormat.PUFFIN : FileFormat.PARQUET;
      assertThat(deleteFiles).allMatch(f -> f.format() == expected);
      if (expected == FileFormat.PARQUET) {
        for (DeleteFile delete : deleteFiles) {
          assertThat(parquetColumns(delete)).containsExactly("file_path", "pos");
        }
      }
    }
    for (Snapshot snapshot : table.snapshots()) {
      assertThat(snapshot.summary()).containsEntry(ProtectedCommit.PROTECTED_PROPERTY, "true");
    }

    // columnar and row-by-row reads apply the deletes alike
    List<Row> columnar = readAll(t, true);
    List<Row> byRow = readAll(t, false);
    assertThat(columnar).hasSize(18).isEqualTo(byRow);
  }

  private static Map<Long, Long> rowIds(String t) {
    Map<Long, Long> ids = new HashMap<>();
    for (Row row : as("alice", "SELECT id, _row_id FROM " + name(t))) {
      ids.put(row.getLong(0), row.isNullAt(1) ? null : row.getLong(1));
    }
    return ids;
  }

  /** Row positions stay right when row groups are pruned and files are split. */
  @Test
  void deletesApplyByFilePositionAcrossRowGroups() {
    String t = "db.t4";
    Map<String, String> properties = properties(2, "merge-on-read");
    properties.put("write.parquet.row-group-size-bytes", "2048");
    properties.put("write.parquet.page-size-bytes", "512");
    properties.put("write.target-file-size-bytes", "1073741824");
    create(t, properties);
    as(
        "alice",
        "INSERT INTO " + name(t) + " SELECT /*+ COALESCE(1) */ * FROM (" + values(1, 600) + ")");
    Table table = iceberg(t);
    assertThat(liveFiles(table)).hasSize(1);

    as("alice", "DELETE FROM " + name(t) + " WHERE id IN (2, 300, 301, 599)");
    for (boolean columnar : new boolean[] {true, false}) {
      setVectorization(columnar);
      try {
        assertThat(count("SELECT count(*) FROM " + name(t))).isEqualTo(596);
        assertThat(count("SELECT count(*) FROM " + name(t) + " WHERE id > 550")).isEqualTo(49);
        assertThat(count("SELECT count(*) FROM " + name(t) + " WHERE id BETWEEN 299 AND 302"))
            .isEqualTo(2);
        List<Row> split =
            spark
                .read()
                .option("split-size", "4096")
                .option("file-open-cost", "1")
                .table(name(t))
                .where("id >= 290 AND id <= 310")
                .select("id", "ssn")
                .collectAsList();
        assertThat(split).hasSize(19).noneMatch(r -> r.getLong(0) == 300 || r.getLong(0) == 301);
      } finally {
        setVectorization(true);
      }
    }
  }

  /** Commit properties of CommitMetadata and snapshot-property.* options reach every snapshot. */
  @Test
  void commitPropertiesAreKept() throws Exception {
    String t = "db.t5";
    create(t, properties(2, "merge-on-read"));
    // the catalog's principal is alice unless a test says otherwise
    spark
        .sql(
            values(1, 4).replace("VALUES", "SELECT * FROM VALUES")
                + " AS v(id, name, ssn, email, salary, dept)")
        .writeTo(name(t))
        .option("snapshot-property.ticket", "CHG-1")
        .append();
    CommitMetadata.withCommitProperties(
        Map.of("erasure-request", "ER-7"),
        () -> {
          spark.sql("DELETE FROM " + name(t) + " WHERE id = 2");
          spark.sql(
              "MERGE INTO "
                  + name(t)
                  + " t USING (SELECT 3L AS id) s ON t.id = s.id"
                  + " WHEN MATCHED THEN UPDATE SET dept = 'merged'");
          return 0;
        },
        RuntimeException.class);
    List<Snapshot> snapshots = new ArrayList<>();
    iceberg(t).snapshots().forEach(snapshots::add);
    assertThat(snapshots).hasSize(3);
    assertThat(snapshots.get(0).summary()).containsEntry("ticket", "CHG-1");
    assertThat(snapshots.get(1).summary())
        .containsEntry("erasure-request", "ER-7")
        .containsEntry("added-position-deletes", "1");
    assertThat(snapshots.get(2).summary()).containsEntry("erasure-request", "ER-7");
  }

  /** Dynamic partition pruning narrows a protected scan to the partitions a join needs. */
  @Test
  void dynamicPartitionPruningFiltersProtectedScans() {
    String t = "db.t6";
    as("alice", "DROP TABLE IF EXISTS " + name(t) + " PURGE");
    as(
        "alice",
        "CREATE TABLE "
            + name(t)
            + " (id BIGINT, name STRING, ssn STRING, email STRING,"
            + " salary DECIMAL(10,2), dept STRING) USING iceberg PARTITIONED BY (dept)"
            + " TBLPROPERTIES ('write.parquet.compression-codec'='uncompressed')");
    as(
        "alice",
        "INSERT INTO "
            + name(t)
            + " "
            + values(1, 10).replace("'even'", "'d-even'").replace("'odd'", "'d-odd'"));
    // over range(), so the filter on code stays a selective predicate (not folded away)
    spark.sql(
        "CREATE OR REPLACE TEMPORARY VIEW depts AS SELECT IF(id = 0, 'd-even', 'd-odd') AS dept,"
            + " id + 1 AS code FROM range(2)");
    String previous =
        spark.conf().get("spark.sql.optimizer.dynamicPartitionPruning.reuseBroadcastOnly");
    spark.conf().set("spark.sql.optimizer.dynamicPartitionPruning.reuseBroadcastOnly", "false");
    spark.conf().set("spark.sql.catalog." + CATALOG + ".protector.user", "alice");
    try {
      Dataset<Row> joined =
          spark.sql(
              "SELECT t.id, t.ssn FROM "
                  + name(t)
                  + " t JOIN depts d ON t.dept = d.dept"
                  + " WHERE d.code = 1");
      List<Row> rows = joined.collectAsList();
      assertThat(rows).hasSize(5).allMatch(r -> r.getLong(0) % 2 == 0);
      ProtectedScan scan = protectedScan(joined.queryExecution().executedPlan());
      assertThat(scan.files()).hasSize(1);
      assertThat(scan.description()).contains("runtimeFilters=");
    } finally {
      spark.conf().set("spark.sql.optimizer.dynamicPartitionPruning.reuseBroadcastOnly", previous);
    }
  }

  private static ProtectedScan protectedScan(SparkPlan plan) {
    SparkPlan executed =
        plan instanceof org.apache.spark.sql.execution.adaptive.AdaptiveSparkPlanExec
            ? ((org.apache.spark.sql.execution.adaptive.AdaptiveSparkPlanExec) plan).executedPlan()
            : plan;
    List<SparkPlan> scans = new ArrayList<>();
    collect(executed, scans);
    assertThat(scans).hasSize(1);
    return (ProtectedScan) ((BatchScanExec) scans.get(0)).scan();
  }

  private static void collect(SparkPlan plan, List<SparkPlan> out) {
    if (plan instanceof BatchScanExec && ((BatchScanExec) plan).scan() instanceof ProtectedScan) {
      out.add(plan);
    }
    if (plan instanceof org.apache.spark.sql.execution.adaptive.QueryStageExec) {
      collect(((org.apache.spark.sql.execution.adaptive.QueryStageExec) plan).plan(), out);
    }
    for (SparkPlan child : ScalaCollections.asJava(plan.children())) {
      collect(child, out);
    }
  }

  private static Map<Long, Row> byId(List<Row> rows) {
    return rows.stream().collect(Collectors.toMap(r -> r.getLong(0), r -> r));
  }

  private static List<Row> readAll(String table, boolean columnar) {
    setVectorization(columnar);
    try {
      return as(
          "alice",
          "SELECT id, name, ssn, email, salary, dept FROM " + name(table) + " ORDER BY id");
    } finally {
      setVectorization(true);
    }
  }

  private static void setVectorization(boolean enabled) {
    spark.conf().set("spark.sql.iceberg.vectorization.enabled", Boolean.toString(enabled));
  }

  private static long count(String query) {
    return as("alice", query).get(0).getLong(0);
  }

  private static List<String> parquetColumns(DeleteFile delete) {
    Path path = Path.of(java.net.URI.create(delete.location()));
    try (ParquetFileReader reader = ParquetFileReader.open(new LocalInputFile(path))) {
      return reader.getFooter().getFileMetaData().getSchema().getFields().stream()
          .map(Type::getName)
          .collect(Collectors.toList());
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }
}
