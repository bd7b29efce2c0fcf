/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.spark.tokens;

import static org.assertj.core.api.Assertions.assertThat;

import io.icebergprotector.spark.SparkTestBase;
import io.icebergprotector.spark.compat.ScalaCollections;
import io.icebergprotector.spark.compat.SparkCompat;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Collectors;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.catalyst.plans.logical.DeserializeToObject;
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan;
import org.apache.spark.sql.catalyst.plans.logical.MapPartitions;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The rewrite that batches token calls, applied here to local-mode calls (in server mode it is the
 * same rewrite; {@code TokenServerModeTest} counts its requests): the rewritten plan keeps the
 * query's output and rows, whatever the types of the columns that pass through it.
 */
class TokenCallBatchingTest extends SparkTestBase {
  private static final String ALL = "SELECT *, protect(ssn, 'ssn') AS token FROM mixed";

  @BeforeAll
  static void view() {
    // the hint keeps the columns below the projection: they pass through the batching
    spark.sql(
        "CREATE OR REPLACE TEMPORARY VIEW mixed AS SELECT /*+ REPARTITION(2) */ id,"
            + " IF(id % 3 = 2, NULL, format_string('%03d-45-6789', id)) AS ssn,"
            + " CAST(id * 1.25 AS DECIMAL(10, 2)) AS amount,"
            + " date_add(DATE'2024-02-28', CAST(id AS INT)) AS day,"
            + " TIMESTAMP'2024-01-01 10:00:00' + make_interval(0, 0, 0, 0, CAST(id AS INT)) AS at,"
            + " IF(id = 4, NULL, array(string(id), NULL)) AS tags,"
            + " map('k', id) AS attrs,"
            + " named_struct('x', id, 'y', array(named_struct('z', 'deep'))) AS point,"
            + " CAST(string(id) AS BINARY) AS raw,"
            + " CAST(id AS SMALLINT) AS small"
            + " FROM range(0, 2500)");
  }

  @AfterAll
  static void dropView() {
    spark.sql("DROP VIEW IF EXISTS mixed");
  }

  /** The query's optimized plan with every token call of a projection batched. */
  private static LogicalPlan rewritten(String query) {
    return rewritten(asAlice(() -> spark.sql(query).queryExecution().optimizedPlan()));
  }

  private static LogicalPlan rewritten(LogicalPlan optimized) {
    return new TokenCallBatching(call -> true).apply(optimized);
  }

  private static <T> T asAlice(java.util.function.Supplier<T> action) {
    String previous = spark.conf().get("spark.sql.catalog.prot.protector.user");
    spark.conf().set("spark.sql.catalog.prot.protector.user", "alice");
    try {
      return action.get();
    } finally {
      spark.conf().set("spark.sql.catalog.prot.protector.user", previous);
    }
  }

  private static List<Row> rows(LogicalPlan plan) {
    return sorted(asAlice(() -> SparkCompat.ofRows(spark, plan).collectAsList()));
  }

  private static List<Row> sorted(List<Row> rows) {
    return rows.stream()
        .sorted(Comparator.comparing(r -> String.valueOf(r.get(0))))
        .collect(Collectors.toList());
  }

  private static long batchings(LogicalPlan plan) {
    return ScalaCollections.asJava(
            plan.collect(ScalaCollections.total((LogicalPlan p) -> p instanceof MapPartitions)))
        .stream()
        .filter(Boolean.class::cast)
        .count();
  }

  @Test
  void columnsOfEveryTypePassThroughAndTheOutputKeepsItsAttributes() {
    Dataset<Row> query = asAlice(() -> spark.sql(ALL));
    LogicalPlan optimized = asAlice(() -> query.queryExecution().optimizedPlan());
    LogicalPlan plan = rewritten(optimized);
    assertThat(batchings(plan)).isEqualTo(1);
    assertThat(plan.output()).isEqualTo(optimized.output());
    List<Row> expected = sorted(asAlice(query::collectAsList));
    assertThat(rows(plan)).hasSize(2500).isEqualTo(expected);
    assertThat(expected.get(1).getString(10)).matches("\\d{3}-\\d{2}-\\d{4}");
    assertThat(expected)
        .filteredOn(r -> r.isNullAt(1))
        .isNotEmpty()
        .allSatisfy(r -> assertThat(r.isNullAt(10)).isTrue());
  }

  /** The batch sizes of the batched projections of {@code plan}. */
  private static List<Integer> batchSizes(LogicalPlan plan) {
    return ScalaCollections.asJava(
            plan.collect(
                ScalaCollections.total(
                    (LogicalPlan p) ->
                        p instanceof MapPartitions
                            ? TokenCallBatching.batchSizeOf(((MapPartitions) p).func())
                            : -1)))
        .stream()
        .map(Integer.class::cast)
        .filter(n -> n >= 0)
        .collect(Collectors.toList());
  }

