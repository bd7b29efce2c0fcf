/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.spark.compat;

import org.apache.iceberg.Table;
import org.apache.iceberg.spark.SparkReadConf;
import org.apache.iceberg.spark.source.SparkTable;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;

/**
 * Iceberg's read and write settings and plain Spark tables, for Iceberg's Spark 3.5 and 4.0
 * modules: their {@code SparkReadConf} and {@code SparkWriteConf} take the branch and resolve it
 * themselves (options, then the session's WAP branch). Spark 4.1's module resolves it in {@code
 * SparkTableUtil} instead.
 */
public final class IcebergConfs {
  private IcebergConfs() {}

  public static SparkReadConf readConf(
      SparkSession spark, Table table, String branch, CaseInsensitiveStringMap options) {
    return new SparkReadConf(spark, table, branch, options);
  }

  /**
   * The branch a scan of {@code branch} with {@code options} reads, or null for main: {@code conf}
   * resolved it ({@link #readConf} of the same arguments).
   */
  public static String readBranch(
      SparkReadConf conf,
      SparkSession spark,
      Table table,
      String branch,
      CaseInsensitiveStringMap options) {
    return conf.branch();
  }

  /** Iceberg's own Spark table of the latest snapshot, never refreshed by itself. */
  public static SparkTable sparkTable(Table table) {
    return new SparkTable(table, false);
  }

  /** The snapshot {@code table} was loaded at by time travel, or null for the latest. */
  public static Long pinnedSnapshotId(SparkTable table) {
    return table.snapshotId();
  }

  /** Iceberg's Spark table {@code table} at {@code snapshotId}. */
  public static SparkTable atSnapshot(SparkTable table, long snapshotId) {
    return table.copyWithSnapshotId(snapshotId);
  }
}
