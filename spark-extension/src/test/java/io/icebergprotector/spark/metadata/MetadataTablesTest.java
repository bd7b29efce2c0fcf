/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.spark.metadata;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.icebergprotector.spark.ProtectingSparkCatalog;
import io.icebergprotector.spark.SparkTestBase;
import io.icebergprotector.spark.compat.ScalaCollections;
import io.icebergprotector.spark.core.ProtectorException;
import io.icebergprotector.spark.table.ProtectedTable;
import io.icebergprotector.testing.TestPolicy;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.connector.catalog.Identifier;
import org.junit.jupiter.api.Test;

/**
 * Iceberg metadata tables of protected tables never show metrics or bounds of protected columns
 * (issue 11 item 6, issue 18 items 4 and 5): not of files written through the protected path, which
 * carry none, and not of files written in plaintext before the policy protected the table, whatever
 * the snapshot and the principal.
 */
class MetadataTablesTest extends SparkTestBase {
  private static final String TABLE_POLICY =
      TestPolicy.resource(MetadataTablesTest.class, "policies/MetadataTablesTest.conf");
  private static final String COLUMNS =
      " (id BIGINT, name STRING, ssn STRING, score DOUBLE, rating DOUBLE,"
          + " address STRUCT<city: STRING, zip: STRING>,"
          + " contact STRUCT<phone: STRING, mail: STRING>) USING iceberg"
          + " TBLPROPERTIES ('format-version' = '2', 'write.metadata.metrics.default' = 'full')";
  private static final String LONG_SSN = "LONGCANARYSSN-" + "x".repeat(186);
  private static final String SHORT_SSN = "SHORTCANARY";
  private static final String PLAIN_SSN = "PLAINCANARYSSN-1";
  private static final String PLAIN_ZIP = "PLAINCANARYZIP-1";
  private static final String PLAIN_PHONE = "PLAINCANARYPHONE-1";
  private static final double PLAIN_SCORE = 31415.92653;
  private static final List<String> FILE_TABLES =
      List.of(
          "files",
          "data_files",
          "delete_files",
          "all_files",
          "all_data_files",
          "all_delete_files",
          "entries",
          "all_entries");
  private static final List<String> OTHER_TABLES =
      List.of(
          "snapshots",
          "history",
          "refs",
          "manifests",
          "all_manifests",
          "partitions",
          "metadata_log_entries",
          "position_deletes");
  private static final List<String> PRINCIPALS = List.of("alice", "bob", "carol");

  /** Protects {@code db.<table>} from now on: a new session reads the policy again. */
  private static void protect(String table) throws Exception {
    Files.writeString(policyFile, POLICY + "\n" + String.format(TABLE_POLICY, table));
    spark = spark.newSession();
    SparkSession.setActiveSession(spark);
  }

  private static Table icebergTable(String table) throws Exception {
    ProtectingSparkCatalog catalog =
        (ProtectingSparkCatalog) spark.sessionState().catalogManager().catalog("prot");
    Table iceberg =
        ((ProtectedTable) catalog.loadTable(Identifier.of(new String[] {"db"}, table))).table();
    iceberg.refresh();
    return iceberg;
  }

  private static Set<Integer> ids(Schema schema, String... columns) {
    Set<Integer> ids = new java.util.TreeSet<>();
    for (String column : columns) {
      ids.add(schema.findField(column).fieldId());
    }
    return ids;
  }

  /** ssn, score, address.zip, contact and contact's fields. */
  private static Set<Integer> protectedIds(Schema schema) {
    return ids(schema, "ssn", "score", "address.zip", "contact", "contact.phone", "contact.mail");
  }

  // ------------------------------------------------------------ new files (issue 11 item 6)

