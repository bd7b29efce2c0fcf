/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.it.harness;

import org.apache.spark.sql.SparkSession;

/**
 * One local SparkContext for the whole test JVM; each test class takes its own {@link
 * SparkSession#newSession()} (own SQL conf and catalogs, so catalog options set for one class's
 * servers never leak into the next class).
 */
public final class SharedSpark {
  private static final String PROTECTOR_EXTENSIONS =
      "io.icebergprotector.spark.ProtectorSparkSessionExtensions";
  private static SparkSession root;

  private SharedSpark() {}

  public static synchronized SparkSession newSession() {
    if (root == null) {
      String extensions = "org.apache.iceberg.spark.extensions.IcebergSparkSessionExtensions";
      if (onClasspath(PROTECTOR_EXTENSIONS)) {
        extensions += "," + PROTECTOR_EXTENSIONS;
      }
      root =
          SparkSession.builder()
              .master("local[2]")
              .appName("iceberg-protector-integration-tests")
              .config("spark.ui.enabled", "false")
              .config("spark.driver.host", "127.0.0.1")
              .config("spark.driver.bindAddress", "127.0.0.1")
              .config("spark.sql.shuffle.partitions", "4")
              .config("spark.default.parallelism", "2")
              .config("spark.sql.adaptive.enabled", "false")
              .config("spark.sql.extensions", extensions)
              .getOrCreate();
      root.sparkContext().setLogLevel("WARN");
    }
    return root.newSession();
  }

  static boolean onClasspath(String className) {
    try {
      Class.forName(className, false, SharedSpark.class.getClassLoader());
      return true;
    } catch (ClassNotFoundException e) {
      return false;
    }
  }
}
