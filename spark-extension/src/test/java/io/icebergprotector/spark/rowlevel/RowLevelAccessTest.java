/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.spark.rowlevel;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.icebergprotector.spark.core.ProtectorException;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.spark.sql.Row;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Who may run DELETE, UPDATE and MERGE: writers only; a merge-on-read DELETE without a condition on
 * a protected column needs no column access; every protected column an operation compares or copies
 * must be clear for the principal. Every refusal comes before anything is written.
 */
class RowLevelAccessTest extends RowLevelTestBase {
  private static final String COW = "db.t7";
  private static final String MOR = "db.t8";
  private static final String MOR_V3 = "db.t9";
  private static final String PARTITIONED = "db.t10";

  @BeforeAll
  static void createTables() {
    create(COW, RowLevelOperationsTest.properties(2, "copy-on-write"));
    create(MOR, RowLevelOperationsTest.properties(2, "merge-on-read"));
    create(MOR_V3, RowLevelOperationsTest.properties(3, "merge-on-read"));
    for (String t : List.of(COW, MOR, MOR_V3)) {
      insert(t, 1, 10);
    }
    as("alice", "DROP TABLE IF EXISTS " + name(PARTITIONED) + " PURGE");
    as(
        "alice",
        "CREATE TABLE "
            + name(PARTITIONED)
            + " (id BIGINT, name STRING, ssn STRING, email STRING,"
            + " salary DECIMAL(10,2), dept STRING) USING iceberg PARTITIONED BY (dept)"
            + " TBLPROPERTIES ('write.parquet.compression-codec'='uncompressed')");
    insert(PARTITIONED, 1, 10);
  }

  @Test
  void principalsWithoutAWriterRoleAreRefused() {
    for (String user : List.of("bob", "mallory")) {
      String roles = user.equals("bob") ? "[analyst]" : "[]";
      for (String t : List.of(COW, MOR)) {
        for (String[] statement :
            List.of(
                new String[] {"DELETE", "DELETE FROM " + name(t) + " WHERE id = 1"},
                new String[] {"UPDATE", "UPDATE " + name(t) + " SET dept = 'x' WHERE id = 1"},
                new String[] {
                  "MERGE",
                  "MERGE INTO "
                      + name(t)
                      + " t USING (SELECT 1L AS id) s ON t.id = s.id"
                      + " WHEN MATCHED THEN DELETE"
                })) {
          assertRefusedBeforeWriting(
              t,
              () -> as(user, statement[1]),
              "Principal '"
                  + user
                  + "' (roles "
                  + roles
                  + ") may not run "
                  + statement[0]
                  + " on protected table "
                  + t
                  + ": only the table's writer roles"
                  + " [admin, etl, steward] may change its rows");
        }
      }
    }
  }

  @Test
  void aMergeOnReadDeleteNeedsNoColumnAccess() {
    // etl reads no protected column in clear: a column key requested for it would be refused
    for (String t : List.of(MOR, MOR_V3)) {
      long before = iceberg(t).currentSnapshot().snapshotId();
      as("etl", "DELETE FROM " + name(t) + " WHERE id = 2");
      assertThat(ids(as("alice", "SELECT id FROM " + name(t)))).doesNotContain(2L).contains(1L, 3L);
      Snapshot snapshot = iceberg(t).currentSnapshot();
      assertThat(snapshot.parentId()).isEqualTo(before);
      assertThat(snapshot.summary())
          .containsEntry("added-delete-files", "1")
          .doesNotContainKey("added-data-files");
    }
    // MERGE that only deletes, on an unprotected ON condition, reads no protected column either
    as(
        "etl",
        "MERGE INTO "
            + name(MOR)
            + " t USING (SELECT 9L AS id) s ON t.id = s.id"
            + " WHEN MATCHED THEN DELETE");
    assertThat(ids(as("alice", "SELECT id FROM " + name(MOR)))).doesNotContain(2L, 9L);
  }

