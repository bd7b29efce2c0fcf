/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.runtime;

import java.util.List;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * The application {@link RuntimeEndToEndIT} submits. Only Spark API here, so every protector class
 * it uses comes from the jar that {@code --packages} resolved: a protected write as {@code etl},
 * reads as three principals, and {@code CALL <catalog>.system.rewrite_protected} (decrypting the
 * table's files and encrypting them again), then the same reads. Prints one line per step.
 */
public final class RuntimeSmokeMain {
  private RuntimeSmokeMain() {}

  public static void main(String[] args) {
    SparkSession spark = SparkSession.builder().getOrCreate();
    try {
      spark.sql("CREATE NAMESPACE IF NOT EXISTS prot.db");
      // uncompressed, so that the canary search sees clear values as stored
      spark.sql(
          "CREATE TABLE prot.db.people (id BIGINT, name STRING, ssn STRING) USING iceberg"
              + " TBLPROPERTIES ('write.parquet.compression-codec'='uncompressed')");
      spark.sql(
          "INSERT INTO prot.db.people VALUES (1, 'Annabel', '123-45-6789'),"
              + " (2, 'Bo', '987-65-4321')");
      System.out.println("RUNTIME-SMOKE written " + reads(spark));
      as(spark, "alice");
      List<Row> rewrite =
          spark
              .sql("CALL prot.system.rewrite_protected(table => 'db.people', force => true)")
              .collectAsList();
      System.out.println(
          "RUNTIME-SMOKE rewrite rewritten="
              + rewrite.get(0).getInt(0)
              + " added="
              + rewrite.get(0).getInt(2));
      System.out.println("RUNTIME-SMOKE rewritten " + reads(spark));
      System.out.println(
          "RUNTIME-SMOKE from="
              + Class.forName(
                      "io.icebergprotector.spark.ProtectingSparkCatalog",
                      false,
                      Thread.currentThread().getContextClassLoader())
                  .getProtectionDomain()
                  .getCodeSource()
                  .getLocation());
    } catch (ClassNotFoundException e) {
      throw new IllegalStateException("The protector's catalog is not on the classpath", e);
    } finally {
      spark.stop();
    }
  }

  /** What alice (clear), bob (masked) and carol (denied) read from ssn. */
  private static String reads(SparkSession spark) {
    return "clear="
        + ssnAs(spark, "alice")
        + " masked="
        + ssnAs(spark, "bob")
        + " denied="
        + ssnAs(spark, "carol");
  }

  private static void as(SparkSession spark, String user) {
    spark.conf().set("spark.sql.catalog.prot.protector.user", user);
  }

  private static String ssnAs(SparkSession spark, String user) {
    as(spark, user);
    List<Row> rows = spark.sql("SELECT ssn FROM prot.db.people WHERE id = 1").collectAsList();
    return String.valueOf(rows.get(0).get(0));
  }
}
