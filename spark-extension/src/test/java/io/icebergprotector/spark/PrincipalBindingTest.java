/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.spark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.icebergprotector.spark.core.ProtectorException;
import java.util.List;
import java.util.stream.Collectors;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A plan built by one principal never runs with another principal's view or keys (local mode, where
 * a session names its principal in its settings and may switch). Each attack of the review: a
 * DataFrame, a temp view, a global temp view, CACHE TABLE and df.cache(), built as alice and read
 * after the session switched to mallory (no role). Every case ends with an error or mallory's own
 * view (NULL), never alice's clear values.
 */
class PrincipalBindingTest extends SparkTestBase {
  private static final String SSN = "987-65-4329";
  private static final String USER = "spark.sql.catalog.prot.protector.user";

  @BeforeAll
  static void createTable() {
    spark.sql("DROP TABLE IF EXISTS prot.db.customers");
    spark.sql(
        "CREATE TABLE prot.db.customers (id BIGINT, name STRING, ssn STRING, email STRING,"
            + " salary DECIMAL(10,2), address STRUCT<city: STRING, zip: STRING>) USING iceberg");
    sqlAs(
        "etl",
        "INSERT INTO prot.db.customers VALUES (1, 'Ann', '"
            + SSN
            + "', 'ann@x.test', 4242.42,"
            + " named_struct('city', 'Oslo', 'zip', '0150'))");
  }

  @AfterEach
  void reset() {
    spark.catalog().clearCache();
    spark.conf().set(USER, "etl");
  }

  private static void actAs(String user) {
    spark.conf().set(USER, user);
  }

  private static List<String> ssns(Dataset<Row> df) {
    return df.select("ssn").collectAsList().stream()
        .map(r -> r.isNullAt(0) ? null : r.getString(0))
        .collect(Collectors.toList());
  }

  @Test
  void aDataFrameBuiltAsAliceReadsAsMallory() {
    actAs("alice");
    Dataset<Row> df = spark.table("prot.db.customers").select("id", "ssn");
    actAs("mallory");
    assertThat(ssns(df)).containsExactly((String) null);
  }

  @Test
  void aDataFrameExecutedAsAliceIsRefusedWhenRunAgainAsMallory() {
    actAs("alice");
    Dataset<Row> df = spark.table("prot.db.customers").select("id", "ssn");
    assertThat(df.collectAsList().get(0).getString(1)).isEqualTo(SSN);
    actAs("mallory");
    assertThatThrownBy(df::collectAsList)
        .hasRootCauseInstanceOf(ProtectorException.class)
        .rootCause()
        .hasMessageContaining("resolved for principal 'alice'")
        .hasMessageContaining("now acts as 'mallory'")
        .hasMessageNotContaining(SSN);
  }

  @Test
  void aTempViewCreatedAsAliceReadsAsMallory() {
    actAs("alice");
    spark.table("prot.db.customers").createOrReplaceTempView("alice_df_view");
    spark.sql(
        "CREATE OR REPLACE TEMP VIEW alice_sql_view AS SELECT id, ssn FROM prot.db.customers");
    actAs("mallory");
    assertThat(ssns(spark.table("alice_df_view"))).containsExactly((String) null);
    assertThat(ssns(spark.sql("SELECT * FROM alice_sql_view"))).containsExactly((String) null);
    actAs("bob");
    assertThat(ssns(spark.table("alice_df_view"))).containsExactly("*******4329");
  }

  @Test
  void aGlobalTempViewOfAliceReadsAsMalloryInHerOwnSession() {
    actAs("alice");
    spark.table("prot.db.customers").createOrReplaceGlobalTempView("alice_global");
    SparkSession mallory = spark.newSession();
    mallory.conf().set(USER, "mallory");
    assertThat(ssns(mallory.table("global_temp.alice_global"))).containsExactly((String) null);
    assertThat(ssns(spark.table("global_temp.alice_global"))).containsExactly(SSN);
  }

