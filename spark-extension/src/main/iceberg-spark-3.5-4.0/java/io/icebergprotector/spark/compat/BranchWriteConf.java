/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.spark.compat;

import org.apache.iceberg.Table;
import org.apache.iceberg.spark.SparkWriteConf;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;

/**
 * Iceberg's write settings of a write to a branch. Iceberg's Spark 3.5 and 4.0 modules resolve the
 * branch in {@code SparkWriteConf} itself; Spark 4.1's version of this class resolves it as that
 * module's {@code SparkTableUtil} does.
 */
public class BranchWriteConf extends SparkWriteConf {
  public BranchWriteConf(
      SparkSession spark, Table table, String branch, CaseInsensitiveStringMap options) {
    super(spark, table, branch, options);
  }
}
