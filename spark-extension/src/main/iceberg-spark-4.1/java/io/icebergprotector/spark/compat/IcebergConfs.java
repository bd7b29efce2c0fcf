/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.spark.compat;

import org.apache.iceberg.Table;
import org.apache.iceberg.spark.SparkReadConf;
import org.apache.iceberg.spark.SparkTableUtil;
import org.apache.iceberg.spark.TimeTravel;
import org.apache.iceberg.spark.source.SparkTable;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;

/**
 * Iceberg's read and write settings and plain Spark tables, for Iceberg's Spark 4.1 module: its
 * {@code SparkReadConf} and {@code SparkWriteConf} know no branch, which {@code SparkTableUtil}
 * resolves (identifier, then the {@code branch} option, then the session's WAP branch), and its
 * {@code SparkTable} is pinned to a snapshot through {@link TimeTravel}.
 */
public final class IcebergConfs {
  private IcebergConfs() {}

  public static SparkReadConf readConf(
      SparkSession spark, Table table, String branch, CaseInsensitiveStringMap options) {
    return new SparkReadConf(spark, table, options);
  }

  /**
   * The branch a scan of {@code branch} with {@code options} reads, or null for main ({@code conf},
   * {@link #readConf} of the same arguments, knows no branch on this module).
   */
  public static String readBranch(
      SparkReadConf conf,
      SparkSession spark,
      Table table,
      String branch,
      CaseInsensitiveStringMap options) {
    return SparkTableUtil.determineReadBranch(spark, table, branch, options);
  }

  /** Iceberg's own Spark table of the latest snapshot. */
  public static SparkTable sparkTable(Table table) {
    return new SparkTable(table);
  }

  /**
   * The snapshot {@code table} was loaded at by time travel, or null for the latest. Iceberg's
   * Spark 4.1 table always names a snapshot (the latest of its branch when not time travelling) and
   * keeps the time travel in a private field, read here: the protected table must follow new
   * commits unless it was loaded for time travel, and must refuse writes when it was.
   */
  public static Long pinnedSnapshotId(SparkTable table) {
    return TIME_TRAVEL.get(table) != null ? table.snapshotId() : null;
  }

  private static final FieldReader TIME_TRAVEL = new FieldReader(SparkTable.class, "timeTravel");

  /** Reads one private field; fails at class load when Iceberg renamed it. */
  private static final class FieldReader {
    private final java.lang.reflect.Field field;

    FieldReader(Class<?> type, String name) {
      try {
        this.field = type.getDeclaredField(name);
        field.setAccessible(true);
      } catch (NoSuchFieldException e) {
        throw new IllegalStateException(
            "Cannot find " + type.getName() + "." + name + ": Iceberg changed its Spark table", e);
      }
    }

    Object get(Object target) {
      try {
        return field.get(target);
      } catch (IllegalAccessException e) {
        throw new IllegalStateException("Cannot read " + field, e);
      }
    }
  }

  /** Iceberg's Spark table {@code table} at {@code snapshotId}. */
  public static SparkTable atSnapshot(SparkTable table, long snapshotId) {
    return SparkTable.create(table.table(), TimeTravel.version(String.valueOf(snapshotId)));
  }
}
