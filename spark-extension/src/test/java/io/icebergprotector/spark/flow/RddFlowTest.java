/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.spark.flow;

import static io.icebergprotector.spark.flow.DataFlowTest.as;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.icebergprotector.spark.SparkTestBase;
import io.icebergprotector.spark.core.CatalogOptions;
import io.icebergprotector.spark.core.ProtectorException;
import java.io.IOException;
import java.nio.file.Files;
import java.util.concurrent.TimeoutException;
import org.apache.spark.api.java.function.VoidFunction2;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Encoders;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.streaming.StreamingQuery;
import org.apache.spark.sql.streaming.Trigger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Issue 30, item 5: a DataFrame made from an RDD ({@code createDataFrame(df.rdd(), schema)}, {@code
 * createDataset(rdd)}, a {@code foreachBatch} batch) keeps the lineage of the protected reads
 * behind it. A masked writer who copies its masks through an RDD into a new row is refused as in
 * SQL; a clear reader's copy into an unprotected table is declassification. DataFlowTest's catalog
 * {@code flow} and path prefix, with its rows.
 */
class RddFlowTest extends SparkTestBase {
  private static final String CUSTOMERS = "flow.shop.customers";
  private static final String SSN_CANARY = "SSN-CNRY";

  @BeforeAll
  static void flowCatalog() throws IOException {
    DataFlowTest.flowCatalog();
  }

  @AfterEach
  void declassifyOff() {
    spark.conf().unset(CatalogOptions.DECLASSIFY.key());
  }

  private static long rows(String table) {
    return as("alice", () -> spark.table(table).count());
  }

  /** bob's masked view of the customers, copied through an RDD into new rows. */
  private static Dataset<Row> throughRdd(Dataset<Row> read) {
    return spark.createDataFrame(
        read.toJavaRDD()
            .map(
                row -> RowFactory.create(row.getLong(0) + 100, row.getString(1), row.getString(2))),
        read.schema());
  }

  private static void append(Dataset<Row> rows, String table) {
    try {
      rows.writeTo(table).append();
    } catch (org.apache.spark.sql.catalyst.analysis.NoSuchTableException e) {
      throw new IllegalStateException(e);
    }
  }

  @Test
  void maskedWriterCannotStoreMasksThroughAnRdd() {
    long before = rows(CUSTOMERS);
    assertThatThrownBy(() -> as("bob", () -> append(throughRdd(spark.table(CUSTOMERS)), CUSTOMERS)))
        .isInstanceOf(ProtectorException.class)
        .hasMessageContaining(
            "Cannot write to protected table flow.shop.customers: it would store protector views")
        .hasMessageContaining(
            "column 'ssn' <- column 'ssn' of RDD read from table flow.shop.customers, read by bob"
                + " as masked (partial(keep_last=4))")
        .satisfies(e -> assertThat(e.getMessage()).doesNotContain(SSN_CANARY));
    assertThat(rows(CUSTOMERS)).as("nothing stored").isEqualTo(before);
  }

  @Test
  void lineageSurvivesShufflesCachesAndDatasets() {
    // a shuffle: the rows reach the RDD through a shuffle dependency
    assertThatThrownBy(
            () ->
                as(
                    "bob",
                    () -> append(throughRdd(spark.table(CUSTOMERS).repartition(3)), CUSTOMERS)))
        .isInstanceOf(ProtectorException.class)
        .hasMessageContaining("of RDD read from table flow.shop.customers, read by bob as masked");
    // a cached DataFrame: its RDD is built from the cache's, which is built from the scan's
    as(
        "bob",
        () -> {
          Dataset<Row> cached = spark.table(CUSTOMERS).cache();
          try {
            cached.count();
            assertThatThrownBy(() -> append(throughRdd(cached), CUSTOMERS))
                .isInstanceOf(ProtectorException.class)
                .hasMessageContaining("column 'ssn' <- column 'ssn' of RDD read from table");
          } finally {
            cached.unpersist(true);
          }
        });
    // a typed Dataset made from an RDD of strings (ExternalRDD)
    assertThatThrownBy(
            () ->
                as(
                    "bob",
                    () -> {
                      Dataset<String> ssns =
                          spark.createDataset(
                              spark.table(CUSTOMERS).toJavaRDD().map(row -> row.getString(2)).rdd(),
                              Encoders.STRING());
                      append(
                          ssns.selectExpr(
                              "CAST(900 AS BIGINT) AS id", "'x' AS name", "value AS ssn"),
                          CUSTOMERS);
                    }))
        .isInstanceOf(ProtectorException.class)
        .hasMessageContaining(
            "column 'ssn' <- column 'ssn' of RDD read from table flow.shop.customers, read by bob"
                + " as masked");
  }

