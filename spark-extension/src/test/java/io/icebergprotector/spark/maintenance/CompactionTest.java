/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.spark.maintenance;

import static io.icebergprotector.spark.TableFiles.assertBoundWithoutProtectedMetrics;
import static io.icebergprotector.spark.TableFiles.bytesOf;
import static io.icebergprotector.spark.TableFiles.liveFiles;
import static io.icebergprotector.spark.TableFiles.location;
import static io.icebergprotector.spark.TableFiles.overwrite;
import static io.icebergprotector.spark.TableFiles.writtenDataFiles;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.icebergprotector.spark.SparkTestBase;
import io.icebergprotector.spark.binding.FileIntegrityException;
import io.icebergprotector.spark.core.ProtectorException;
import io.icebergprotector.spark.crypto.FileMarker;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.StreamSupport;
import org.apache.iceberg.BlobMetadata;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileContent;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.StatisticsFile;
import org.apache.iceberg.Table;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.puffin.StandardBlobTypes;
import org.apache.iceberg.spark.Spark3Util;
import org.apache.spark.sql.Row;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Compaction ({@code CALL <catalog>.system.rewrite_data_files}) of a protected table runs Iceberg's
 * own procedure and action, reading and writing each file group through the protected paths: the
 * new files are encrypted under the current keys, bound and marked; only principals who read every
 * protected column in clear and write the table may run it; orderings by protected columns are
 * refused; conditions on protected columns never prune by manifest metrics.
 */
class CompactionTest extends SparkTestBase {
  private static final String T = "cmp.db.customers";
  private static final String CALL = "CALL cmp.system.rewrite_data_files(table => 'db.customers'";
  private static final String COLUMNS =
      "(id BIGINT, name STRING, ssn STRING, email STRING, salary DECIMAL(10,2),"
          + " address STRUCT<city: STRING, zip: STRING>, country STRING)";
  private static final String PROPERTIES =
      " TBLPROPERTIES ('format-version'='2', 'write.parquet.compression-codec'='uncompressed')";

  @BeforeAll
  static void catalogs() throws IOException {
    Path warehouse = Files.createTempDirectory(root, "compaction");
    addProtectingCatalog("cmp", warehouse);
    addPlainCatalog("cmp_plain", warehouse);
    spark.sql("CREATE NAMESPACE IF NOT EXISTS cmp.db");
  }

  @BeforeEach
  void dropTable() {
    spark.sql("DROP TABLE IF EXISTS " + T + " PURGE");
  }

  // ------------------------------------------------------------------ compaction

  @Test
  void aClearWriterCompactsSmallFilesThroughTheProtectedPath() {
    create("");
    for (int batch = 0; batch < 6; batch++) {
      insert(batch * 5, batch * 5 + 5);
    }
    Table table = icebergTable();
    List<DataFile> before = liveFiles(table);
    assertThat(before).hasSize(6);
    List<String> asAlice = rowsAs("alice");

    Row result = sqlAsCmp("alice", CALL + ", options => map('min-input-files', '2'))").get(0);
    assertThat(result.getInt(0)).as("rewritten data files").isEqualTo(6);
    assertThat(result.getInt(1)).as("added data files").isEqualTo(1);

    table.refresh();
    List<DataFile> after = liveFiles(table);
    assertThat(after).hasSize(1);
    assertThat(table.currentSnapshot().operation()).isEqualTo("replace");
    assertThat(rowsAs("alice")).isEqualTo(asAlice);
    assertPerRoleReads(30);
    assertProtectedAtRest(table, after);

    // every new file is bound: another file of the table in its place fails to read
    DataFile rewritten = after.get(0);
    byte[] original = bytesOf(rewritten);
    overwrite(rewritten, bytesOf(before.get(0)));
    try {
      Throwable failure = catchThrowable(() -> rowsAs("alice"));
      FileIntegrityException integrity = causeOf(failure, FileIntegrityException.class);
      assertThat(integrity.getMessage())
          .contains(rewritten.location())
          .contains("it is not the file the table expects");
    } finally {
      overwrite(rewritten, original);
    }
    assertThat(rowsAs("alice")).isEqualTo(asAlice);
  }