  @Test
  void newProtectedFilesCarryNoMetricsOfProtectedColumns() throws Exception {
    protect("fresh");
    spark.sql("CREATE TABLE prot.db.fresh" + COLUMNS);
    // one file with a 200-character ssn, one with an 11-character one; NULLs and NaNs in score
    insert("fresh", 1, LONG_SSN, "CAST('NaN' AS DOUBLE)", "1.5");
    insert("fresh", 2, SHORT_SSN, "NULL", "CAST('NaN' AS DOUBLE)");
    assertThat(LONG_SSN).hasSize(200);
    assertThat(SHORT_SSN).hasSize(11);

    Table table = icebergTable("fresh");
    Schema schema = table.schema();
    Integer[] hidden = protectedIds(schema).toArray(Integer[]::new);
    Integer[] visible = ids(schema, "id", "name", "rating", "address.city").toArray(Integer[]::new);
    Integer[] boundedVisible = ids(schema, "id", "name", "address.city").toArray(Integer[]::new);
    int files = 0;
    try (CloseableIterable<FileScanTask> tasks = table.newScan().includeColumnStats().planFiles()) {
      for (FileScanTask task : tasks) {
        DataFile file = task.file();
        files += 1;
        for (Map<Integer, ?> map :
            List.of(file.columnSizes(), file.valueCounts(), file.nullValueCounts())) {
          assertThat(map).doesNotContainKeys(hidden).containsKeys(visible);
        }
        // Iceberg keeps no bounds for a double with NaNs (rating in one file)
        for (Map<Integer, ?> map : List.of(file.lowerBounds(), file.upperBounds())) {
          assertThat(map).doesNotContainKeys(hidden).containsKeys(boundedVisible);
        }
        assertThat(file.nanValueCounts())
            .doesNotContainKeys(hidden)
            .containsKey(schema.findField("rating").fieldId());
      }
    }
    assertThat(files).isEqualTo(2);

    for (String user : PRINCIPALS) {
      List<Row> rows = sqlAs(user, "SELECT * FROM prot.db.fresh.files");
      assertThat(rows).hasSize(2);
      assertNoProtectedMetrics(rows, schema, user + " on files");
      assertUnprotectedMetrics(rows, schema, user + " on files");
    }
  }

  private static void insert(String table, long id, String ssn, String score, String rating) {
    asUser(
        "etl",
        () ->
            spark.sql(
                String.format(
                    "INSERT INTO prot.db.%s VALUES (%d, 'name%d', %s, %s, %s,"
                        + " named_struct('city', 'city%d', 'zip', 'zip%d'),"
                        + " named_struct('phone', 'phone%d', 'mail', 'mail%d'))",
                    table,
                    id,
                    id,
                    ssn == null ? "NULL" : "'" + ssn + "'",
                    score,
                    rating,
                    id,
                    id,
                    id,
                    id)));
  }

  /** One row whose protected columns hold the plaintext canaries, with full metrics. */
  private static void insertPlaintextCanaries(String table) {
    spark.sql(
        "INSERT INTO prot.db."
            + table
            + " VALUES (1, 'name1', '"
            + PLAIN_SSN
            + "', "
            + PLAIN_SCORE
            + ", 1.5, named_struct('city', 'Springfield', 'zip', '"
            + PLAIN_ZIP
            + "'),"
            + " named_struct('phone', '"
            + PLAIN_PHONE
            + "', 'mail', 'm1'))");
  }

  // ------------------------------------- files written before protection (issue 18 items 4-5)