  @Test
  void cacheTableOfAliceIsNotUsedForMallory() {
    actAs("alice");
    spark.sql("CACHE TABLE prot.db.customers");
    assertThat(ssns(spark.table("prot.db.customers"))).containsExactly(SSN);
    actAs("mallory");
    Dataset<Row> fresh = spark.table("prot.db.customers");
    if (resolvesCachedTablesByName()) {
      // Spark 4.1 resolves a cached table's name to the cached relation: alice's, refused
      assertThatThrownBy(() -> ssns(fresh))
          .isInstanceOf(ProtectorException.class)
          .hasMessageContaining("resolved for principal 'alice'")
          .hasMessageContaining("now acts as 'mallory'")
          .hasMessageNotContaining(SSN);
      return;
    }
    // mallory's table is another principal's view: it does not match alice's cache entry
    assertThat(fresh.queryExecution().withCachedData().toString())
        .doesNotContain("InMemoryRelation");
    assertThat(ssns(fresh)).containsExactly((String) null);
  }

  /**
   * Spark 4.1 resolves the name of a cached table to the cached relation, and analyzes a cached
   * temp view again when it is read; Spark 3.5 and 4.0 load the table from the catalog and keep the
   * view's plan.
   */
  private static boolean resolvesCachedTablesByName() {
    return org.apache.spark.package$.MODULE$.SPARK_VERSION().compareTo("4.1") >= 0;
  }

  @Test
  void cacheTableAsSelectOfAliceIsReadAgainForMallory() {
    actAs("alice");
    spark.sql("CACHE TABLE alice_cached AS SELECT id, ssn FROM prot.db.customers");
    assertThat(ssns(spark.table("alice_cached"))).containsExactly(SSN);
    actAs("mallory");
    // the view is analyzed again for mallory, whose table does not match alice's cache entry
    assertThat(ssns(spark.table("alice_cached"))).containsExactly((String) null);
    actAs("alice");
    assertThat(ssns(spark.table("alice_cached"))).containsExactly(SSN);
  }

  @Test
  void aCachedViewHoldingAlicesPlanIsRefusedToMallory() {
    actAs("alice");
    spark.table("prot.db.customers").select("id", "ssn").createOrReplaceTempView("alice_plan");
    spark.catalog().cacheTable("alice_plan");
    assertThat(ssns(spark.table("alice_plan"))).containsExactly(SSN);
    actAs("mallory");
    if (resolvesCachedTablesByName()) {
      // analyzed again for mallory, whose plan does not match alice's cache entry
      assertThat(ssns(spark.table("alice_plan"))).containsExactly((String) null);
      return;
    }
    assertThatThrownBy(() -> spark.table("alice_plan").collectAsList())
        .isInstanceOf(ProtectorException.class)
        .hasMessageContaining("resolved for principal 'alice'")
        .hasMessageContaining("now acts as 'mallory'")
        .hasMessageNotContaining(SSN);
    actAs("alice");
    assertThat(ssns(spark.table("alice_plan"))).containsExactly(SSN);
  }

  @Test
  void dfCacheOfAliceIsRefusedToMalloryWhetherPlannedBeforeOrAfterTheSwitch() {
    actAs("alice");
    Dataset<Row> df = spark.table("prot.db.customers").select("id", "ssn");
    df.cache();
    assertThat(df.count()).isEqualTo(1);
    Dataset<Row> executedAsAlice = df.select("ssn");
    assertThat(executedAsAlice.collectAsList().get(0).getString(0)).isEqualTo(SSN);
    actAs("mallory");
    // planned after the switch: refused on the driver
    assertThatThrownBy(df::collectAsList)
        .isInstanceOf(ProtectorException.class)
        .hasMessageContaining("resolved for principal 'alice'");
    // planned (and run) as alice, run again as mallory: refused by the tasks
    assertThatThrownBy(executedAsAlice::collectAsList)
        .hasRootCauseInstanceOf(ProtectorException.class)
        .rootCause()
        .hasMessageContaining("now acts as 'mallory'");
    df.unpersist();
  }
}