  @Test
  void onlyPrincipalsWhoReadEveryProtectedColumnInClearAndWriteMayCompact() {
    create("");
    insert(0, 3);
    insert(3, 6);
    Table table = icebergTable();
    long snapshot = table.currentSnapshot().snapshotId();
    String call = CALL + ", options => map('min-input-files', '2'))";

    // a writer who is denied the protected columns
    Throwable etl = catchThrowable(() -> sqlAsCmp("etl", call));
    assertThat(etl).isInstanceOf(ProtectorException.class);
    assertThat(etl.getMessage())
        .contains(
            "Principal 'etl' (roles [etl]) may not run CALL cmp.system.rewrite_data_files"
                + " on protected table db.customers")
        .contains(
            "does not read [ssn, email, salary, address.zip] in clear (ssn: denied,"
                + " email: denied, salary: denied, address.zip: denied)")
        .contains("clear roles ssn: [admin], email: [admin], salary: [admin], address.zip: [admin]")
        .contains("writer roles [admin, etl]")
        .contains("Nothing was written");
    // a masked reader who is no writer: both reasons
    Throwable bob = catchThrowable(() -> sqlAsCmp("bob", call));
    assertThat(bob).isInstanceOf(ProtectorException.class);
    assertThat(bob.getMessage())
        .contains("Principal 'bob' (roles [analyst]) may not run")
        .contains("ssn: masked, email: masked, salary: denied, address.zip: denied")
        .contains("it commits new data files, which only the table's writers may write")
        .contains("writer roles [admin, etl]");
    Throwable mallory = catchThrowable(() -> sqlAsCmp("mallory", call));
    assertThat(mallory).isInstanceOf(ProtectorException.class);
    assertThat(mallory.getMessage())
        .contains("Principal 'mallory' (roles []) may not run CALL cmp.system.rewrite_data_files");

    table.refresh();
    assertThat(table.currentSnapshot().snapshotId()).as("nothing committed").isEqualTo(snapshot);
    assertThat(liveFiles(table)).hasSize(2);
    assertThat(writtenDataFiles(table)).as("no file written").isEqualTo(2);
  }

  @Test
  void partialProgressConcurrencyAndFileSizeOptionsWorkPerPartition() {
    create(" PARTITIONED BY (country)");
    for (int batch = 0; batch < 3; batch++) {
      insert(batch * 9, batch * 9 + 9); // three countries: three files per insert
    }
    Table table = icebergTable();
    assertThat(liveFiles(table)).hasSize(9);
    int snapshotsBefore = snapshots(table).size();
    List<String> asAlice = rowsAs("alice");

    Row result =
        sqlAsCmp(
                "alice",
                CALL
                    + ", options => map('min-input-files', '2',"
                    + " 'partial-progress.enabled', 'true', 'partial-progress.max-commits', '3',"
                    + " 'max-concurrent-file-group-rewrites', '2',"
                    + " 'target-file-size-bytes', '134217728'))")
            .get(0);
    assertThat(result.getInt(0)).isEqualTo(9);
    assertThat(result.getInt(1)).isEqualTo(3);

    table.refresh();
    List<DataFile> after = liveFiles(table);
    assertThat(after).hasSize(3);
    assertThat(snapshots(table))
        .as("one commit per partition's group")
        .hasSize(snapshotsBefore + 3);
    assertThat(rowsAs("alice")).isEqualTo(asAlice);
    assertPerRoleReads(27);
    assertProtectedAtRest(table, after);

    // fewer files than min-input-files: nothing to do
    Row nothing = sqlAsCmp("alice", CALL + ", options => map('min-input-files', '5'))").get(0);
    assertThat(nothing.getInt(0)).isZero();
    table.refresh();
    assertThat(liveFiles(table)).hasSize(3);
  }

  // ------------------------------------------------------------------ orderings

