/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.spark.table;

import org.apache.spark.sql.connector.catalog.StagedTable;

/** CTAS / RTAS target: writes go through the protected path into Iceberg's pending transaction. */
public final class ProtectedStagedTable extends ProtectedTable implements StagedTable {
  private final StagedTable staged;

  public ProtectedStagedTable(
      org.apache.iceberg.spark.source.SparkTable stagedSparkTable, TableProtection protection) {
    super(stagedSparkTable.table(), null, null, false, protection);
    this.staged = (StagedTable) stagedSparkTable;
  }

  @Override
  public void commitStagedChanges() {
    staged.commitStagedChanges();
  }

  @Override
  public void abortStagedChanges() {
    staged.abortStagedChanges();
  }
}