  @Test
  void metadataTablesHideMetricsOfFilesWrittenBeforeProtection() throws Exception {
    // plaintext: the policy does not list the table yet, and every column has full metrics
    spark.sql("CREATE TABLE prot.db.legacy" + COLUMNS);
    insertPlaintextCanaries("legacy");
    spark.sql(
        "INSERT INTO prot.db.legacy VALUES (2, 'name2', NULL, CAST('NaN' AS DOUBLE), 2.5,"
            + " named_struct('city', 'Shelbyville', 'zip', NULL), NULL)");
    long plaintextSnapshot = currentSnapshot("legacy");
    // control: Iceberg's metadata shows the plaintext bounds while the table is unprotected
    assertThat(render(spark.sql("SELECT * FROM prot.db.legacy.files").collectAsList()))
        .contains(PLAIN_SSN);

    protect("legacy");
    insert("legacy", 3, LONG_SSN, "NULL", "3.5");
    Schema schema = icebergTable("legacy").schema();
    assertMetadataTablesHideProtectedColumns(schema, "before the rewrite");

    asUser("alice", () -> spark.sql("CALL prot.system.rewrite_protected(table => 'db.legacy')"));
    // the all_* tables still reach the plaintext files' manifests until the snapshots expire
    assertMetadataTablesHideProtectedColumns(schema, "after the rewrite");
    assertThat(sqlAs("carol", "SELECT * FROM prot.db.legacy.all_data_files").size())
        .isGreaterThan(sqlAs("carol", "SELECT * FROM prot.db.legacy.data_files").size() + 1);

    // time travel to the plaintext snapshot, by version and by timestamp
    for (String travel :
        List.of(
            "VERSION AS OF " + plaintextSnapshot,
            "TIMESTAMP AS OF '" + timestampOf("legacy", plaintextSnapshot) + "'")) {
      for (String metadataTable : List.of("files", "data_files", "entries")) {
        for (String user : PRINCIPALS) {
          List<Row> rows =
              sqlAs(user, "SELECT * FROM prot.db.legacy." + metadataTable + " " + travel);
          assertThat(rows).as("%s %s as %s", metadataTable, travel, user).hasSize(2);
          assertNoProtectedMetrics(rows, schema, user + " " + metadataTable + " " + travel);
          assertUnprotectedMetrics(rows, schema, user + " " + metadataTable + " " + travel);
        }
      }
    }
  }

  @Test
  void projectionsFiltersAndCountsSeeTheRedactedRows() throws Exception {
    spark.sql("CREATE TABLE prot.db.probe" + COLUMNS);
    insertPlaintextCanaries("probe");
    protect("probe");
    insert("probe", 2, SHORT_SSN, "1.0", "2.0");
    String files = "prot.db.probe.files";
    int ssnId = icebergTable("probe").schema().findField("ssn").fieldId();

    // a projection of only the protected column's readable metrics gets NULL
    assertThat(sqlAs("alice", "SELECT readable_metrics.ssn FROM " + files))
        .hasSize(2)
        .allMatch(r -> r.isNullAt(0));
    assertThat(
            sqlAs(
                "alice",
                "SELECT readable_metrics.ssn.lower_bound, readable_metrics.name"
                    + ".lower_bound FROM "
                    + files
                    + " ORDER BY record_count"))
        .allSatisfy(r -> assertThat(r.isNullAt(0)).isTrue())
        .allSatisfy(r -> assertThat(r.getString(1)).startsWith("name"));
    assertThat(
            sqlAs(
                "alice",
                "SELECT lower_bounds[" + ssnId + "], value_counts[" + ssnId + "] FROM " + files))
        .allMatch(r -> r.isNullAt(0) && r.isNullAt(1));
    assertThat(sqlAs("alice", "SELECT count(*) FROM " + files).get(0).getLong(0)).isEqualTo(2);
    assertThat(sqlAs("bob", "SELECT count(*) FROM prot.db.probe.entries").get(0).getLong(0))
        .isEqualTo(2);

    // filters on redacted fields are evaluated on the redacted rows, never by Iceberg before
    String ssnBound = "readable_metrics.ssn.lower_bound";
    assertThat(
            sqlAs(
                "alice",
                "SELECT file_path FROM " + files + " WHERE " + ssnBound + " = '" + PLAIN_SSN + "'"))
        .isEmpty();
    assertThat(sqlAs("alice", "SELECT file_path FROM " + files + " WHERE " + ssnBound + " IS NULL"))
        .hasSize(2);
    assertThat(
            sqlAs(
                "alice",
                "SELECT file_path FROM "
                    + files
                    + " WHERE lower_bounds["
                    + ssnId
                    + "] IS NOT NULL"))
        .isEmpty();
    assertThat(
            sqlAs(
                "alice",
                "SELECT file_path FROM "
                    + files
                    + " WHERE readable_metrics.name.lower_bound = 'name1' AND record_count = 1"))
        .hasSize(1);
    String plan =
        sqlAs(
                "alice",
                "EXPLAIN SELECT file_path FROM "
                    + files
                    + " WHERE "
                    + ssnBound
                    + " IS NULL AND record_count > 0")
            .get(0)
            .getString(0);
    String scanLine =
        plan.lines().filter(l -> l.contains("ProtectedMetadataScan[")).findFirst().orElseThrow();
    String pushed =
        scanLine.substring(scanLine.indexOf("filters="), scanLine.indexOf(", groupedBy"));
    assertThat(pushed).contains("record_count").doesNotContain("lower_bound");

    // the DataFrame reader reaches the same protected metadata table through the catalog
    assertThat(
            spark
                .read()
                .format("iceberg")
                .load(files)
                .select("readable_metrics.ssn")
                .collectAsList())
        .hasSize(2)
        .allMatch(r -> r.isNullAt(0));

    // the metadata tables are read-only
    assertThatThrownBy(() -> spark.sql("DELETE FROM " + files + " WHERE record_count = 1"))
        .isInstanceOf(ProtectorException.class)
        .hasMessageContaining("metadata table prot.db.probe.files of protected table prot.db.probe")
        .hasMessageContaining("read-only");
  }