  @Test
  void sortsAndZOrdersByProtectedColumnsAreRefusedByUnprotectedOnesWork() {
    create("");
    for (int batch = 0; batch < 3; batch++) {
      insert(batch * 4, batch * 4 + 4);
    }
    Table table = icebergTable();
    long snapshot = table.currentSnapshot().snapshotId();

    Throwable bySsn =
        catchThrowable(
            () -> sqlAsCmp("alice", CALL + ", strategy => 'sort', sort_order => 'ssn ASC')"));
    assertThat(bySsn).isInstanceOf(ProtectorException.class);
    assertThat(bySsn.getMessage())
        .contains(
            "Cannot order protected table cmp.db.customers by protected column 'ssn'"
                + " (sort_order => 'ssn ASC')")
        .contains("rank order of protected values");
    Throwable byZip =
        catchThrowable(
            () -> sqlAsCmp("alice", CALL + ", sort_order => 'id DESC, address.zip ASC')"));
    assertThat(byZip.getMessage())
        .contains("by protected column 'address.zip' (sort_order => 'id DESC, address.zip ASC')");
    Throwable zorder =
        catchThrowable(() -> sqlAsCmp("alice", CALL + ", sort_order => 'zorder(id, email)')"));
    assertThat(zorder).isInstanceOf(ProtectorException.class);
    assertThat(zorder.getMessage())
        .contains("by protected column 'email' (sort_order => 'zorder(id, email)')");
    // a table sort order set outside SQL, where the protector refuses it
    table.replaceSortOrder().asc("salary").commit();
    Throwable tableOrder = catchThrowable(() -> sqlAsCmp("alice", CALL + ", strategy => 'sort')"));
    assertThat(tableOrder.getMessage())
        .contains(
            "Table cmp.db.customers has sort order [salary ASC NULLS FIRST], which orders"
                + " rows by protected column 'salary'");
    table.replaceSortOrder().commit();
    table.refresh();
    assertThat(table.currentSnapshot().snapshotId()).isEqualTo(snapshot);

    List<String> asAlice = rowsAs("alice");
    sqlAsCmp(
        "alice",
        CALL
            + ", strategy => 'sort', sort_order => 'id DESC NULLS LAST',"
            + " options => map('min-input-files', '2'))");
    table.refresh();
    assertThat(liveFiles(table)).hasSize(1);
    assertThat(rowsAs("alice")).isEqualTo(asAlice);
    List<Long> inFileOrder =
        sqlAsCmp("alice", "SELECT id FROM " + T + " ORDER BY _pos").stream()
            .map(r -> r.getLong(0))
            .collect(Collectors.toList());
    assertThat(inFileOrder).isSortedAccordingTo(java.util.Comparator.reverseOrder()).hasSize(12);

    insert(100, 104);
    sqlAsCmp(
        "alice",
        CALL + ", sort_order => 'zorder(id, name)'," + " options => map('min-input-files', '2'))");
    table.refresh();
    assertThat(liveFiles(table)).hasSize(1);
    assertThat(rowsAs("alice")).hasSize(16);
    assertProtectedAtRest(table, liveFiles(table));
  }

  // ------------------------------------------------------------------ conditions

