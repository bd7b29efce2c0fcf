/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.cli;

/**
 * The commands that run Spark or read Parquet need Spark, Iceberg and the Spark extension on the
 * classpath. The shaded CLI jar does not carry them; {@code bin/protector} adds them for those
 * commands. This turns a missing class into one clear line instead of a NoClassDefFoundError.
 */
final class HeavyClasspath {
  static final String SPARK = "org.apache.spark.sql.SparkSession";
  static final String ICEBERG = "org.apache.iceberg.shaded.org.apache.parquet.format.Util";
  static final String EXTENSION = "io.icebergprotector.spark.core.ProtectorContext";

  private HeavyClasspath() {}

  static void require(String command, String... classNames) {
    for (String name : classNames) {
      try {
        Class.forName(name, false, HeavyClasspath.class.getClassLoader());
      } catch (ClassNotFoundException | LinkageError e) {
        throw new IllegalStateException(
            "Cannot run '"
                + command
                + "': it needs Spark, Iceberg and the protector's Spark extension on the classpath"
                + " ("
                + name
                + " is missing); run it through bin/protector, which resolves that classpath"
                + " once with Maven");
      }
    }
  }
}