  @Test
  void theChangelogOfAProtectedTableIsRefused() throws Exception {
    spark.sql("CREATE TABLE prot.db.changes_probe" + COLUMNS);
    insertPlaintextCanaries("changes_probe");
    protect("changes_probe");
    assertThatThrownBy(() -> sqlAs("alice", "SELECT * FROM prot.db.changes_probe.changes"))
        .isInstanceOf(ProtectorException.class)
        .hasMessageContaining("Cannot read the changelog of protected table")
        .hasMessageContaining("changes_probe")
        .hasMessageNotContaining(PLAIN_SSN);
  }

  // ---------------------------------------------------------------------------- assertions

  private static void assertMetadataTablesHideProtectedColumns(Schema schema, String when) {
    for (String user : PRINCIPALS) {
      for (String metadataTable : FILE_TABLES) {
        String what = metadataTable + " as " + user + " " + when;
        List<Row> rows = sqlAs(user, "SELECT * FROM prot.db.legacy." + metadataTable);
        assertNoProtectedMetrics(rows, schema, what);
        if (!metadataTable.contains("delete")) {
          assertThat(rows).as(what).isNotEmpty();
          assertUnprotectedMetrics(rows, schema, what);
        }
      }
      for (String metadataTable : OTHER_TABLES) {
        List<Row> rows = sqlAs(user, "SELECT * FROM prot.db.legacy." + metadataTable);
        assertThat(render(rows))
            .as("%s as %s %s", metadataTable, user, when)
            .doesNotContain(canaries());
      }
    }
  }