  @Test
  void conditionsOnProtectedColumnsNeverPruneByManifestMetrics() {
    // A table protected after it held data: two plaintext files with plaintext bounds of ssn in
    // their manifests ("LEGACY-A".."LEGACY-B"), then two protected files, whose ssn has none.
    spark.sql("CREATE TABLE cmp_plain.db.customers " + COLUMNS + " USING iceberg" + PROPERTIES);
    for (String ssn : List.of("LEGACY-A", "LEGACY-B")) {
      spark.sql(
          "INSERT INTO cmp_plain.db.customers VALUES ("
              + (ssn.endsWith("A") ? 1 : 2)
              + ", 'legacy', '"
              + ssn
              + "', 'legacy@example.test', 1.00,"
              + " named_struct('city', 'c', 'zip', 'LEGACYZIP'), 'DE')");
    }
    insert(100, 103);
    insert(103, 106);
    Table table = icebergTable();
    List<DataFile> legacy =
        liveFiles(table).stream()
            .filter(f -> FileMarker.kindOf(f) != FileMarker.Kind.BOUND)
            .collect(Collectors.toList());
    assertThat(legacy).hasSize(2);
    List<String> asAlice = rowsAs("alice");

    // The unprotected part prunes as usual; the protected part selects every file, so the two
    // protected files are rewritten and the legacy ones are left alone.
    Row some =
        sqlAsCmp(
                "alice",
                CALL
                    + ", where => 'id >= 100 AND ssn = \"NO-SUCH-SSN\"',"
                    + " options => map('min-input-files', '2'))")
            .get(0);
    assertThat(some.getInt(0)).isEqualTo(2);
    table.refresh();
    assertThat(liveFiles(table))
        .extracting(DataFile::location)
        .containsAll(legacy.stream().map(DataFile::location).collect(Collectors.toList()))
        .hasSize(3);

    // Compared with the legacy files' plaintext bounds, 'NO-SUCH-SSN' would select none of them.
    // It is never compared: every file is rewritten, and the legacy rows are now encrypted and
    // bound.
    Row all =
        sqlAsCmp(
                "alice",
                CALL
                    + ", where => 'NOT (ssn <> \"NO-SUCH-SSN\") OR email IS NULL',"
                    + " options => map('min-input-files', '2'))")
            .get(0);
    assertThat(all.getInt(0)).isEqualTo(3);
    table.refresh();
    List<DataFile> after = liveFiles(table);
    assertThat(after).hasSize(1).allMatch(f -> FileMarker.kindOf(f) == FileMarker.Kind.BOUND);
    assertThat(rowsAs("alice")).isEqualTo(asAlice);
    assertProtectedAtRest(table, after);
  }

  // ------------------------------------------------------------------ deletes

  @ParameterizedTest(name = "format-version {0}")
  @ValueSource(ints = {2, 3})
  void compactionAppliesMergeOnReadDeletesAndDropsTheirDeleteFiles(int formatVersion) {
    spark.sql(
        "CREATE TABLE "
            + T
            + " "
            + COLUMNS
            + " USING iceberg TBLPROPERTIES ('format-version'='"
            + formatVersion
            + "', 'write.delete.mode'='merge-on-read',"
            + " 'write.parquet.compression-codec'='uncompressed')");
    for (int batch = 0; batch < 3; batch++) {
      insert(batch * 5, batch * 5 + 5);
    }
    // a merge-on-read DELETE needs writers membership only: etl reads no protected column
    sqlAsCmp("etl", "DELETE FROM " + T + " WHERE id IN (1, 7)");
    sqlAsCmp("etl", "DELETE FROM " + T + " WHERE id = 2");
    Table table = icebergTable();
    assertThat(liveDeleteFiles(table)).as("delete files before compaction").isNotEmpty();
    List<String> asAlice = rowsAs("alice");
    assertThat(asAlice).hasSize(12);

    if (formatVersion == 2) {
      // position delete files hold file locations and positions, no column value: any writer
      Throwable mallory =
          catchThrowable(
              () ->
                  sqlAsCmp(
                      "mallory",
                      "CALL cmp.system.rewrite_position_delete_files(table => 'db.customers')"));
      assertThat(mallory).isInstanceOf(ProtectorException.class);
      assertThat(mallory.getMessage())
          .contains("Principal 'mallory' (roles []) may not run")
          .contains(
              "only the table's writer roles [admin, etl] may change its definition or its"
                  + " state");
      Row deletes =
          sqlAsCmp(
                  "etl",
                  "CALL cmp.system.rewrite_position_delete_files(table => 'db.customers',"
                      + " options => map('rewrite-all', 'true'))")
              .get(0);
      assertThat(deletes.getInt(0)).as("rewritten delete files").isEqualTo(2);
      List<String> oldDeletes =
          liveDeleteFiles(table).stream().map(DeleteFile::location).collect(Collectors.toList());
      table.refresh();
      assertThat(table.currentSnapshot().operation()).isEqualTo("replace");
      List<DeleteFile> newDeletes = liveDeleteFiles(table);
      assertThat(newDeletes)
          .hasSize(deletes.getInt(1))
          .noneMatch(d -> oldDeletes.contains(d.location()))
          .allSatisfy(d -> assertThat(d.content()).isEqualTo(FileContent.POSITION_DELETES));
      assertThat(newDeletes.stream().mapToLong(DeleteFile::recordCount).sum())
          .as("deleted positions")
          .isEqualTo(3);
      assertThat(rowsAs("alice")).isEqualTo(asAlice);
    }

    Row result =
        sqlAsCmp(
                "alice",
                CALL
                    + ", options => map('min-input-files', '2',"
                    + " 'delete-file-threshold', '1'))")
            .get(0);
    assertThat(result.getInt(0)).as("rewritten data files").isEqualTo(3);
    table.refresh();
    List<DataFile> after = liveFiles(table);
    assertThat(after).hasSize(1);
    assertThat(liveDeleteFiles(table))
        .as("deletes applied and dropped (deletion vectors too)")
        .isEmpty();
    assertThat(rowsAs("alice")).isEqualTo(asAlice);
    assertPerRoleReads(12);
    assertProtectedAtRest(table, after);
  }