  @Test
  void copyOnWriteNeedsClearAccessToEveryColumnItCopies() {
    assertRefusedBeforeWriting(
        COW,
        () -> as("etl", "DELETE FROM " + name(COW) + " WHERE id = 3"),
        "Principal 'etl' (roles [etl]) may not run DELETE (copy-on-write) on protected table db.t7",
        "it reads protected column(s) [ssn, email, salary] to copy the rows of every data file it"
            + " rewrites",
        "(ssn: denied, email: denied, salary: denied)",
        "writing them back would put NULL or masked values in place of the real ones",
        "clear roles ssn: [admin], email: [admin, steward], salary: [admin, steward]",
        "writer roles [admin, etl, steward]",
        "write.delete.mode = merge-on-read",
        "Nothing was written");
    assertRefusedBeforeWriting(
        COW,
        () -> as("dana", "UPDATE " + name(COW) + " SET dept = 'x' WHERE id = 3"),
        "Principal 'dana' (roles [steward]) may not run UPDATE (copy-on-write)",
        "protected column(s) [ssn]",
        "(ssn: masked)");
    // alice copies clear values: allowed
    as("alice", "DELETE FROM " + name(COW) + " WHERE id = 3");
    assertThat(ids(as("alice", "SELECT id FROM " + name(COW)))).hasSize(9).doesNotContain(3L);
  }

  @Test
  void conditionsOnProtectedColumnsAreEvaluatedOnlyForClearReaders() {
    assertRefusedBeforeWriting(
        MOR,
        () -> as("etl", "DELETE FROM " + name(MOR) + " WHERE ssn = '" + ssn(4) + "'"),
        "Principal 'etl' (roles [etl]) may not run DELETE (merge-on-read) on protected table db.t8",
        "its condition compares protected column(s) [ssn], which it does not read in clear"
            + " (ssn: denied)",
        "conditions on protected columns are evaluated on clear values only, never on masked or"
            + " NULL values",
        "clear roles ssn: [admin]");
    assertRefusedBeforeWriting(
        MOR,
        () -> as("dana", "DELETE FROM " + name(MOR) + " WHERE ssn LIKE '%0004'"),
        "its condition compares protected column(s) [ssn]",
        "(ssn: masked)");
    assertRefusedBeforeWriting(
        MOR,
        () ->
            as(
                "etl",
                "MERGE INTO "
                    + name(MOR)
                    + " t USING (SELECT '"
                    + ssn(4)
                    + "' AS ssn) s"
                    + " ON t.ssn = s.ssn WHEN MATCHED THEN DELETE"),
        "may not run MERGE (merge-on-read)",
        "[ssn]",
        "(ssn: denied)");
    assertRefusedBeforeWriting(
        MOR,
        () ->
            as(
                "dana",
                "MERGE INTO "
                    + name(MOR)
                    + " t USING (SELECT 4L AS id) s ON t.id = s.id"
                    + " WHEN MATCHED AND t.ssn = '"
                    + ssn(4)
                    + "' THEN DELETE"),
        "may not run MERGE (merge-on-read)",
        "[ssn]",
        "(ssn: masked)");
    // dana reads email in clear: a condition on it is evaluated
    as("dana", "DELETE FROM " + name(MOR) + " WHERE email = '" + email(4) + "'");
    assertThat(ids(as("alice", "SELECT id FROM " + name(MOR)))).doesNotContain(4L);
  }

  @Test
  void updatesAndMergesCopyOnlyColumnsTheWriterReadsInClear() {
    assertRefusedBeforeWriting(
        MOR,
        () -> as("dana", "UPDATE " + name(MOR) + " SET dept = 'x' WHERE id = 5"),
        "Principal 'dana' (roles [steward]) may not run UPDATE (merge-on-read)",
        "it reads protected column(s) [ssn] to copy them into the rows it rewrites",
        "(ssn: masked)",
        "clear roles ssn: [admin]");
    assertRefusedBeforeWriting(
        MOR,
        () -> as("etl", "UPDATE " + name(MOR) + " SET dept = 'x' WHERE id = 5"),
        "[ssn, email, salary]");
    assertRefusedBeforeWriting(
        MOR,
        () ->
            as(
                "dana",
                "MERGE INTO "
                    + name(MOR)
                    + " t USING (SELECT 5L AS id) s ON t.id = s.id"
                    + " WHEN MATCHED THEN UPDATE SET dept = 'x'"),
        "may not run MERGE (merge-on-read)",
        "[ssn]");
    // a MERGE that replaces every protected value copies none of the old ones
    as(
        "dana",
        "MERGE INTO "
            + name(MOR)
            + " t USING (SELECT 5L AS id, 'name-5' AS name, '"
            + ssn(205)
            + "' AS ssn, '"
            + email(205)
            + "' AS email, CAST(5.00 AS DECIMAL(10,2)) AS salary,"
            + " 'x' AS dept) s ON t.id = s.id WHEN MATCHED THEN UPDATE SET *");
    List<Row> row = as("alice", "SELECT ssn, email, dept FROM " + name(MOR) + " WHERE id = 5");
    assertThat(row).hasSize(1);
    assertThat(row.get(0).getString(0)).isEqualTo(ssn(205));
    assertThat(row.get(0).getString(2)).isEqualTo("x");
  }