  private static String[] canaries() {
    byte[] score =
        ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).putDouble(PLAIN_SCORE).array();
    return new String[] {
      PLAIN_SSN,
      PLAIN_ZIP,
      PLAIN_PHONE,
      SHORT_SSN,
      "LONGCANARYSSN",
      String.valueOf(PLAIN_SCORE),
      new String(score, StandardCharsets.ISO_8859_1)
    };
  }

  /** No map key, readable_metrics column or byte of the rows belongs to a protected column. */
  private static void assertNoProtectedMetrics(List<Row> rows, Schema schema, String what) {
    Set<Integer> hidden = protectedIds(schema);
    assertThat(render(rows)).as(what).doesNotContain(canaries());
    for (Row row : rows) {
      Row file = dataFile(row);
      for (String map :
          List.of(
              "column_sizes",
              "value_counts",
              "null_value_counts",
              "nan_value_counts",
              "lower_bounds",
              "upper_bounds")) {
        Map<Integer, Object> values =
            file.isNullAt(file.fieldIndex(map)) ? Map.of() : file.getJavaMap(file.fieldIndex(map));
        assertThat(values.keySet()).as("%s: %s", what, map).doesNotContainAnyElementsOf(hidden);
      }
      Row metrics = row.getStruct(row.fieldIndex("readable_metrics"));
      for (String column :
          List.of("ssn", "score", "address.zip", "contact.phone", "contact.mail")) {
        assertThat(metrics.isNullAt(metrics.fieldIndex(column)))
            .as("%s: readable_metrics.%s", what, column)
            .isTrue();
      }
    }
  }

  /** Unprotected columns keep their metrics (files written with rows for them). */
  private static void assertUnprotectedMetrics(List<Row> rows, Schema schema, String what) {
    int name = schema.findField("name").fieldId();
    int rating = schema.findField("rating").fieldId();
    for (Row row : rows) {
      Row file = dataFile(row);
      assertThat(file.<Integer, Object>getJavaMap(file.fieldIndex("lower_bounds")))
          .as(what)
          .containsKey(name);
      assertThat(file.<Integer, Object>getJavaMap(file.fieldIndex("value_counts")))
          .as(what)
          .containsKeys(name, rating);
      Row metrics = row.getStruct(row.fieldIndex("readable_metrics"));
      Row nameMetrics = metrics.getStruct(metrics.fieldIndex("name"));
      assertThat(nameMetrics.getString(nameMetrics.fieldIndex("lower_bound")))
          .as(what)
          .startsWith("name");
      assertThat(metrics.isNullAt(metrics.fieldIndex("address.city"))).as(what).isFalse();
    }
  }

  /** The data file of a row of a files table, or of an entries table ({@code data_file}). */
  private static Row dataFile(Row row) {
    List<String> names = List.of(row.schema().fieldNames());
    return names.contains("data_file") ? row.getStruct(row.fieldIndex("data_file")) : row;
  }

  /** Every value as text; binary values as their bytes, so a canary inside shows. */
  static String render(List<Row> rows) {
    return rows.stream().map(MetadataTablesTest::render).collect(Collectors.joining("\n"));
  }

  private static String render(Object value) {
    if (value == null) {
      return "null";
    } else if (value instanceof byte[]) {
      return new String((byte[]) value, StandardCharsets.ISO_8859_1);
    } else if (value instanceof Row) {
      Row row = (Row) value;
      List<String> fields = new ArrayList<>();
      for (int i = 0; i < row.length(); i++) {
        fields.add(render(row.get(i)));
      }
      return "{" + String.join(", ", fields) + "}";
    } else if (value instanceof scala.collection.Map) {
      List<String> entries = new ArrayList<>();
      ScalaCollections.asJava((scala.collection.Map<?, ?>) value)
          .forEach((k, v) -> entries.add(render(k) + "=" + render(v)));
      return "{" + String.join(", ", entries) + "}";
    } else if (value instanceof scala.collection.Iterable) {
      List<String> items = new ArrayList<>();
      ScalaCollections.asJava(((scala.collection.Iterable<?>) value).iterator())
          .forEachRemaining(v -> items.add(render(v)));
      return "[" + String.join(", ", items) + "]";
    }
    return value.toString();
  }

  private static long currentSnapshot(String table) {
    return spark
        .sql(
            "SELECT snapshot_id FROM prot.db."
                + table
                + ".snapshots"
                + " ORDER BY committed_at DESC LIMIT 1")
        .first()
        .getLong(0);
  }

  private static String timestampOf(String table, long snapshotId) {
    return spark
        .sql(
            "SELECT CAST(committed_at AS STRING) FROM prot.db."
                + table
                + ".snapshots"
                + " WHERE snapshot_id = "
                + snapshotId)
        .first()
        .getString(0);
  }
}
