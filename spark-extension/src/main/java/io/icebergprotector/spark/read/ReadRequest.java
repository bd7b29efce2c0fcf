/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.spark.read;

import static io.icebergprotector.policy.Preconditions.checkArgument;

import io.icebergprotector.spark.compat.IcebergConfs;
import io.icebergprotector.spark.compat.IcebergOptions;
import org.apache.iceberg.Table;
import org.apache.iceberg.spark.SparkReadConf;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;

/**
 * What one scan was asked for: Iceberg's read settings of the table, the branch it reads (resolved
 * as Iceberg resolves it on this target) and the snapshot options, read from the scan's options by
 * the protector itself, since Iceberg's Spark 4.1 module no longer reads them in its settings.
 */
final class ReadRequest {
  private final SparkReadConf conf;
  private final CaseInsensitiveStringMap options;
  private final String branch;

  private ReadRequest(SparkReadConf conf, CaseInsensitiveStringMap options, String branch) {
    this.conf = conf;
    this.options = options;
    this.branch = branch;
  }

  static ReadRequest of(
      SparkSession spark, Table table, String branch, CaseInsensitiveStringMap options) {
    SparkReadConf conf = IcebergConfs.readConf(spark, table, branch, options);
    return new ReadRequest(
        conf, options, IcebergConfs.readBranch(conf, spark, table, branch, options));
  }

  SparkReadConf conf() {
    return conf;
  }

  /** The branch to read, or null for main. */
  String branch() {
    return branch;
  }

  Long snapshotId() {
    return longOption(IcebergOptions.SNAPSHOT_ID);
  }

  Long asOfTimestamp() {
    return longOption(IcebergOptions.AS_OF_TIMESTAMP);
  }

  String tag() {
    return options.get(IcebergOptions.TAG);
  }

  /** The rewrite task set this scan reads, or null when it plans its own files. */
  String scanTaskSetId() {
    return options.get(IcebergOptions.SCAN_TASK_SET_ID);
  }

  private Long longOption(String name) {
    String value = options.get(name);
    if (value == null) {
      return null;
    }
    try {
      return Long.parseLong(value.trim());
    } catch (NumberFormatException e) {
      checkArgument(false, "Invalid read option %s: '%s' is not a number", name, value);
      return null;
    }
  }
}
