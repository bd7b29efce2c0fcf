/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.spark.write;

import io.icebergprotector.spark.compat.BranchWriteConf;
import io.icebergprotector.spark.core.ExpressionRedactor;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.ContentFile;
import org.apache.iceberg.SnapshotSummary;
import org.apache.iceberg.SnapshotUpdate;
import org.apache.iceberg.Table;
import org.apache.iceberg.exceptions.CleanableFailure;
import org.apache.iceberg.exceptions.CommitStateUnknownException;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.spark.CommitMetadata;
import org.apache.spark.sql.SparkSession;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The driver's commit of one protected write, as Iceberg's Spark writes commit (1.11.0 {@code
 * SparkWrite.commitOperation}, {@code SparkPositionDeltaWrite}): the snapshot carries the Spark
 * application id, the {@code snapshot-property.*} write options and the properties of {@link
 * CommitMetadata#withCommitProperties}; write-audit-publish stages it, a branch receives it. Error
 * messages (Iceberg's validation errors quote the conflict filter) never show a literal compared
 * with a protected column.
 *
 * <p>Abort cleanup: written files are deleted when nothing was committed, and kept when the commit
 * state is unknown ({@link CommitStateUnknownException}): they may be part of the table now.
 */
public final class ProtectedCommit {
  private static final Logger LOG = LoggerFactory.getLogger(ProtectedCommit.class);

  /** Snapshot property set on every commit of protected data. */
  public static final String PROTECTED_PROPERTY = "iceberg-protector.protected";

  private final String applicationId;
  private final Table table;
  private final BranchWriteConf writeConf;
  private final ExpressionRedactor redactor;
  private volatile boolean cleanupOnAbort = true;

  public ProtectedCommit(
      SparkSession spark, Table table, BranchWriteConf writeConf, ExpressionRedactor redactor) {
    this.applicationId = spark.sparkContext().applicationId();
    this.table = table;
    this.writeConf = writeConf;
    this.redactor = redactor;
  }

  /**
   * Commits {@code operation}.
   *
   * @param description for the log; must not hold a protected literal (redact filters first)
   * @param filter the filter Iceberg's errors may quote, redacted from them; may be null
   */
  public void commit(SnapshotUpdate<?> operation, String description, Expression filter) {
    LOG.info("Committing {} to {}", description, table.name());
    if (applicationId != null) {
      operation.set("spark.app.id", applicationId);
    }
    operation.set(PROTECTED_PROPERTY, "true");
    for (Map.Entry<String, String> entry : writeConf.extraSnapshotMetadata().entrySet()) {
      operation.set(entry.getKey(), entry.getValue());
    }
    for (Map.Entry<String, String> entry : CommitMetadata.commitProperties().entrySet()) {
      operation.set(entry.getKey(), entry.getValue());
    }
    if (writeConf.wapEnabled() && writeConf.wapId() != null) {
      operation.set(SnapshotSummary.STAGED_WAP_ID_PROP, writeConf.wapId());
      operation.stageOnly();
    }
    if (writeConf.branch() != null) {
      operation.toBranch(writeConf.branch());
    }
    try {
      long start = System.currentTimeMillis();
      operation.commit();
      LOG.info("Committed to {} in {} ms", table.name(), System.currentTimeMillis() - start);
    } catch (RuntimeException e) {
      // Iceberg cleans up only after failures it knows left nothing behind
      this.cleanupOnAbort = e instanceof CleanableFailure;
      if (!cleanupOnAbort) {
        LOG.warn(
            "Commit to {} failed with {}: its state is unknown, so written files are kept",
            table.name(),
            e.getClass().getSimpleName());
      }
      throw filter != null ? redactor.redact(e, filter) : e;
    }
  }

  /** After Spark aborted the write: deletes its files unless a commit may have taken them. */
  public void abort(List<? extends ContentFile<?>> files) {
    if (cleanupOnAbort) {
      FileCleanup.deleteFiles("aborted write to " + table.name(), table.io(), files);
    } else {
      LOG.warn(
          "Keeping {} file(s) written for {}: the commit state is unknown (remove_orphan_files"
              + " deletes them if they were not committed)",
          files.size(),
          table.name());
    }
  }
}
