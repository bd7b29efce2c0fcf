/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.cli;

import java.util.List;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * The application {@link PackagesIT} submits: only Spark API here, so every protector class it uses
 * must come from the jar that {@code --packages} resolved. Prints one result line.
 */
public final class PackagesSmokeMain {
  private PackagesSmokeMain() {}

  public static void main(String[] args) throws Exception {
    SparkSession spark = SparkSession.builder().getOrCreate();
    try {
      spark.sql("CREATE NAMESPACE IF NOT EXISTS prot.db");
      spark.sql("CREATE TABLE prot.db.people (id BIGINT, name STRING, ssn STRING) USING iceberg");
      spark.sql(
          "INSERT INTO prot.db.people VALUES (1, 'Ann', '123-45-6789'), (2, 'Bo', '987-65-4321')");
      String clear = ssnAs(spark, "alice");
      String masked = ssnAs(spark, "bob");
      String denied = ssnAs(spark, "carol");
      String from =
          Class.forName(
                  "io.icebergprotector.spark.core.ProtectorContext",
                  false,
                  Thread.currentThread().getContextClassLoader())
              .getProtectionDomain()
              .getCodeSource()
              .getLocation()
              .toString();
      System.out.println(
          "PACKAGES-SMOKE clear="
              + clear
              + " masked="
              + masked
              + " denied="
              + denied
              + " from="
              + from);
    } finally {
      spark.stop();
    }
  }

  private static String ssnAs(SparkSession spark, String user) {
    spark.conf().set("spark.sql.catalog.prot.protector.user", user);
    List<Row> rows = spark.sql("SELECT ssn FROM prot.db.people WHERE id = 1").collectAsList();
    return String.valueOf(rows.get(0).get(0));
  }
}