  @Test
  void pathPrefixReadsKeepTheirLineageThroughAnRdd() {
    long before = rows(CUSTOMERS);
    assertThatThrownBy(
            () ->
                as(
                    "bob",
                    () ->
                        append(
                            throughRdd(spark.read().parquet(DataFlowTest.prefix() + "people")),
                            CUSTOMERS)))
        .isInstanceOf(ProtectorException.class)
        .hasMessageContaining(
            "column 'ssn' <- column 'ssn' of RDD read from path prefix "
                + DataFlowTest.prefix()
                + ", read by bob as masked (partial(keep_last=4))");
    assertThat(rows(CUSTOMERS)).isEqualTo(before);
  }

  @Test
  void aClearCopyThroughAnRddIntoAnUnprotectedTableIsDeclassification() {
    long before = rows("flow.shop.plain");
    assertThatThrownBy(
            () ->
                as(
                    "alice",
                    () ->
                        append(
                            throughRdd(spark.table(CUSTOMERS)).selectExpr("id", "ssn AS v"),
                            "flow.shop.plain")))
        .isInstanceOf(ProtectorException.class)
        .hasMessageContaining(
            "Cannot write to table flow.shop.plain, which the policy does not protect: it would"
                + " declassify protected data")
        .hasMessageContaining(
            "column 'v' <- column 'ssn' of RDD read from table flow.shop.customers, read by alice"
                + " as clear")
        // what the RDD did is code: every column may hold ssn
        .hasMessageContaining("column 'id' <- column 'ssn' of RDD read from table")
        .hasMessageContaining(
            "A DataFrame made from an RDD carries, in every column, each protected column read"
                + " into the RDD")
        .satisfies(e -> assertThat(e.getMessage()).doesNotContain(SSN_CANARY));
    assertThat(rows("flow.shop.plain")).isEqualTo(before);
    // on purpose, as a declassifier, it is allowed
    spark.conf().set(CatalogOptions.DECLASSIFY.key(), "true");
    as(
        "alice",
        () ->
            append(
                throughRdd(spark.table(CUSTOMERS)).selectExpr("id", "ssn AS v"),
                "flow.shop.plain"));
    assertThat(rows("flow.shop.plain")).isEqualTo(before + 2);
    as("alice", () -> spark.sql("DELETE FROM flow.shop.plain WHERE id > 100"));
  }

  @Test
  void anRddOfUnprotectedColumnsCarriesNothing() {
    long before = rows("flow.shop.plain");
    as(
        "bob",
        () -> {
          Dataset<Row> read = spark.table(CUSTOMERS).select("id", "name");
          append(
              spark.createDataFrame(read.toJavaRDD(), read.schema()).toDF("id", "v"),
              "flow.shop.plain");
        });
    assertThat(rows("flow.shop.plain")).isEqualTo(before + 2);
    as("alice", () -> spark.sql("DELETE FROM flow.shop.plain WHERE v IN ('Ada', 'Bo')"));
  }

  @Test
  void foreachBatchBatchesKeepTheLineageOfTheirStream() throws Exception {
    long before = rows(CUSTOMERS);
    String checkpoint = Files.createTempDirectory("protector-rdd-stream").toString();
    VoidFunction2<Dataset<Row>, Long> copyBack =
        (batch, id) -> append(batch.selectExpr("id + 100 AS id", "name", "ssn"), CUSTOMERS);
    StreamingQuery query =
        as(
            "bob",
            () -> {
              try {
                return spark
                    .readStream()
                    .table(CUSTOMERS)
                    .writeStream()
                    .foreachBatch(copyBack)
                    .trigger(Trigger.AvailableNow())
                    .option("checkpointLocation", checkpoint)
                    .start();
              } catch (TimeoutException e) {
                throw new IllegalStateException(e);
              }
            });
    Throwable failure = catchThrowable(query::awaitTermination);
    assertThat(failure).isNotNull();
    Throwable cause = failure;
    while (cause != null && !(cause instanceof ProtectorException)) {
      cause = cause.getCause();
    }
    assertThat(cause)
        .as("the batch's write is refused: %s", failure)
        .isInstanceOf(ProtectorException.class)
        .hasMessageContaining(
            "column 'ssn' <- column 'ssn' of RDD read from table flow.shop.customers, read by bob"
                + " as masked");
    assertThat(rows(CUSTOMERS)).isEqualTo(before);
  }
}
