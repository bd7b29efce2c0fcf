/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.spark.compat;

import org.apache.iceberg.Table;
import org.apache.iceberg.spark.source.SparkTable;

/**
 * Iceberg's Spark table at a snapshot (time travel) or at the latest snapshot of a branch, the base
 * of the protected tables. On Iceberg's Spark 3.5 and 4.0 modules {@code SparkTable} takes the
 * snapshot id in its constructor and resolves a null one at each call; Spark 4.1's has a
 * constructor for the latest snapshot of main only (see that version of this class).
 */
public abstract class PinnedSparkTable extends SparkTable {
  protected PinnedSparkTable(Table table, Long snapshotId, String branch, boolean refreshEagerly) {
    super(table, snapshotId, refreshEagerly);
  }
}
