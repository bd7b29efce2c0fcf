/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.spark.streaming;

import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.iceberg.AppendFiles;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.OverwriteFiles;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.SnapshotUpdate;
import org.apache.iceberg.Table;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.util.SnapshotUtil;
import org.apache.spark.sql.connector.write.PhysicalWriteInfo;
import org.apache.spark.sql.connector.write.WriterCommitMessage;
import org.apache.spark.sql.connector.write.streaming.StreamingDataWriterFactory;
import org.apache.spark.sql.connector.write.streaming.StreamingWrite;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Structured Streaming sink of a protected table, as Iceberg 1.11.0's {@code
 * SparkWrite.StreamingAppend} and {@code StreamingOverwrite} (see FORKS.md): executors write
 * protected files per epoch, and the driver commits each epoch as one snapshot that records the
 * query id and epoch id ({@value #QUERY_ID_PROPERTY}, {@value #EPOCH_ID_PROPERTY}). Before it
 * commits, it looks for the last epoch of the same query in the history of the branch it writes to
 * and skips an epoch that is already there: a query restarted from its checkpoint after it
 * committed an epoch to the table, but before Spark recorded that commit, replays the epoch without
 * duplicating it.
 *
 * <ul>
 *   <li>{@link Mode#APPEND} ({@code outputMode("append")}): a fast append of the epoch's files.
 *   <li>{@link Mode#COMPLETE} ({@code outputMode("complete")}): the epoch's files replace every row
 *       of the table.
 * </ul>
 */
public final class ProtectedStreamingWrite implements StreamingWrite {
  private static final Logger LOG = LoggerFactory.getLogger(ProtectedStreamingWrite.class);

  /** Snapshot property holding the streaming query's id (Iceberg's). */
  public static final String QUERY_ID_PROPERTY = "spark.sql.streaming.queryId";

  /** Snapshot property holding the epoch (micro-batch) id (Iceberg's). */
  public static final String EPOCH_ID_PROPERTY = "spark.sql.streaming.epochId";

  /** How each epoch changes the table. */
  public enum Mode {
    APPEND,
    COMPLETE
  }

  /** What the protected write does for this sink: its files and its commits. */
  public interface Commits {
    /** The data files the tasks of one epoch wrote. */
    List<DataFile> files(WriterCommitMessage[] messages);

    /** Commits one epoch's snapshot update, with the write's snapshot properties and branch. */
    void commit(SnapshotUpdate<?> update, String description);

    /** Cleans up after an epoch Spark aborted. */
    void abort(List<DataFile> files);
  }

  private final Table table;
  private final String queryId;
  private final String branch;
  private final Mode mode;
  private final boolean mergeAppend;
  private final StreamingDataWriterFactory writerFactory;
  private final Commits commits;

  /**
   * @param queryId the streaming query's id, which survives restarts from its checkpoint
   * @param branch the branch the write commits to, or null for {@code main}
   * @param mergeAppend whether appends merge manifests ({@code use-merge-append-for-streaming}, as
   *     Iceberg 1.12's streaming append) rather than fast-append them
   */
  public ProtectedStreamingWrite(
      Table table,
      String queryId,
      String branch,
      Mode mode,
      boolean mergeAppend,
      StreamingDataWriterFactory writerFactory,
      Commits commits) {
    this.table = table;
    this.queryId = queryId;
    this.branch = branch;
    this.mode = mode;
    this.mergeAppend = mergeAppend;
    this.writerFactory = writerFactory;
    this.commits = commits;
  }

  @Override
  public StreamingDataWriterFactory createStreamingWriterFactory(PhysicalWriteInfo info) {
    return writerFactory;
  }

  @Override
  public boolean useCommitCoordinator() {
    return false;
  }

  @Override
  public void commit(long epochId, WriterCommitMessage[] messages) {
    LOG.info(
        "Committing epoch {} of query {} to {} in {} mode",
        epochId,
        queryId,
        table.name(),
        mode.name().toLowerCase(Locale.ROOT));
    table.refresh();
    Long lastCommitted = lastCommittedEpoch();
    if (lastCommitted != null && epochId <= lastCommitted) {
      // an earlier run committed this epoch; the files this run wrote for it can never be part
      // of the table (their names are this run's own), so they go (Iceberg leaves them orphaned)
      LOG.info(
          "Skipping epoch {} of query {}: {} already holds epoch {} of it",
          epochId,
          queryId,
          table.name(),
          lastCommitted);
      commits.abort(commits.files(messages));
      return;
    }
    List<DataFile> files = commits.files(messages);
    SnapshotUpdate<?> update;
    String description;
    if (mode == Mode.APPEND) {
      AppendFiles append = mergeAppend ? table.newAppend() : table.newFastAppend();
      files.forEach(append::appendFile);
      update = append;
      description = String.format("streaming append of %d protected data files", files.size());
    } else {
      OverwriteFiles overwrite =
          table.newOverwrite().overwriteByRowFilter(Expressions.alwaysTrue());
      files.forEach(overwrite::addFile);
      update = overwrite;
      description =
          String.format("streaming complete overwrite with %d protected data files", files.size());
    }
    update.set(QUERY_ID_PROPERTY, queryId);
    update.set(EPOCH_ID_PROPERTY, Long.toString(epochId));
    commits.commit(update, description + " (epoch " + epochId + ")");
  }

  @Override
  public void abort(long epochId, WriterCommitMessage[] messages) {
    commits.abort(commits.files(messages));
  }

  /**
   * The last epoch of this query in the history of the branch written to, or null. (Iceberg walks
   * the main branch's history whatever the branch; a branch's own history is the one that holds
   * this sink's commits.)
   */
  private Long lastCommittedEpoch() {
    Snapshot snapshot = SnapshotUtil.latestSnapshot(table, branch);
    while (snapshot != null) {
      Map<String, String> summary = snapshot.summary();
      if (queryId.equals(summary.get(QUERY_ID_PROPERTY))) {
        return Long.valueOf(summary.get(EPOCH_ID_PROPERTY));
      }
      Long parent = snapshot.parentId();
      snapshot = parent != null ? table.snapshot(parent) : null;
    }
    return null;
  }

  @Override
  public String toString() {
    return String.format(
        "ProtectedStreamingWrite(table=%s, mode=%s)",
        table.name(), mode.name().toLowerCase(Locale.ROOT));
  }
}
