/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.spark.tokens;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.icebergprotector.spark.SparkTestBase;
import io.icebergprotector.spark.core.ProtectorException;
import org.apache.spark.SparkException;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.assertj.core.api.ThrowableAssert;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@code protect} and {@code unprotect} run with the keys of the principal whose session runs them,
 * never of the principal who wrote the query (issue 30 item 3): alice's DataFrame, temp view,
 * global temp view or cached result, run by mallory (no role), is refused, naming both; run by
 * another clear reader it works with that reader's keys.
 */
class TokenCallBindingTest extends SparkTestBase {
  private static final String SSN = "123-45-6789";
  private static String token;

  @BeforeAll
  static void tokenOfTheCanary() {
    token = sqlAs("alice", "SELECT protect('" + SSN + "', 'ssn')").get(0).getString(0);
  }

  @AfterEach
  void clean() {
    spark.conf().set("spark.sql.catalog.prot.protector.user", "etl");
    spark.catalog().clearCache();
    spark.sql("DROP VIEW IF EXISTS clear_ssn");
    spark.sql("DROP VIEW IF EXISTS global_temp.clear_ssn");
  }

  private static String unprotect() {
    return "SELECT unprotect('" + token + "', 'ssn') AS ssn";
  }

  private static SparkSession asSession(SparkSession session, String user) {
    session.conf().set("spark.sql.catalog.prot.protector.user", user);
    return session;
  }

  @Test
  void aDataFrameBuiltByAliceIsRefusedWhenItsSessionActsAsMallory() {
    asSession(spark, "alice");
    Dataset<Row> df = spark.sql(unprotect());
    assertThat(df.collectAsList().get(0).getString(0)).isEqualTo(SSN);
    asSession(spark, "mallory");
    // the plan was bound to alice when it was optimized; its tasks check who runs them
    assertThatThrownBy(df::collectAsList)
        .isInstanceOf(SparkException.class)
        .hasRootCauseInstanceOf(ProtectorException.class)
        .rootCause()
        .hasMessageContaining("a plan calling unprotect(token, 'ssn')")
        .hasMessageContaining("resolved for principal 'alice'")
        .hasMessageContaining("now acts as 'mallory'");
  }

  @ParameterizedTest(name = "view stored as {0}")
  @ValueSource(strings = {"sql", "dataframe"})
  void aTempViewRunsWithTheKeysOfWhoeverSelectsIt(String storedAs) {
    asSession(spark, "alice");
    createView(spark, "TEMP VIEW", storedAs);
    asSession(spark, "mallory");
    assertRefusedForMallory(() -> spark.sql("SELECT * FROM clear_ssn").collectAsList());
    asSession(spark, "alice");
    assertThat(spark.sql("SELECT * FROM clear_ssn").collectAsList().get(0).getString(0))
        .isEqualTo(SSN);
  }

  @ParameterizedTest(name = "view stored as {0}")
  @ValueSource(strings = {"sql", "dataframe"})
  void aGlobalTempViewOfAliceRunsAsTheSessionThatSelectsIt(String storedAs) {
    asSession(spark, "alice");
    createView(spark, "GLOBAL TEMP VIEW", storedAs);
    SparkSession mallory = asSession(spark.newSession(), "mallory");
    assertRefusedForMallory(
        () -> mallory.sql("SELECT * FROM global_temp.clear_ssn").collectAsList());
    // mixed into mallory's own query, in a subquery too, the call still runs as mallory
    assertRefusedForMallory(
        () ->
            mallory
                .sql("SELECT v.ssn, r.id FROM global_temp.clear_ssn v, range(2) r")
                .collectAsList());
    assertRefusedForMallory(
        () ->
            mallory
                .sql(
                    "SELECT id FROM range(2) WHERE id > (SELECT length(ssn) FROM global_temp.clear_ssn)")
                .collectAsList());
    SparkSession alice = asSession(spark.newSession(), "alice");
    assertThat(alice.sql("SELECT * FROM global_temp.clear_ssn").collectAsList().get(0).getString(0))
        .isEqualTo(SSN);
  }

  @ParameterizedTest(name = "view stored as {0}")
  @ValueSource(strings = {"sql", "dataframe"})
  void aCachedTableOfAliceNeverAnswersMallory(String storedAs) {
    asSession(spark, "alice");
    createView(spark, "GLOBAL TEMP VIEW", storedAs);
    spark.sql("CACHE TABLE global_temp.clear_ssn");
    assertThat(spark.sql("SELECT * FROM global_temp.clear_ssn").collectAsList().get(0).getString(0))
        .isEqualTo(SSN);
    SparkSession mallory = asSession(spark.newSession(), "mallory");
    assertRefusedForMallory(
        () -> mallory.sql("SELECT * FROM global_temp.clear_ssn").collectAsList());
    asSession(spark, "mallory");
    assertRefusedForMallory(() -> spark.sql("SELECT * FROM global_temp.clear_ssn").collectAsList());
  }

  @Test
  void aCachedDataFrameOfAliceIsRefusedOnceHerSessionActsAsMallory() {
    asSession(spark, "alice");
    Dataset<Row> df = spark.sql(unprotect()).cache();
    assertThat(df.collectAsList().get(0).getString(0)).isEqualTo(SSN);
    asSession(spark, "mallory");
    // the same plan matches the cache entry alice filled: refused, on the driver or in its tasks
    assertThatThrownBy(df::collectAsList)
        .hasStackTraceContaining("resolved for principal 'alice'")
        .hasStackTraceContaining("now acts as 'mallory'");
    assertRefusedForMallory(() -> spark.sql(unprotect()).collectAsList());
  }

  /** Creates view {@code clear_ssn} as the active principal, from SQL text or a DataFrame. */
  private static void createView(SparkSession session, String kind, String storedAs) {
    if (storedAs.equals("sql")) {
      session.sql("CREATE " + kind + " clear_ssn AS " + unprotect());
    } else if (kind.startsWith("GLOBAL")) {
      session.sql(unprotect()).createOrReplaceGlobalTempView("clear_ssn");
    } else {
      session.sql(unprotect()).createOrReplaceTempView("clear_ssn");
    }
  }

  private static void assertRefusedForMallory(ThrowableAssert.ThrowingCallable query) {
    assertThatThrownBy(query)
        .isInstanceOf(ProtectorException.class)
        .hasMessageContaining("Cannot unprotect values of token domain 'ssn'")
        .hasMessageContaining("principal mallory");
  }
}
