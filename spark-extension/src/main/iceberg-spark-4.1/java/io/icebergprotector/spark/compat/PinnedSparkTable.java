/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.spark.compat;

import java.util.Objects;
import org.apache.iceberg.Table;
import org.apache.iceberg.spark.TimeTravel;
import org.apache.iceberg.spark.source.SparkTable;
import org.apache.spark.sql.connector.expressions.filter.Predicate;
import org.apache.spark.sql.types.StructType;

/**
 * Iceberg's Spark table at a snapshot (time travel) or at the latest snapshot of a branch, the base
 * of the protected tables. Iceberg's Spark 4.1 module opens its snapshot and branch constructors
 * only through factories, so this class extends the table of main's latest snapshot and answers
 * everything that depends on the snapshot from Iceberg's table at the pinned snapshot or branch,
 * made again at each call (a table of the latest snapshot follows the commits made since).
 */
public abstract class PinnedSparkTable extends SparkTable {
  private final Long pinnedSnapshotId;
  private final String pinnedBranch;

  protected PinnedSparkTable(Table table, Long snapshotId, String branch, boolean refreshEagerly) {
    super(table);
    this.pinnedSnapshotId = snapshotId;
    this.pinnedBranch = branch;
  }

  /** Iceberg's table at this table's snapshot, or at the latest snapshot of its branch now. */
  private SparkTable pinned() {
    if (pinnedSnapshotId != null) {
      return SparkTable.create(table(), TimeTravel.version(String.valueOf(pinnedSnapshotId)));
    }
    SparkTable latest = new SparkTable(table());
    return pinnedBranch != null ? latest.copyWithBranch(pinnedBranch) : latest;
  }

  @Override
  public StructType schema() {
    return pinned().schema();
  }

  @Override
  public Long snapshotId() {
    return pinned().snapshotId();
  }

  @Override
  public String version() {
    return pinned().version();
  }

  @Override
  public boolean canDeleteWhere(Predicate[] predicates) {
    return pinned().canDeleteWhere(predicates);
  }

  @Override
  public void deleteWhere(Predicate[] predicates) {
    pinned().deleteWhere(predicates);
  }

  @Override
  public boolean equals(Object other) {
    if (!super.equals(other)) {
      return false;
    }
    PinnedSparkTable that = (PinnedSparkTable) other;
    return Objects.equals(pinnedSnapshotId, that.pinnedSnapshotId)
        && Objects.equals(pinnedBranch, that.pinnedBranch);
  }

  @Override
  public int hashCode() {
    return Objects.hash(super.hashCode(), pinnedSnapshotId, pinnedBranch);
  }
}
