/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.spark.read;

import static io.icebergprotector.policy.Preconditions.checkArgument;

import io.icebergprotector.spark.compat.IcebergOptions;
import java.util.List;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.TableScan;
import org.apache.iceberg.exceptions.ValidationException;
import org.apache.iceberg.spark.ScanTaskSetManager;
import org.apache.iceberg.spark.SparkReadConf;

/**
 * Which snapshot a scan reads and how it splits files, from the read options (as in Iceberg); or,
 * for a rewrite, exactly the file scan tasks staged under {@value IcebergOptions#SCAN_TASK_SET_ID}
 * in Iceberg's {@link ScanTaskSetManager}.
 */
final class ScanSelection {
  private final Long snapshotId;
  private final Long asOfTimestamp;
  private final String branch;
  private final String tag;
  private final Long splitSize;
  private final Integer splitLookback;
  private final Long splitOpenFileCost;
  private final String taskSetId;
  private final List<FileScanTask> stagedTasks;
  private final boolean empty;

  private ScanSelection(
      Long snapshotId,
      Long asOfTimestamp,
      String branch,
      String tag,
      Long splitSize,
      Integer splitLookback,
      Long splitOpenFileCost,
      String taskSetId,
      List<FileScanTask> stagedTasks,
      boolean empty) {
    this.taskSetId = taskSetId;
    this.stagedTasks = stagedTasks;
    this.empty = empty;
    this.snapshotId = snapshotId;
    this.asOfTimestamp = asOfTimestamp;
    this.branch = branch;
    this.tag = tag;
    this.splitSize = splitSize;
    this.splitLookback = splitLookback;
    this.splitOpenFileCost = splitOpenFileCost;
  }

  static ScanSelection from(ReadRequest request) {
    SparkReadConf conf = request.conf();
    Long snapshotId = request.snapshotId();
    Long asOfTimestamp = request.asOfTimestamp();
    checkArgument(
        snapshotId == null || asOfTimestamp == null,
        "Cannot set both %s and %s to select which table snapshot to scan",
        IcebergOptions.SNAPSHOT_ID,
        IcebergOptions.AS_OF_TIMESTAMP);
    if (conf.startSnapshotId() != null || conf.endSnapshotId() != null) {
      throw new UnsupportedOperationException(
          String.format(
              "Incremental reads (%s, %s) are not supported on protected tables",
              IcebergOptions.START_SNAPSHOT_ID, IcebergOptions.END_SNAPSHOT_ID));
    }
    return new ScanSelection(
        snapshotId,
        asOfTimestamp,
        request.branch(),
        request.tag(),
        conf.splitSizeOption(),
        conf.splitLookbackOption(),
        conf.splitOpenFileCostOption(),
        null,
        null,
        false);
  }

  /**
   * The selection of a row-level operation's scan: the latest snapshot of the branch it writes to,
   * pinned so the commit can validate what changed since (as Iceberg's row-level scans do). Time
   * travel is refused; a table without snapshots has nothing to scan.
   */
  static ScanSelection forRowLevelOperation(org.apache.iceberg.Table table, ReadRequest request) {
    SparkReadConf conf = request.conf();
    checkArgument(
        request.snapshotId() == null && request.asOfTimestamp() == null && request.tag() == null,
        "Cannot set time travel options %s, %s, %s for row-level command scans",
        IcebergOptions.SNAPSHOT_ID,
        IcebergOptions.AS_OF_TIMESTAMP,
        IcebergOptions.TAG);
    checkArgument(
        conf.startSnapshotId() == null && conf.endSnapshotId() == null,
        "Cannot set incremental scan options %s and %s for row-level command scans",
        IcebergOptions.START_SNAPSHOT_ID,
        IcebergOptions.END_SNAPSHOT_ID);
    org.apache.iceberg.Snapshot latest =
        org.apache.iceberg.util.SnapshotUtil.latestSnapshot(table, request.branch());
    return new ScanSelection(
        latest != null ? latest.snapshotId() : null,
        null,
        null,
        null,
        conf.splitSizeOption(),
        conf.splitLookbackOption(),
        conf.splitOpenFileCostOption(),
        null,
        null,
        latest == null);
  }

  /** The snapshot id this selection reads, when it names one. */
  Long snapshotId() {
    return snapshotId;
  }

  /** True when there is nothing to read (a row-level scan of a table without snapshots). */
  boolean empty() {
    return empty;
  }

  /**
   * The tasks a rewrite staged for {@code table} under the scan's task set id (Iceberg's {@code
   * SparkStagedScan}): a rewrite replaces exactly the files it read, so nothing else is planned.
   * Time travel options do not apply.
   */
  static ScanSelection staged(Table table, ReadRequest request) {
    SparkReadConf conf = request.conf();
    String setId = request.scanTaskSetId();
    List<FileScanTask> tasks = ScanTaskSetManager.get().fetchTasks(table, setId);
    ValidationException.check(
        tasks != null,
        "Task set manager has no tasks for table %s with task set ID %s",
        table,
        setId);
    return new ScanSelection(
        null,
        null,
        null,
        null,
        conf.splitSize(),
        conf.splitLookback(),
        conf.splitOpenFileCost(),
        setId,
        List.copyOf(tasks),
        false);
  }

  /** The staged tasks of a rewrite's scan, or null when the scan plans its own files. */
  List<FileScanTask> stagedTasks() {
    return stagedTasks;
  }

  Long splitSize() {
    return splitSize;
  }

  Integer splitLookback() {
    return splitLookback;
  }

  Long splitOpenFileCost() {
    return splitOpenFileCost;
  }

  TableScan apply(TableScan scan) {
    TableScan result = scan;
    if (snapshotId != null) {
      result = result.useSnapshot(snapshotId);
    }
    if (asOfTimestamp != null) {
      result = result.asOfTime(asOfTimestamp);
    }
    if (branch != null) {
      result = result.useRef(branch);
    }
    if (tag != null) {
      result = result.useRef(tag);
    }
    if (splitSize != null) {
      result = result.option(TableProperties.SPLIT_SIZE, String.valueOf(splitSize));
    }
    if (splitLookback != null) {
      result = result.option(TableProperties.SPLIT_LOOKBACK, String.valueOf(splitLookback));
    }
    if (splitOpenFileCost != null) {
      result =
          result.option(TableProperties.SPLIT_OPEN_FILE_COST, String.valueOf(splitOpenFileCost));
    }
    return result;
  }

  String describe(org.apache.iceberg.Table table) {
    if (taskSetId != null) {
      return "taskSetId=" + taskSetId + " (" + stagedTasks.size() + " staged tasks)";
    }
    StringBuilder sb = new StringBuilder();
    if (snapshotId != null) {
      sb.append("snapshot=").append(snapshotId);
    } else if (asOfTimestamp != null) {
      sb.append("as-of-timestamp=").append(asOfTimestamp);
    }
    if (branch != null) {
      sb.append(sb.length() > 0 ? ", " : "").append("branch=").append(branch);
    }
    if (tag != null) {
      sb.append(sb.length() > 0 ? ", " : "").append("tag=").append(tag);
    }
    if (sb.length() > 0) {
      return sb.toString();
    }
    return table.currentSnapshot() != null
        ? "snapshot=" + table.currentSnapshot().snapshotId()
        : "snapshot=none (empty table)";
  }
}
