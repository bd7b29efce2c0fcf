/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.spark;

import static org.assertj.core.api.Assertions.assertThat;

import io.icebergprotector.spark.testing.TestSessions;
import io.icebergprotector.testing.LocalCatalog;
import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Views depend on the catalog's principal: two catalogs on one warehouse, a new session, and the
 * protecting {@code spark_catalog}.
 */
class CatalogViewsTest {
  private static SparkSession spark;

  @BeforeAll
  static void start() throws Exception {
    Path root = Files.createTempDirectory("protector-views");
    LocalCatalog files = LocalCatalog.create(root, SparkTestBase.POLICY, "views-passphrase");
    SparkSession.Builder builder =
        TestSessions.config(
            TestSessions.protector("catalog-views"),
            LocalCatalog.catalogConf(
                "spark_catalog", ProtectingSessionCatalog.class.getName(), files.options("etl")));
    TestSessions.withCatalog(builder, "as_alice", files, "alice");
    TestSessions.withCatalog(builder, "as_bob", files, "bob");
    spark = builder.getOrCreate();
    spark.sql("CREATE NAMESPACE IF NOT EXISTS spark_catalog.db");
    spark.sql(
        "CREATE TABLE spark_catalog.db.customers (id BIGINT, ssn STRING, email STRING,"
            + " salary DECIMAL(10,2), address STRUCT<city: STRING, zip: STRING>) USING iceberg");
    spark.sql(
        "INSERT INTO spark_catalog.db.customers VALUES"
            + " (1, '111-22-3333', 'a@x.test', 100.00, named_struct('city', 'Paris', 'zip', '75001'))");
  }

  @AfterAll
  static void stop() {
    TestSessions.stop(spark);
  }

  @Test
  void twoCatalogsOnOneWarehouseGiveDifferentViews() {
    Row alice = spark.sql("SELECT ssn, salary FROM as_alice.db.customers").first();
    Row bob = spark.sql("SELECT ssn, salary FROM as_bob.db.customers").first();
    assertThat(alice.getString(0)).isEqualTo("111-22-3333");
    assertThat(alice.getDecimal(1)).isEqualByComparingTo("100.00");
    assertThat(bob.getString(0)).isEqualTo("*******3333");
    assertThat(bob.isNullAt(1)).isTrue();
  }

  @Test
  void newSessionWithAnotherUserSeesItsOwnView() {
    SparkSession other = spark.newSession();
    other.conf().set("spark.sql.catalog.as_alice.protector.user", "bob");
    assertThat(other.sql("SELECT salary FROM as_alice.db.customers").first().isNullAt(0)).isTrue();
    assertThat(spark.sql("SELECT salary FROM as_alice.db.customers").first().isNullAt(0)).isFalse();
  }

  @Test
  void sessionCatalogProtectsIcebergTables() throws Exception {
    // the etl principal has no read role: protected columns are NULL, the table is protected
    Row etl = spark.sql("SELECT id, ssn, salary FROM spark_catalog.db.customers").first();
    assertThat(etl.getLong(0)).isEqualTo(1L);
    assertThat(etl.isNullAt(1)).isTrue();
    assertThat(etl.isNullAt(2)).isTrue();
  }
}
