/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.spark;

import static org.apache.spark.sql.functions.col;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.iceberg.exceptions.ValidationException;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Log lines, exception messages and scan descriptions never hold a literal compared with a
 * protected column (issue 11 item 7): the overwrite filter {@code ssn = <canary>} is logged,
 * reported in conflicts and shown in EXPLAIN as {@code ref(name="ssn") == <redacted>}.
 */
class LogRedactionTest extends SparkTestBase {
  private static final String T = "prot.db.customers";
  private static final String CANARY = "FILTER-CANARY-SSN-4242";
  private static final String REDACTED_SSN = "ref(name=\"ssn\") == <redacted>";
  private static final String DDL =
      "CREATE TABLE "
          + T
          + " (id BIGINT, name STRING, ssn STRING, email STRING,"
          + " salary DECIMAL(10,2), address STRUCT<city: STRING, zip: STRING>, country STRING)"
          + " USING iceberg PARTITIONED BY (country)";

  @BeforeEach
  void createTable() throws Exception {
    spark.sql("DROP TABLE IF EXISTS " + T + " PURGE");
    spark.sql(DDL);
    rows("DE", 1, 5).writeTo(T).append();
  }

  private static Dataset<Row> rows(String country, int from, int to) {
    return spark.sql(
        "SELECT id, concat('name', id) AS name, concat('DATA-SSN-', id) AS ssn,"
            + " concat('d', id, '@example.test') AS email, CAST(id AS DECIMAL(10,2)) AS salary,"
            + " named_struct('city', 'c', 'zip', 'z') AS address, '"
            + country
            + "' AS country"
            + " FROM range("
            + from
            + ", "
            + to
            + ")");
  }

  /** Partition XX is empty, so Iceberg can apply the filter without reading ssn metrics. */
  private static Column inEmptyPartition() {
    return col("country").equalTo("XX").and(col("ssn").equalTo(CANARY));
  }

  @Test
  void overwriteByFilterOnProtectedColumnLogsItRedacted() throws Exception {
    try (LogCapture logs = new LogCapture()) {
      rows("XX", 10, 12).writeTo(T).overwrite(inEmptyPartition());
      List<String> lines = logs.lines();
      assertThat(lines).noneMatch(line -> line.contains(CANARY));
      assertThat(lines)
          .filteredOn(line -> line.contains("ProtectedCommit") && line.contains("overwrite by"))
          .singleElement()
          .satisfies(line -> assertThat(line).contains(REDACTED_SSN))
          // unprotected columns keep their literals
          .satisfies(line -> assertThat(line).contains("ref(name=\"country\") == \"XX\""));
    }
    assertThat(spark.sql("SELECT id FROM " + T + " WHERE country = 'XX'").count()).isEqualTo(2);
  }

  @Test
  void overwriteThatCannotDeleteWholeFilesIsReportedRedacted() throws Exception {
    try (LogCapture logs = new LogCapture()) {
      // DE files hold other ssn values too: Iceberg refuses to delete only some of their rows
      assertThatThrownBy(() -> rows("DE", 10, 12).writeTo(T).overwrite(col("ssn").equalTo(CANARY)))
          .satisfies(e -> assertRedactedChain(e, "Cannot delete file where some, but not all"));
      assertThat(logs.lines()).isNotEmpty().noneMatch(line -> line.contains(CANARY));
    }
  }

  @Test
  void conflictingConcurrentOverwriteIsReportedRedacted() throws Exception {
    CountDownLatch overwriterStarted = new CountDownLatch(1);
    CountDownLatch appendCommitted = new CountDownLatch(1);
    AtomicReference<Throwable> failure = new AtomicReference<>();
    try (LogCapture logs = new LogCapture()) {
      // Writer A starts from the current snapshot, then writer B commits an append into the
      // partition A overwrites; A validates against its start and must find the conflict.
      Thread overwriter =
          new Thread(
              () -> {
                try {
                  String base = currentSnapshotId();
                  overwriterStarted.countDown();
                  if (!appendCommitted.await(2, TimeUnit.MINUTES)) {
                    throw new IllegalStateException("writer B never committed");
                  }
                  SparkSession.setActiveSession(spark);
                  rows("XX", 20, 22)
                      .writeTo(T)
                      .option("isolation-level", "serializable")
                      .option("validate-from-snapshot-id", base)
                      .overwrite(inEmptyPartition());
                } catch (Throwable t) {
                  failure.set(t);
                }
              },
              "writer-a");
      overwriter.start();
      assertThat(overwriterStarted.await(2, TimeUnit.MINUTES)).isTrue();
      rows("XX", 30, 32).writeTo(T).append();
      appendCommitted.countDown();
      overwriter.join(TimeUnit.MINUTES.toMillis(2));
      assertThat(overwriter.isAlive()).isFalse();

      assertThat(failure.get()).as("writer A's conflict").isNotNull();
      assertRedactedChain(failure.get(), "Found conflicting files");
      assertThat(logs.lines()).noneMatch(line -> line.contains(CANARY));
      assertThat(logs.lines())
          .anyMatch(line -> line.contains("ProtectedCommit") && line.contains(REDACTED_SSN));
    }
    // B's rows are there, A wrote nothing
    assertThat(
            spark.sql("SELECT id FROM " + T + " WHERE country = 'XX' ORDER BY id").collectAsList())
        .extracting(r -> r.getLong(0))
        .containsExactly(30L, 31L);
  }

  @Test
  void scanDescriptionRedactsPushedFiltersOnProtectedColumns() {
    // alice reads ssn in clear, so her filter on it is pushed to Iceberg and shown in EXPLAIN
    String plan =
        sqlAs("alice", "EXPLAIN SELECT id FROM " + T + " WHERE ssn = '" + CANARY + "' AND id > 2")
            .get(0)
            .getString(0);
    List<String> scanLines = new ArrayList<>();
    for (String line : plan.split("\n")) {
      if (line.contains("ProtectedScan[")) {
        scanLines.add(line);
      }
    }
    assertThat(scanLines).isNotEmpty();
    assertThat(scanLines)
        .allSatisfy(
            line ->
                assertThat(line)
                    .doesNotContain(CANARY)
                    .contains(REDACTED_SSN)
                    .contains("ref(name=\"id\") > 2"));
  }

  private static String currentSnapshotId() {
    return String.valueOf(
        spark
            .sql("SELECT snapshot_id FROM " + T + ".snapshots ORDER BY committed_at DESC LIMIT 1")
            .first()
            .getLong(0));
  }

  /** Iceberg's ValidationException is in the chain, with the redacted filter and no canary. */
  private static void assertRedactedChain(Throwable thrown, String icebergMessage) {
    boolean validation = false;
    for (Throwable t = thrown; t != null; t = t.getCause()) {
      assertThat(String.valueOf(t.getMessage())).doesNotContain(CANARY);
      for (Throwable s : t.getSuppressed()) {
        assertThat(String.valueOf(s.getMessage())).doesNotContain(CANARY);
      }
      if (t instanceof ValidationException) {
        validation = true;
        assertThat(t.getMessage()).contains(icebergMessage).contains(REDACTED_SSN);
        assertThat(t.getStackTrace()).isNotEmpty();
      }
    }
    assertThat(validation).as("ValidationException in the chain of %s", thrown).isTrue();
  }
}