  @Test
  void aLimitAboveTheCallsCapsTheirBatchesSoNoValuePastItIsSent() {
    String limited = "SELECT id, protect(ssn, 'ssn') AS token FROM mixed";
    assertThat(batchSizes(rewritten(limited + " LIMIT 3"))).containsExactly(3);
    assertThat(rows(rewritten(limited + " LIMIT 3"))).hasSize(3);
    // a filter between the limit and the calls keeps the cap (each batch holds at most 5)
    assertThat(
            batchSizes(rewritten("SELECT * FROM (" + limited + ") WHERE token LIKE '0%' LIMIT 5")))
        .containsExactly(5);
    assertThat(batchSizes(rewritten(limited + " LIMIT 3 OFFSET 2"))).containsExactly(5);
    // a sort reads every row before the limit applies: full batches
    assertThat(batchSizes(rewritten(limited + " ORDER BY token LIMIT 3")))
        .containsExactly(TokenCallBatching.BATCH_SIZE);
    assertThat(batchSizes(rewritten(limited))).containsExactly(TokenCallBatching.BATCH_SIZE);
  }

  @Test
  void callsOfAJoinsProjectionBatchWithColumnsOfTheSameName() {
    String join =
        "SELECT a.id, b.id, a.ssn, unprotect(protect(a.ssn, 'ssn'), 'ssn') AS back"
            + " FROM mixed a JOIN mixed b ON a.id = b.id";
    LogicalPlan plan = rewritten(join);
    assertThat(batchings(plan)).as("the inner call batches, the outer one reads it").isEqualTo(1);
    List<Row> rows = rows(plan);
    assertThat(rows)
        .hasSize(2500)
        .isEqualTo(sorted(asAlice(() -> spark.sql(join).collectAsList())));
    assertThat(rows).allSatisfy(r -> assertThat(r.get(3)).isEqualTo(r.get(2)));
  }

  @Test
  void callsAnAggregateOrAJoinReadsForEveryRowBatchInAProjectionBelowIt() {
    for (String query :
        List.of(
            "SELECT protect(ssn, 'ssn') AS t, count(*), max(protect(ssn, 'ssn')) FROM mixed"
                + " GROUP BY 1",
            "SELECT a.id, b.id, a.ssn FROM mixed a JOIN mixed b"
                + " ON protect(a.ssn, 'ssn') = protect(b.ssn, 'ssn') AND a.id + 0 = b.id")) {
      Dataset<Row> df = asAlice(() -> spark.sql(query));
      LogicalPlan optimized = asAlice(() -> df.queryExecution().optimizedPlan());
      LogicalPlan plan = rewritten(optimized);
      assertThat(batchings(plan)).as(query).isPositive();
      assertThat(plan.toString())
          .as("no aggregate or join evaluates a call itself")
          .doesNotContainPattern("(Aggregate|Join)[^\\n]*protect\\(\\w+#");
      assertThat(plan.output()).isEqualTo(optimized.output());
      assertThat(rows(plan)).as(query).isNotEmpty().isEqualTo(sorted(asAlice(df::collectAsList)));
    }
  }

  @Test
  void onlyTheColumnsTheProjectionReadsPassThroughTheBatching() {
    String query = "SELECT id, protect(ssn, 'ssn') FROM mixed";
    String excluded = "spark.sql.optimizer.excludedRules";
    // without column pruning the projection's input keeps every column of the view
    spark.conf().set(excluded, "org.apache.spark.sql.catalyst.optimizer.ColumnPruning");
    try {
      Dataset<Row> df = asAlice(() -> spark.sql(query));
      LogicalPlan optimized = asAlice(() -> df.queryExecution().optimizedPlan());
      assertThat(optimized.children().head().output().size()).isEqualTo(10);
      LogicalPlan plan = rewritten(optimized);
      List<Object> widths =
          ScalaCollections.asJava(
              plan.collect(
                  ScalaCollections.total(
                      (LogicalPlan p) ->
                          p instanceof DeserializeToObject
                              ? ((DeserializeToObject) p).child().output().size()
                              : -1)));
      assertThat(widths).contains(3); // id, ssn, and the call's argument
      assertThat(rows(plan)).isEqualTo(sorted(asAlice(df::collectAsList)));
    } finally {
      spark.conf().unset(excluded);
    }
  }

  @Test
  void callsThatOnlySomeRowsEvaluateAreLeftInPlace() {
    for (String query :
        List.of(
            "SELECT id, CASE WHEN id = 1 THEN protect(ssn, 'ssn') END FROM mixed",
            "SELECT id, coalesce(ssn, protect(ssn, 'ssn')) FROM mixed",
            "SELECT id, id > 3 AND protect(ssn, 'ssn') = 'x' FROM mixed",
            "SELECT id, transform(array(ssn), s -> protect(s, 'ssn')) FROM mixed")) {
      LogicalPlan plan = rewritten(query);
      assertThat(batchings(plan)).as(query).isZero();
      assertThat(rows(plan)).hasSize(2500);
    }
  }
}
