/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.spark;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.function.Predicate;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.core.LoggerContext;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * With the root logger at INFO, Spark's own plan log lines ({@code V2ScanRelationPushDown}'s pushed
 * and post-scan filters) hold no literal compared with a protected column, whoever reads and
 * however the literal is written (issue 30, item 7). Queries over unprotected tables keep theirs.
 */
class SparkPlanLogRedactionTest extends SparkTestBase {
  private static final String T = "prot.db.customers";
  private static final String OPEN = "prot.db.open_orders";
  private static final String PUSHDOWN = "V2ScanRelationPushDown";

  @BeforeAll
  static void createTables() {
    spark.sql("DROP TABLE IF EXISTS " + T + " PURGE");
    spark.sql(
        "CREATE TABLE "
            + T
            + " (id BIGINT, ssn STRING, email STRING, salary DECIMAL(10,2),"
            + " address STRUCT<city: STRING, zip: STRING>) USING iceberg");
    spark.sql(
        "INSERT INTO "
            + T
            + " VALUES (1, 'SSN-1', 'e1@x.test', 10.00, named_struct('city', 'c', 'zip', 'z'))");
    spark.sql("DROP TABLE IF EXISTS " + OPEN + " PURGE");
    spark.sql("CREATE TABLE " + OPEN + " (id BIGINT, code STRING) USING iceberg");
    spark.sql("INSERT INTO " + OPEN + " VALUES (1, 'SSN-1')");
  }

  @Test
  void pushedAndPostScanFiltersAreRedactedForEveryReader() {
    try (LogCapture logs = new LogCapture()) {
      for (String user : List.of("alice", "bob", "etl")) {
        String c = "CANARY-" + user.toUpperCase();
        sqlAs(user, "SELECT id FROM " + T + " WHERE ssn = '" + c + "-EQ' AND id > 7");
        sqlAs(user, "SELECT id FROM " + T + " WHERE ssn IN ('" + c + "-IN1', '" + c + "-IN2')");
        sqlAs(user, "SELECT id FROM " + T + " WHERE address.zip = '" + c + "-ZIP'");
        sqlAs(user, "SELECT id FROM " + T + " WHERE email LIKE '" + c + "-LIKE%'");
        sqlAs(user, "SELECT id FROM " + T + " WHERE salary = 98765.43");
        sqlAs(user, "SELECT id FROM " + T + " WHERE ssn = 'O''" + c + "-QUOTE'");
      }
      List<String> lines = logs.lines();
      assertThat(lines).filteredOn(line -> line.contains(PUSHDOWN)).hasSizeGreaterThanOrEqualTo(18);
      assertThat(lines).noneMatch(line -> line.contains("CANARY") || line.contains("98765"));
      // alice reads ssn in clear: her filter is pushed to Iceberg, and shown redacted in both lists
      assertThat(lines)
          .filteredOn(line -> line.contains(PUSHDOWN))
          .anyMatch(line -> line.matches("(?s).*Pushed Filters: .*ssn = '<redacted>'.*"))
          .anyMatch(
              line -> line.matches("(?s).*Post-Scan Filters: .*\\(ssn#\\d+ = <redacted>\\).*"))
          // a literal on another column of the query goes too: a join may carry it over to ssn
          .anyMatch(line -> line.contains("id > <redacted>"));
    }
  }

  @Test
  void literalsCarriedOverByAJoinAreRedacted() {
    try (LogCapture logs = new LogCapture()) {
      // the optimizer infers customers.ssn = 'JOIN-CANARY' from the join and pushes it to the scan
      sqlAs(
          "alice",
          "SELECT c.id FROM "
              + T
              + " c JOIN "
              + OPEN
              + " o ON c.ssn = o.code WHERE o.code = 'JOIN-CANARY'");
      sqlAs("alice", "DELETE FROM " + T + " WHERE ssn = 'DELETE-CANARY'");
      assertThat(logs.lines()).anyMatch(line -> line.contains(PUSHDOWN));
      assertThat(logs.lines()).noneMatch(line -> line.contains("CANARY"));
    }
  }

  @Test
  void queriesOverUnprotectedTablesKeepTheirLiterals() {
    try (LogCapture logs = new LogCapture()) {
      sqlAs("etl", "SELECT id FROM " + OPEN + " WHERE code = 'VISIBLE-LITERAL'");
      assertThat(logs.lines())
          .filteredOn(line -> line.contains(PUSHDOWN))
          .anyMatch(line -> line.contains("code = 'VISIBLE-LITERAL'"));
    }
  }

  @Test
  void redactionSurvivesALoggingReconfiguration() {
    ((LoggerContext) LogManager.getContext(false)).reconfigure();
    try (LogCapture logs = new LogCapture()) {
      sqlAs("alice", "SELECT id FROM " + T + " WHERE ssn = 'RECONFIGURED-CANARY'");
      Predicate<String> pushdown = line -> line.contains(PUSHDOWN);
      assertThat(logs.lines()).anyMatch(pushdown);
      assertThat(logs.lines()).noneMatch(line -> line.contains("RECONFIGURED-CANARY"));
    }
  }
}
