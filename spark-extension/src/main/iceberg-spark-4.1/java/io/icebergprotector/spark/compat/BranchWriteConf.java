/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.spark.compat;

import org.apache.iceberg.Table;
import org.apache.iceberg.spark.SparkTableUtil;
import org.apache.iceberg.spark.SparkWriteConf;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;

/**
 * Iceberg's write settings of a write to a branch. Iceberg's Spark 4.1 module took the branch out
 * of {@code SparkWriteConf}; this class resolves it as that module's writes do ({@code
 * SparkTableUtil.determineWriteBranch}: identifier, {@code branch} option, the session's WAP
 * branch) and answers it as the 3.5 and 4.0 modules' {@code SparkWriteConf.branch()} did.
 */
public class BranchWriteConf extends SparkWriteConf {
  private final String branch;

  public BranchWriteConf(
      SparkSession spark, Table table, String branch, CaseInsensitiveStringMap options) {
    super(spark, table, options);
    this.branch = SparkTableUtil.determineWriteBranch(spark, table, branch, options);
  }

  /** The branch the write commits to, or null for main. */
  public String branch() {
    return branch;
  }
}