  // ------------------------------------------------------------------ statistics

  @Test
  void tableStatisticsCoverUnprotectedColumnsOnly() throws IOException {
    create("");
    insert(0, 6);
    insert(6, 10);
    Table table = icebergTable();

    Throwable named =
        catchThrowable(
            () ->
                sqlAsCmp(
                    "alice",
                    "CALL cmp.system.compute_table_stats(table =>"
                        + " 'db.customers', columns => array('id', 'ssn', 'address.zip'))"));
    assertThat(named).isInstanceOf(ProtectorException.class);
    assertThat(named.getMessage())
        .contains(
            "Cannot compute statistics of protected column(s) [ssn, address.zip] of"
                + " protected table cmp.db.customers")
        .contains("test whether a value occurs in the table");
    Throwable mallory =
        catchThrowable(
            () ->
                sqlAsCmp(
                    "mallory", "CALL cmp.system.compute_table_stats(table => 'db.customers')"));
    assertThat(mallory).isInstanceOf(ProtectorException.class);
    assertThat(mallory.getMessage())
        .contains("Principal 'mallory' (roles []) may not run")
        .contains("only the table's writer roles [admin, etl]");
    table.refresh();
    assertThat(table.statisticsFiles()).as("nothing registered after a refusal").isEmpty();

    // etl, who reads no protected column, computes them: only unprotected columns are read
    List<Row> result =
        sqlAsCmp("etl", "CALL cmp.system.compute_table_stats(table => 'db.customers')");
    assertThat(result).hasSize(1);
    table.refresh();
    assertThat(table.statisticsFiles()).hasSize(1);
    StatisticsFile stats = table.statisticsFiles().get(0);
    assertThat(stats.path()).isEqualTo(result.get(0).getString(0));
    assertThat(stats.snapshotId()).isEqualTo(table.currentSnapshot().snapshotId());
    Schema schema = table.schema();
    List<Integer> sketched =
        stats.blobMetadata().stream()
            .flatMap(b -> b.fields().stream())
            .collect(Collectors.toList());
    assertThat(sketched)
        .containsExactlyInAnyOrder(
            schema.findField("id").fieldId(),
            schema.findField("name").fieldId(),
            schema.findField("country").fieldId());
    assertThat(stats.blobMetadata())
        .allSatisfy(
            b -> assertThat(b.type()).isEqualTo(StandardBlobTypes.APACHE_DATASKETCHES_THETA_V1));
    BlobMetadata ids =
        stats.blobMetadata().stream()
            .filter(b -> b.fields().equals(List.of(schema.findField("id").fieldId())))
            .findFirst()
            .orElseThrow();
    assertThat(ids.properties()).containsEntry("ndv", "10");

    // naming unprotected columns works as in Iceberg
    sqlAsCmp(
        "alice",
        "CALL cmp.system.compute_table_stats(table => 'db.customers',"
            + " columns => array('country'))");
    table.refresh();
    assertThat(table.statisticsFiles().get(0).blobMetadata())
        .extracting(BlobMetadata::fields)
        .containsExactly(List.of(schema.findField("country").fieldId()));
    assertPerRoleReads(10);
    assertProtectedAtRest(table, liveFiles(table));
  }

  // ------------------------------------------------------------------ helpers