  /** The data-flow guard sees row-level writes too: no protected value into a plaintext column. */
  @Test
  void updatesCannotCopyProtectedValuesIntoUnprotectedColumns() {
    for (String t : List.of(MOR, COW)) {
      assertRefusedBeforeWriting(
          t,
          () -> as("alice", "UPDATE " + name(t) + " SET name = ssn WHERE id = 6"),
          "Cannot write to",
          "it would declassify protected data",
          "column 'name' <- column 'ssn'");
    }
  }

  /**
   * The UPDATE's own condition picks rows and is no flow (Spark's copy-on-write rewrite wraps it
   * around every column), but a condition the user writes into a value still is.
   */
  @Test
  void onlyTheOperationsOwnConditionIsNoFlow() {
    for (String t : List.of(MOR, COW)) {
      as("alice", "UPDATE " + name(t) + " SET name = 'renamed' WHERE ssn = '" + ssn(7) + "'");
      assertThat(as("alice", "SELECT name FROM " + name(t) + " WHERE id = 7").get(0).getString(0))
          .isEqualTo("renamed");
      assertRefusedBeforeWriting(
          t,
          () ->
              as(
                  "alice",
                  "UPDATE "
                      + name(t)
                      + " SET name = IF(ssn = '"
                      + ssn(8)
                      + "', 'a', 'b')"
                      + " WHERE id = 8"),
          "it would declassify protected data",
          "column 'name' <- column 'ssn'");
    }
  }

  @Test
  void metadataDeletesDropWholeFilesOnlyForConditionsOnUnprotectedColumns() {
    long files = liveFiles(iceberg(PARTITIONED)).size();
    // a whole partition, decided on partition values: no rows read, no key needed
    as("etl", "DELETE FROM " + name(PARTITIONED) + " WHERE dept = 'odd'");
    Snapshot snapshot = iceberg(PARTITIONED).currentSnapshot();
    assertThat(snapshot.operation()).isEqualTo("delete");
    assertThat(snapshot.summary()).doesNotContainKey("added-data-files");
    assertThat(liveFiles(iceberg(PARTITIONED))).hasSizeLessThan((int) files);
    assertThat(ids(as("alice", "SELECT id FROM " + name(PARTITIONED))))
        .containsExactlyInAnyOrder(2L, 4L, 6L, 8L, 10L);
    // a protected column in the condition: the row-level path, which compares clear values only
    assertRefusedBeforeWriting(
        PARTITIONED,
        () ->
            as(
                "etl",
                "DELETE FROM "
                    + name(PARTITIONED)
                    + " WHERE dept = 'even' AND ssn = '"
                    + ssn(2)
                    + "'"),
        "its condition compares protected column(s) [ssn]");
  }

  private static Set<Long> ids(List<Row> rows) {
    return rows.stream().map(r -> r.getLong(0)).collect(Collectors.toSet());
  }

  /** The table's current snapshot and the files under its location. */
  private static String state(String t) {
    Table table = iceberg(t);
    Long snapshot = table.currentSnapshot() != null ? table.currentSnapshot().snapshotId() : null;
    Set<String> names =
        files(t).stream()
            .map(p -> p.getFileName().toString())
            .collect(Collectors.toCollection(TreeSet::new));
    return snapshot + " " + names;
  }

  /**
   * Asserts the statement fails with a {@link ProtectorException} whose message holds every
   * fragment and no canary, and that neither the table nor its files changed.
   */
  private static void assertRefusedBeforeWriting(
      String t, ThrowingCallable statement, String... fragments) {
    String before = state(t);
    var thrown = assertThatThrownBy(statement).isInstanceOf(ProtectorException.class);
    for (String fragment : fragments) {
      thrown.hasMessageContaining(fragment);
    }
    for (String canary : canaries(1, 10)) {
      thrown.hasMessageNotContaining(canary);
    }
    assertThat(state(t)).isEqualTo(before);
  }
}
