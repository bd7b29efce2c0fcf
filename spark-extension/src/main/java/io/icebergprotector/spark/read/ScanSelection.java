package io.icebergprotector.spark.read;

import org.apache.iceberg.TableProperties;
import org.apache.iceberg.TableScan;
import org.apache.iceberg.spark.SparkReadConf;
import org.apache.iceberg.spark.SparkReadOptions;

/** Which snapshot a scan reads and how it splits files, from the read options (as in Iceberg). */
final class ScanSelection {
  private final Long snapshotId;
  private final Long asOfTimestamp;
  private final String branch;
  private final String tag;
  private final Long splitSize;
  private final Integer splitLookback;
  private final Long splitOpenFileCost;
  private final java.util.Set<String> onlyFiles;
  private final boolean empty;

  private ScanSelection(
      Long snapshotId,
      Long asOfTimestamp,
      String branch,
      String tag,
      Long splitSize,
      Integer splitLookback,
      Long splitOpenFileCost,
      java.util.Set<String> onlyFiles,
      boolean empty) {
    this.onlyFiles = onlyFiles;
    this.empty = empty;
    this.snapshotId = snapshotId;
    this.asOfTimestamp = asOfTimestamp;
    this.branch = branch;
    this.tag = tag;
    this.splitSize = splitSize;
    this.splitLookback = splitLookback;
    this.splitOpenFileCost = splitOpenFileCost;
  }

  static ScanSelection from(SparkReadConf conf) {
    Long snapshotId = conf.snapshotId();
    Long asOfTimestamp = conf.asOfTimestamp();
    if (snapshotId != null && asOfTimestamp != null) {
      throw new IllegalArgumentException(
          String.format(
              "Cannot set both %s and %s to select which table snapshot to scan",
              SparkReadOptions.SNAPSHOT_ID, SparkReadOptions.AS_OF_TIMESTAMP));
    }
    if (conf.startSnapshotId() != null || conf.endSnapshotId() != null) {
      throw new UnsupportedOperationException(
          String.format(
              "Incremental reads (%s, %s) are not supported on protected tables",
              SparkReadOptions.START_SNAPSHOT_ID, SparkReadOptions.END_SNAPSHOT_ID));
    }
    return new ScanSelection(
        snapshotId,
        asOfTimestamp,
        conf.branch(),
        conf.tag(),
        conf.splitSizeOption(),
        conf.splitLookbackOption(),
        conf.splitOpenFileCostOption(),
        null,
        false);
  }

  /**
   * The selection of a row-level operation's scan: the latest snapshot of the branch it writes to,
   * pinned so the commit can validate what changed since (as Iceberg's row-level scans do). Time
   * travel is refused; a table without snapshots has nothing to scan.
   */
  static ScanSelection forRowLevelOperation(org.apache.iceberg.Table table, SparkReadConf conf) {
    if (conf.snapshotId() != null || conf.asOfTimestamp() != null || conf.tag() != null) {
      throw new IllegalArgumentException(
          String.format(
              "Cannot set time travel options %s, %s, %s for row-level command scans",
              SparkReadOptions.SNAPSHOT_ID, SparkReadOptions.AS_OF_TIMESTAMP, SparkReadOptions.TAG));
    }
    if (conf.startSnapshotId() != null || conf.endSnapshotId() != null) {
      throw new IllegalArgumentException(
          String.format(
              "Cannot set incremental scan options %s and %s for row-level command scans",
              SparkReadOptions.START_SNAPSHOT_ID, SparkReadOptions.END_SNAPSHOT_ID));
    }
    org.apache.iceberg.Snapshot latest =
        org.apache.iceberg.util.SnapshotUtil.latestSnapshot(table, conf.branch());
    return new ScanSelection(
        latest != null ? latest.snapshotId() : null,
        null,
        null,
        null,
        conf.splitSizeOption(),
        conf.splitLookbackOption(),
        conf.splitOpenFileCostOption(),
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

  /** The same selection restricted to the given data files (a protected rewrite reads only those). */
  ScanSelection onlyFiles(java.util.Set<String> files) {
    return new ScanSelection(
        snapshotId, asOfTimestamp, branch, tag, splitSize, splitLookback, splitOpenFileCost, files,
        empty);
  }

  boolean includes(org.apache.iceberg.FileScanTask task) {
    return onlyFiles == null || onlyFiles.contains(task.file().location());
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