  private static void create(String partitioning) {
    spark.sql("CREATE TABLE " + T + " " + COLUMNS + " USING iceberg" + partitioning + PROPERTIES);
  }

  /**
   * Rows {@code from} until {@code to} as etl, in one Spark partition: one file per table
   * partition.
   */
  private static void insert(int from, int to) {
    sqlAsCmp(
        "etl",
        String.format(
            "INSERT INTO %s SELECT id, concat('name-', id), concat('CMPSSN-', 1000 + id),"
                + " concat('cmp', id, '@canary.test'), CAST(id * 10.5 AS DECIMAL(10,2)),"
                + " named_struct('city', concat('city-', id), 'zip', concat('CMPZIP', 1000 + id)),"
                + " element_at(array('DE', 'FR', 'IT'), CAST(id %% 3 + 1 AS INT))"
                + " FROM range(%d, %d, 1, 1)",
            T, from, to));
  }

  private static List<Row> sqlAsCmp(String user, String query) {
    return asUser("cmp", user, () -> spark.sql(query).collectAsList());
  }

  private static List<String> rowsAs(String user) {
    return sqlAsCmp(user, "SELECT * FROM " + T + " ORDER BY id").stream()
        .map(Row::toString)
        .collect(Collectors.toList());
  }

  /** Alice reads clear values, bob masked ones, mallory NULL: the same as before the rewrite. */
  private static void assertPerRoleReads(int rows) {
    List<Row> alice = sqlAsCmp("alice", "SELECT id, ssn, email, address.zip FROM " + T);
    assertThat(alice)
        .hasSize(rows)
        .allSatisfy(
            r -> {
              assertThat(r.getString(1)).isEqualTo("CMPSSN-" + (1000 + r.getLong(0)));
              assertThat(r.getString(3)).isEqualTo("CMPZIP" + (1000 + r.getLong(0)));
            });
    List<Row> bob = sqlAsCmp("bob", "SELECT id, ssn, email, salary FROM " + T);
    assertThat(bob)
        .hasSize(rows)
        .allSatisfy(
            r -> {
              String ssn = "CMPSSN-" + (1000 + r.getLong(0));
              assertThat(r.getString(1))
                  .isEqualTo("*".repeat(ssn.length() - 4) + ssn.substring(ssn.length() - 4));
              assertThat(r.getString(2)).isNotNull().doesNotContain("@canary.test");
              assertThat(r.isNullAt(3)).isTrue();
            });
    List<Row> mallory = sqlAsCmp("mallory", "SELECT id, ssn, email, salary FROM " + T);
    assertThat(mallory)
        .hasSize(rows)
        .allSatisfy(r -> assertThat(r.isNullAt(1) && r.isNullAt(2) && r.isNullAt(3)).isTrue());
  }

  /**
   * No canary in any file of the table (data of every snapshot, manifests, metadata), and every one
   * of {@code files} bound, without metrics of a protected column in its manifest entry.
   */
  private static void assertProtectedAtRest(Table table, List<DataFile> files) {
    assertThat(filesContaining(location(table), "CMPSSN-", "@canary.test", "CMPZIP")).isEmpty();
    assertBoundWithoutProtectedMetrics(
        table, files, List.of("ssn", "email", "salary", "address.zip"), "id");
  }

  /** Delete files (position deletes, deletion vectors) of the current snapshot. */
  private static List<DeleteFile> liveDeleteFiles(Table table) {
    try (CloseableIterable<FileScanTask> tasks = table.newScan().planFiles()) {
      Set<String> seen = new HashSet<>();
      List<DeleteFile> deletes = new ArrayList<>();
      for (FileScanTask task : tasks) {
        for (DeleteFile delete : task.deletes()) {
          if (seen.add(delete.location() + "#" + delete.contentOffset())) {
            deletes.add(delete);
          }
        }
      }
      return deletes;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static Table icebergTable() {
    try {
      return Spark3Util.loadIcebergTable(spark, T);
    } catch (Exception e) {
      throw new IllegalStateException("Cannot load " + T, e);
    }
  }

  private static List<Snapshot> snapshots(Table table) {
    return StreamSupport.stream(table.snapshots().spliterator(), false)
        .collect(Collectors.toList());
  }
}
