/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.spark.read;

import static org.assertj.core.api.Assertions.assertThat;

import io.icebergprotector.spark.SparkTestBase;
import io.icebergprotector.spark.compat.ScalaCollections;
import io.icebergprotector.spark.crypto.ProtectorCrypto;
import io.icebergprotector.spark.metrics.KeyServiceCallsMetric;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.execution.ui.SQLAppStatusStore;
import org.apache.spark.sql.execution.ui.SQLExecutionUIData;
import org.apache.spark.sql.execution.ui.SQLPlanMetric;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * SQL through the protector catalog with Iceberg's vectorization switch on and off: the same rows
 * per role either way, filters on denied columns behave like filters on NULL, and the
 * key-service-call metric of writes and scans reaches Spark's SQL metrics (the Spark UI).
 */
class ColumnarReadSqlTest extends SparkTestBase {
  static final String VECTORIZATION = "spark.sql.iceberg.vectorization.enabled";
  static final String FLAT = "SELECT id, name, ssn, email, salary FROM prot.db.customers";

  @BeforeAll
  static void createTable() {
    spark.sql(
        "CREATE TABLE prot.db.customers (id bigint NOT NULL, name string, ssn string, email"
            + " string, salary decimal(10,2), address struct<city: string, zip: string>) USING"
            + " iceberg");
    asUser(
        "etl",
        () -> {
          spark.sql(
              "INSERT INTO prot.db.customers VALUES"
                  + " (1, 'Ann', '123-45-6789', 'ann@example.com', 1234.50,"
                  + "  named_struct('city', 'Berlin', 'zip', '10115')),"
                  + " (2, 'Bob', NULL, NULL, NULL, NULL)");
          spark.sql(
              "INSERT INTO prot.db.customers VALUES"
                  + " (11, 'Dan', '111-22-3333', 'dan@example.com', 500.00,"
                  + "  named_struct('city', 'Rome', 'zip', '00100')),"
                  + " (12, 'Eve', '444-55-6666', 'eve@example.com', 99.99, NULL)");
        });
  }

  @AfterEach
  void defaultVectorization() {
    spark.conf().unset(VECTORIZATION);
  }

  static List<Row> sorted(List<Row> rows) {
    List<Row> copy = new ArrayList<>(rows);
    copy.sort(Comparator.comparingLong(r -> r.getLong(0)));
    return copy;
  }

  static String plan(String user, String query) {
    return sqlAs(user, "EXPLAIN " + query).get(0).getString(0);
  }

  @Test
  void flatQueriesScanColumnarAndNestedOnesRowByRow() {
    assertThat(plan("bob", FLAT)).contains("ColumnarToRow").contains("columnar");
    String nested = "SELECT id, address.zip FROM prot.db.customers";
    assertThat(plan("bob", nested)).doesNotContain("ColumnarToRow").contains("rows");
    spark.conf().set(VECTORIZATION, "false");
    assertThat(plan("bob", FLAT)).doesNotContain("ColumnarToRow");
  }

  @ParameterizedTest(name = "user={0}")
  @ValueSource(strings = {"alice", "bob", "etl"})
  void vectorizedAndRowReadsGiveTheSameResultsPerRole(String user) {
    spark.conf().set(VECTORIZATION, "true");
    List<Row> columnar = sorted(sqlAs(user, FLAT));
    spark.conf().set(VECTORIZATION, "false");
    List<Row> rows = sorted(sqlAs(user, FLAT));

    assertThat(columnar).hasSize(4).containsExactlyElementsOf(rows);
    if (user.equals("bob")) {
      assertThat(columnar.get(0).getString(2)).isEqualTo("*******6789");
      assertThat(columnar.get(0).isNullAt(4)).isTrue();
    }
  }

  @ParameterizedTest(name = "vectorization={0}")
  @ValueSource(booleans = {true, false})
  void filterOnADeniedColumnMatchesNothingButNull(boolean vectorization) {
    spark.conf().set(VECTORIZATION, Boolean.toString(vectorization));
    assertThat(sqlAs("bob", "SELECT id FROM prot.db.customers WHERE salary > 0")).isEmpty();
    assertThat(sqlAs("bob", "SELECT id FROM prot.db.customers WHERE salary IS NULL")).hasSize(4);
    assertThat(sqlAs("alice", "SELECT id FROM prot.db.customers WHERE salary > 100")).hasSize(2);
  }

  @Test
  void keyServiceCallsOfWritesAndScansShowInTheSqlMetrics() throws Exception {
    spark.sql("CREATE TABLE prot.db.strict (id bigint, salary decimal(10,2)) USING iceberg");
    ProtectorCrypto.forgetAllCachedKeys();
    asUser(
        "etl",
        () ->
            spark.sql(
                "INSERT INTO prot.db.strict SELECT /*+ REPARTITION(8) */ id, CAST(id AS"
                    + " decimal(10,2)) FROM range(64)"));
    assertThat(dataFiles("db.strict")).hasSizeGreaterThanOrEqualTo(8);
    // one wrap per master key (footer, fin) per cache lifetime, however many files and tasks
    assertThat(keyServiceCallsOfLastExecution()).isEqualTo(2L);

    ProtectorCrypto.forgetAllCachedKeys();
    String query = "SELECT id, salary FROM prot.db.strict";
    assertThat(plan("alice", query)).contains("ColumnarToRow");
    assertThat(sqlAs("alice", query)).hasSize(64);
    // one unwrap per key-encryption key (footer, fin) for all 8+ files of the executor
    assertThat(keyServiceCallsOfLastExecution()).isEqualTo(2L);

    assertThat(sqlAs("alice", query)).hasSize(64);
    assertThat(keyServiceCallsOfLastExecution()).as("cached KEKs: no more calls").isZero();
  }

  /** The sum of the "key service calls" SQL metrics of the latest SQL execution. */
  static long keyServiceCallsOfLastExecution() throws Exception {
    spark.sparkContext().listenerBus().waitUntilEmpty();
    SQLAppStatusStore store = spark.sharedState().statusStore();
    SQLExecutionUIData last =
        ScalaCollections.asJava(store.executionsList()).stream()
            .max(Comparator.comparingLong(SQLExecutionUIData::executionId))
            .orElseThrow();
    scala.collection.Map<Object, String> values = store.executionMetrics(last.executionId());
    // adaptive execution lists a node again in each plan version: count each metric once
    java.util.Map<Long, Long> byAccumulator = new java.util.HashMap<>();
    for (SQLPlanMetric metric : ScalaCollections.asJava(last.metrics())) {
      if (metric.name().equals(KeyServiceCallsMetric.DESCRIPTION)) {
        scala.Option<String> value = values.get(metric.accumulatorId());
        byAccumulator.put(
            metric.accumulatorId(), value.isDefined() ? Long.parseLong(value.get().trim()) : 0L);
      }
    }
    assertThat(byAccumulator)
        .as("a '%s' metric in the SQL plan", KeyServiceCallsMetric.DESCRIPTION)
        .isNotEmpty();
    return byAccumulator.values().stream().mapToLong(Long::longValue).sum();
  }
}
