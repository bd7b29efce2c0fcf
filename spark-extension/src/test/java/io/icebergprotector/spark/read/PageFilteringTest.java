/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.spark.read;

import static org.assertj.core.api.Assertions.assertThat;

import io.icebergprotector.spark.SparkTestBase;
import io.icebergprotector.spark.compat.ScalaCollections;
import io.icebergprotector.spark.crypto.ProtectorCrypto;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.LongStream;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.execution.SparkPlan;
import org.apache.spark.sql.execution.adaptive.AdaptiveSparkPlanExec;
import org.apache.spark.sql.execution.datasources.v2.BatchScanExec;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Page-level filtering of protected scans (issue 16): a selective filter on a clear column reads
 * only the pages whose rows may match, in the row and the columnar reader, with every column (the
 * encrypted ones too) still row-aligned although their pages break at other rows; a filter on a
 * masked column prunes nothing; row-level deletes stay correct.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class PageFilteringTest extends SparkTestBase {
  private static final int ROWS = 10_000;
  private static final String TABLE = "prot.db.customers";
  private static final String RANGE = " WHERE id BETWEEN 5000 AND 5049";

  @BeforeAll
  static void createTable() {
    // Small pages that break at other rows per column: Parquet checks page sizes every 100 rows or
    // more, and flushes a column's page once it holds 1 KiB, so the long emails get pages of about
    // 100 rows and the ids of about 200.
    spark.sql(
        "CREATE TABLE "
            + TABLE
            + " (id bigint NOT NULL, name string, ssn string, email string, salary decimal(10,2),"
            + " address struct<city: string, zip: string>) USING iceberg TBLPROPERTIES ("
            + "'write.parquet.page-size-bytes'='1024',"
            + " 'write.distribution-mode'='none', 'write.delete.mode'='merge-on-read',"
            + " 'format-version'='2')");
    asUser(
        "etl",
        () ->
            spark.sql(
                "INSERT INTO "
                    + TABLE
                    + " SELECT id, format_string('name-%05d', id), format_string('SSN-%05d', id),"
                    + " concat(repeat('x', cast(id % 37 AS int)), format_string('-%05d@example.com',"
                    + " id)), cast(id AS decimal(10,2)), named_struct('city', 'c', 'zip', 'z')"
                    + " FROM range(0, "
                    + ROWS
                    + ", 1, 1)"));
  }

  @AfterEach
  void defaultVectorization() {
    spark.conf().unset(ColumnarReadSqlTest.VECTORIZATION);
  }

  @ParameterizedTest(name = "vectorized={0}")
  @ValueSource(booleans = {true, false})
  @Order(1)
  void aSelectiveFilterReadsOnlyMatchingPagesAndKeepsColumnsAligned(boolean vectorized) {
    spark.conf().set(ColumnarReadSqlTest.VECTORIZATION, Boolean.toString(vectorized));
    Scan alice = scan("alice", "SELECT id, name, ssn, email, salary FROM " + TABLE + RANGE);
    assertThat(alice.rows).hasSize(50);
    for (Row row : alice.rows) {
      long id = row.getLong(0);
      assertThat(row.getString(1)).isEqualTo(String.format("name-%05d", id));
      assertThat(row.getString(2)).isEqualTo(String.format("SSN-%05d", id));
      assertThat(row.getString(3)).endsWith(String.format("-%05d@example.com", id));
      assertThat(row.getDecimal(4).longValueExact()).isEqualTo(id);
    }
    assertThat(alice.scannedRows)
        .as("rows the scan returned to Spark out of %d", ROWS)
        .isLessThanOrEqualTo(600);
    System.out.printf(
        "[page filtering] vectorized=%s: alice's scan returned %d of %d rows%n",
        vectorized, alice.scannedRows, ROWS);

    Scan bob = scan("bob", "SELECT id, ssn FROM " + TABLE + RANGE);
    assertThat(bob.rows).hasSize(50);
    for (Row row : bob.rows) {
      String clear = String.format("SSN-%05d", row.getLong(0));
      assertThat(row.getString(1))
          .as("bob's masked ssn of row %d", row.getLong(0))
          .isNotEqualTo(clear)
          .endsWith(clear.substring(clear.length() - 4));
    }
    assertThat(bob.scannedRows).isLessThanOrEqualTo(600);
  }

  @Test
  @Order(2)
  void aFilterOnAMaskedColumnPrunesNoPage() {
    String query = "SELECT id FROM " + TABLE + " WHERE ssn = 'SSN-05000'";
    Scan alice = scan("alice", query);
    assertThat(alice.rows).hasSize(1);
    assertThat(alice.scannedRows)
        .as("alice reads ssn in clear: its index prunes")
        .isLessThanOrEqualTo(600);
    Scan bob = scan("bob", query);
    assertThat(bob.rows).as("bob compares masked values").isEmpty();
    assertThat(bob.scannedRows)
        .as("bob's filter on his masked ssn must not select pages by clear values")
        .isEqualTo(ROWS);
  }

  @Test
  @Order(3)
  void filteringOnAClearColumnRequestsNoColumnKey() throws Exception {
    ProtectorCrypto.forgetAllCachedKeys();
    Scan plainColumns = scan("alice", "SELECT id, name FROM " + TABLE + RANGE);
    assertThat(plainColumns.rows).hasSize(50);
    assertThat(ColumnarReadSqlTest.keyServiceCallsOfLastExecution())
        .as("only the footer key: no column key is requested to filter pages")
        .isEqualTo(1L);
  }

  @Test
  @Order(4)
  void rowLevelDeletesStayCorrect() {
    asUser("etl", () -> spark.sql("DELETE FROM " + TABLE + " WHERE id % 7 = 0"));
    Scan alice = scan("alice", "SELECT id, ssn FROM " + TABLE + RANGE);
    List<Long> ids = alice.rows.stream().map(r -> r.getLong(0)).collect(Collectors.toList());
    assertThat(ids).hasSize(50 - 7).noneMatch(id -> id % 7 == 0);
    assertThat(alice.rows)
        .allMatch(r -> r.getString(1).equals(String.format("SSN-%05d", r.getLong(0))));
  }

  @Test
  @Order(5)
  void copyOnWriteKeepsEveryRowItDoesNotDelete() {
    // A rewrite copies the rows it keeps: its scan must never skip pages by the condition.
    spark.sql("ALTER TABLE " + TABLE + " SET TBLPROPERTIES ('write.delete.mode'='copy-on-write')");
    long before = scan("alice", "SELECT id FROM " + TABLE).rows.size();
    asUser("alice", () -> spark.sql("DELETE FROM " + TABLE + " WHERE id BETWEEN 8000 AND 8049"));
    List<Row> left = scan("alice", "SELECT id, ssn FROM " + TABLE).rows;
    long deleted = LongStream.rangeClosed(8000, 8049).filter(id -> id % 7 != 0).count();
    assertThat(left).hasSize((int) (before - deleted));
    assertThat(left)
        .allMatch(r -> r.getString(1).equals(String.format("SSN-%05d", r.getLong(0))))
        .noneMatch(r -> r.getLong(0) >= 8000 && r.getLong(0) <= 8049);
  }

  private static final class Scan {
    final List<Row> rows;
    final long scannedRows;

    Scan(List<Row> rows, long scannedRows) {
      this.rows = rows;
      this.scannedRows = scannedRows;
    }
  }

  /** Runs {@code query} as {@code user}: its rows, and the rows its table scan returned. */
  private static Scan scan(String user, String query) {
    String previous = spark.conf().get("spark.sql.catalog.prot.protector.user");
    spark.conf().set("spark.sql.catalog.prot.protector.user", user);
    try {
      Dataset<Row> df = spark.sql(query);
      List<Row> rows = df.collectAsList();
      SparkPlan plan = df.queryExecution().executedPlan();
      if (plan instanceof AdaptiveSparkPlanExec) {
        plan = ((AdaptiveSparkPlanExec) plan).executedPlan();
      }
      long scanned =
          ScalaCollections.asJava(plan.collectLeaves()).stream()
              .filter(BatchScanExec.class::isInstance)
              .mapToLong(p -> p.metrics().apply("numOutputRows").value())
              .sum();
      return new Scan(rows, scanned);
    } finally {
      spark.conf().set("spark.sql.catalog.prot.protector.user", previous);
    }
  }
}
