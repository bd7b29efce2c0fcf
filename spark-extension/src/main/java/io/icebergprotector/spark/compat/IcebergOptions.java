/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.spark.compat;

/**
 * Names of the read and write options the protected scans and writes accept, as Iceberg's Spark 3.5
 * and 4.0 modules spell them. Iceberg's Spark 4.1 module (1.11 and later) dropped the constants: it
 * selects snapshots when a table is loaded and stages rewrites through a catalog of its own. The
 * protected table keeps accepting every one of them on every target, so a query or a rewrite means
 * the same on each.
 */
public final class IcebergOptions {
  /** Reads the given snapshot id. */
  public static final String SNAPSHOT_ID = "snapshot-id";

  /** Reads the snapshot current at the given time, in milliseconds. */
  public static final String AS_OF_TIMESTAMP = "as-of-timestamp";

  /** Reads the given branch. */
  public static final String BRANCH = "branch";

  /** Reads the given tag. */
  public static final String TAG = "tag";

  /** Incremental reads (refused on protected tables). */
  public static final String START_SNAPSHOT_ID = "start-snapshot-id";

  public static final String END_SNAPSHOT_ID = "end-snapshot-id";

  /** Reads exactly the tasks a rewrite staged in Iceberg's {@code ScanTaskSetManager}. */
  public static final String SCAN_TASK_SET_ID = "scan-task-set-id";

  /** Stages the written files of a rewrite with Iceberg's {@code FileRewriteCoordinator}. */
  public static final String REWRITTEN_FILE_SCAN_TASK_SET_ID = "rewritten-file-scan-task-set-id";

  /**
   * Streaming appends commit with a merge append (manifests merged as the table's properties say)
   * instead of a fast append: Iceberg 1.12's option, accepted on every target.
   */
  public static final String USE_MERGE_APPEND_FOR_STREAMING = "use-merge-append-for-streaming";

  private IcebergOptions() {}
}
