/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.spark.write;

import io.icebergprotector.kms.KeyService;
import io.icebergprotector.kms.KeyServiceException;
import io.icebergprotector.kms.token.TokenMode;
import io.icebergprotector.policy.Principal;
import io.icebergprotector.spark.binding.BindingBoundary;
import io.icebergprotector.spark.compat.BranchWriteConf;
import io.icebergprotector.spark.compat.IcebergOptions;
import io.icebergprotector.spark.core.ColumnProtection;
import io.icebergprotector.spark.core.ExpressionRedactor;
import io.icebergprotector.spark.core.ProtectionSpec;
import io.icebergprotector.spark.core.ProtectorException;
import io.icebergprotector.spark.core.TokenKeyRule;
import io.icebergprotector.spark.crypto.KeyServiceRegistry;
import io.icebergprotector.spark.metrics.KeyServiceCallsMetric;
import io.icebergprotector.spark.read.ProtectedCopyOnWriteScan;
import io.icebergprotector.spark.streaming.ProtectedStreamingWrite;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import org.apache.iceberg.AppendFiles;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.IsolationLevel;
import org.apache.iceberg.OverwriteFiles;
import org.apache.iceberg.ReplacePartitions;
import org.apache.iceberg.Schema;
import org.apache.iceberg.SnapshotUpdate;
import org.apache.iceberg.Table;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.spark.FileRewriteCoordinator;
import org.apache.iceberg.spark.SparkWriteRequirements;
import org.apache.iceberg.spark.source.SerializableTableWithSize;
import org.apache.iceberg.util.ContentFileUtil;
import org.apache.iceberg.util.DataFileSet;
import org.apache.iceberg.util.DeleteFileSet;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.broadcast.Broadcast;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.connector.distributions.Distribution;
import org.apache.spark.sql.connector.expressions.SortOrder;
import org.apache.spark.sql.connector.metric.CustomMetric;
import org.apache.spark.sql.connector.write.BatchWrite;
import org.apache.spark.sql.connector.write.DataWriterFactory;
import org.apache.spark.sql.connector.write.LogicalWriteInfo;
import org.apache.spark.sql.connector.write.PhysicalWriteInfo;
import org.apache.spark.sql.connector.write.RequiresDistributionAndOrdering;
import org.apache.spark.sql.connector.write.Write;
import org.apache.spark.sql.connector.write.WriterCommitMessage;
import org.apache.spark.sql.connector.write.streaming.StreamingWrite;
import org.apache.spark.sql.types.StructType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A protected batch write: executors write encrypted Parquet files, the driver commits them to
 * Iceberg in one atomic operation (append, overwrite by filter, dynamic partition overwrite, or the
 * file replacement of a copy-on-write DELETE, UPDATE or MERGE), or stages them for a rewrite's
 * commit ({@link RewriteRequest}). Commits carry the snapshot properties users set ({@link
 * ProtectedCommit}). As a streaming write it commits one snapshot per epoch ({@link
 * ProtectedStreamingWrite}).
 */
public class ProtectedWrite implements Write, RequiresDistributionAndOrdering {
  private static final Logger LOG = LoggerFactory.getLogger(ProtectedWrite.class);

  enum Mode {
    APPEND,
    OVERWRITE_BY_FILTER,
    DYNAMIC_OVERWRITE,
    REWRITE,
    COPY_ON_WRITE
  }

  /** The scan and isolation level of a copy-on-write operation (both null otherwise). */
  static final class CopyOnWrite {
    private final ProtectedCopyOnWriteScan scan;
    private final IsolationLevel isolationLevel;

    CopyOnWrite(ProtectedCopyOnWriteScan scan, IsolationLevel isolationLevel) {
      this.scan = scan;
      this.isolationLevel = isolationLevel;
    }
  }

  private final SparkSession spark;
  private final Table table;
  private final BranchWriteConf writeConf;
  private final LogicalWriteInfo info;
  private final Schema writeSchema;
  private final StructType dsSchema;
  private final ProtectionSpec spec;
  private final Mode mode;
  private final Expression overwriteExpr;
  private final RewriteRequest rewrite;
  private final SparkWriteRequirements requirements;
  private final CopyOnWrite copyOnWrite;
  private final ProtectedCommit committer;

  ProtectedWrite(
      SparkSession spark,
      Table table,
      BranchWriteConf writeConf,
      LogicalWriteInfo info,
      Schema writeSchema,
      StructType dsSchema,
      ProtectionSpec spec,
      Mode mode,
      Expression overwriteExpr,
      RewriteRequest rewrite,
      SparkWriteRequirements requirements,
      CopyOnWrite copyOnWrite) {
    this.spark = spark;
    this.table = table;
    this.writeConf = writeConf;
    this.info = info;
    this.writeSchema = writeSchema;
    this.dsSchema = dsSchema;
    this.spec = spec.withWriteGeneration(keyGeneration(spec));
    this.mode = mode;
    this.overwriteExpr = overwriteExpr;
    this.rewrite = rewrite;
    this.requirements = requirements;
    this.copyOnWrite = copyOnWrite;
    this.committer = new ProtectedCommit(spark, table, writeConf, redactor());
  }

  /**
   * The current versions of the keys this write uses. Parquet caches key-encryption keys per access
   * token; a new generation after a rotation makes new files use the new key version at once
   * instead of when the cache expires. Best effort: a key service that does not describe keys to
   * this principal leaves the generation empty.
   */
  public static String keyGeneration(ProtectionSpec spec) {
    if (!spec.kms().describesKeysToAnyone()) {
      // a key server shows key metadata to admins only; writers rely on the KEK cache lifetime
      return "";
    }
    StringBuilder sb = new StringBuilder();
    try {
      KeyService keys = KeyServiceRegistry.obtain(spec.keyScope(), spec.policy());
      for (String keyId : new TreeSet<>(spec.writeKeyIds())) {
        sb.append(keyId).append('@').append(keys.describeKey(keyId).latestVersion()).append(';');
      }
    } catch (KeyServiceException e) {
      LOG.debug("Key versions unavailable for {}: {}", spec.tableName(), e.getMessage());
      return "";
    }
    return sb.toString();
  }

  /** Fails fast on the driver when the principal may not wrap every key this write needs. */
  public static void checkWriter(ProtectionSpec spec) {
    Principal principal = spec.principal();
    Set<String> allowed = spec.policy().wrappableKeys(principal);
    Set<String> missing = new TreeSet<>(spec.writeKeyIds());
    missing.removeAll(allowed);
    if (!missing.isEmpty()) {
      throw new ProtectorException(
          String.format(
              "Principal '%s' (roles %s) may not write to protected table %s: it is not a writer"
                  + " for key(s) %s (writers: %s)",
              principal.user(),
              new TreeSet<>(spec.policy().rolesOf(principal)),
              spec.tableName(),
              missing,
              spec.policy().table(spec.tableName()).map(t -> t.writers()).orElse(Set.of())));
    }
    checkTokenKeys(spec);
  }

  /**
   * In local token mode a writer tokenizes with the token key, and the key detokenizes every token
   * of its domain: only principals who read the domain in clear get it. Refuses, before any task
   * runs, a write whose principal would be refused a token key, naming the way out.
   */
  static void checkTokenKeys(ProtectionSpec spec) {
    if (spec.tokenMode() != TokenMode.LOCAL) {
      return; // server mode: the key server tokenizes for writers and keeps the key
    }
    Principal principal = spec.principal();
    for (ColumnProtection column : spec.tokenizedColumns().values()) {
      if (!spec.policy().mayReleaseTokenKey(principal, column.keyId(), column.domain())) {
        throw new ProtectorException(
            TokenKeyRule.refusal(
                "write to protected table " + spec.tableName(),
                principal,
                spec.policy(),
                "tokenize column '" + column.path() + "'",
                column.domain(),
                spec.kms()));
      }
    }
  }

  @Override
  public String description() {
    return String.format("ProtectedWrite(table=%s, mode=%s)", table.name(), mode);
  }

  @Override
  public Distribution requiredDistribution() {
    return requirements.distribution();
  }

  @Override
  public boolean distributionStrictlyRequired() {
    return false;
  }

  @Override
  public SortOrder[] requiredOrdering() {
    return requirements.ordering();
  }

  @Override
  public long advisoryPartitionSizeInBytes() {
    return requirements.advisoryPartitionSize();
  }

  @Override
  public CustomMetric[] supportedCustomMetrics() {
    return KeyServiceCallsMetric.ALL;
  }

  @Override
  public BatchWrite toBatch() {
    return new ProtectedBatchWrite();
  }

  /**
   * The Structured Streaming sink (append, and complete as an overwrite of every row), as Iceberg's
   * streaming writes; see {@link ProtectedStreamingWrite}.
   */
  @Override
  public StreamingWrite toStreaming() {
    ProtectedStreamingWrite.Mode streamingMode;
    if (mode == Mode.APPEND) {
      streamingMode = ProtectedStreamingWrite.Mode.APPEND;
    } else if (mode == Mode.OVERWRITE_BY_FILTER && overwriteExpr == Expressions.alwaysTrue()) {
      streamingMode = ProtectedStreamingWrite.Mode.COMPLETE;
    } else {
      throw new UnsupportedOperationException(
          String.format(
              "Unsupported streaming operation on protected table %s: %s (streaming writes append,"
                  + " or replace every row in complete output mode)",
              table.name(), mode));
    }
    // every run of the query names its files apart: a run restarted in a new application would
    // otherwise reuse the names (partition, task, query and epoch ids) of files already committed
    String operationPrefix = info.queryId() + "-" + UUID.randomUUID().toString().substring(0, 8);
    return new ProtectedStreamingWrite(
        table,
        info.queryId(),
        writeConf.branch(),
        streamingMode,
        info.options().getBoolean(IcebergOptions.USE_MERGE_APPEND_FOR_STREAMING, false),
        writerFactory(operationPrefix),
        new ProtectedStreamingWrite.Commits() {
          @Override
          public List<DataFile> files(WriterCommitMessage[] messages) {
            return ProtectedWrite.files(messages);
          }

          @Override
          public void commit(SnapshotUpdate<?> update, String description) {
            // before the data commit, so every later commit falls under file binding
            BindingBoundary.record(table);
            ProtectedWrite.this.commit(update, description);
          }

          @Override
          public void abort(List<DataFile> files) {
            committer.abort(files);
          }
        });
  }

  private ProtectedDataWriterFactory writerFactory() {
    return writerFactory(info.queryId());
  }

  /**
   * @param operationPrefix names this write's files (with the epoch, for streaming writes)
   */
  private ProtectedDataWriterFactory writerFactory(String operationPrefix) {
    Broadcast<Table> tableBroadcast =
        JavaSparkContext.fromSparkContext(spark.sparkContext())
            .broadcast(SerializableTableWithSize.copyOf(table));
    return new ProtectedDataWriterFactory(
        tableBroadcast,
        operationPrefix,
        writeConf.outputSpecId(),
        writeConf.targetDataFileSize(),
        writeSchema,
        dsSchema,
        writeConf.useFanoutWriter(requirements),
        writeConf.outputSortOrderId(requirements),
        spec,
        writeConf.writeProperties());
  }

  private class ProtectedBatchWrite implements BatchWrite {
    @Override
    public DataWriterFactory createBatchWriterFactory(PhysicalWriteInfo physicalInfo) {
      return writerFactory();
    }

    @Override
    public boolean useCommitCoordinator() {
      return false;
    }

    @Override
    public void commit(WriterCommitMessage[] messages) {
      List<DataFile> files = files(messages);
      // before the data commit, so every later commit falls under file binding
      BindingBoundary.record(table);
      switch (mode) {
        case APPEND:
          commitAppend(files);
          break;
        case OVERWRITE_BY_FILTER:
          commitOverwrite(files);
          break;
        case DYNAMIC_OVERWRITE:
          commitDynamicOverwrite(files);
          break;
        case REWRITE:
          stageRewrite(files);
          break;
        case COPY_ON_WRITE:
          commitCopyOnWrite(files);
          break;
        default:
          throw new IllegalStateException("Unknown write mode: " + mode);
      }
    }

    @Override
    public void abort(WriterCommitMessage[] messages) {
      committer.abort(files(messages));
    }
  }

  private void commitAppend(List<DataFile> files) {
    AppendFiles append = table.newAppend();
    files.forEach(append::appendFile);
    commit(append, String.format("append of %d protected data files", files.size()));
  }

  private void commitOverwrite(List<DataFile> files) {
    OverwriteFiles overwrite = table.newOverwrite().overwriteByRowFilter(overwriteExpr);
    files.forEach(overwrite::addFile);
    IsolationLevel isolation = writeConf.isolationLevel();
    Long validateFrom = writeConf.validateFromSnapshotId();
    if (isolation != null && validateFrom != null) {
      overwrite.validateFromSnapshot(validateFrom);
    }
    if (isolation == IsolationLevel.SERIALIZABLE) {
      overwrite.validateNoConflictingDeletes();
      overwrite.validateNoConflictingData();
    } else if (isolation == IsolationLevel.SNAPSHOT) {
      overwrite.validateNoConflictingDeletes();
    }
    commit(
        overwrite,
        String.format(
            "overwrite by %s with %d protected data files",
            redactor().redact(overwriteExpr), files.size()));
  }

  private void commitDynamicOverwrite(List<DataFile> files) {
    if (files.isEmpty()) {
      LOG.info("Dynamic overwrite of {} wrote no files; nothing to replace", table.name());
      return;
    }
    ReplacePartitions replace = table.newReplacePartitions();
    files.forEach(replace::addFile);
    IsolationLevel isolation = writeConf.isolationLevel();
    Long validateFrom = writeConf.validateFromSnapshotId();
    if (isolation != null && validateFrom != null) {
      replace.validateFromSnapshot(validateFrom);
    }
    if (isolation == IsolationLevel.SERIALIZABLE) {
      replace.validateNoConflictingData();
      replace.validateNoConflictingDeletes();
    } else if (isolation == IsolationLevel.SNAPSHOT) {
      replace.validateNoConflictingDeletes();
    }
    commit(replace, String.format("dynamic overwrite with %d protected data files", files.size()));
  }

  /**
   * Stages the new files of a rewrite with Iceberg's {@link FileRewriteCoordinator}, as Iceberg's
   * {@code SparkWrite.RewriteFiles} does: the rewrite's commit (Iceberg's commit manager) replaces
   * the staged tasks' files with them, with Iceberg's conflict validation.
   */
  private void stageRewrite(List<DataFile> newFiles) {
    LOG.info(
        "Staging {} protected data files of a rewrite of {} (task set {})",
        newFiles.size(),
        table.name(),
        rewrite.fileSetId());
    FileRewriteCoordinator.get().stageRewrite(table, rewrite.fileSetId(), DataFileSet.of(newFiles));
  }

  /**
   * Replaces the files the copy-on-write scan read (and their deletion vectors) with the files
   * written, validated as Iceberg's {@code SparkWrite.CopyOnWriteOperation} validates them.
   */
  private void commitCopyOnWrite(List<DataFile> files) {
    ProtectedCopyOnWriteScan scan = copyOnWrite.scan;
    OverwriteFiles overwrite = table.newOverwrite();
    DataFileSet replaced = DataFileSet.create();
    DeleteFileSet danglingDVs = DeleteFileSet.create();
    if (scan != null) {
      for (FileScanTask task : scan.files()) {
        replaced.add(task.file());
        task.deletes().stream().filter(ContentFileUtil::isDV).forEach(danglingDVs::add);
      }
    }
    overwrite.deleteFiles(replaced, danglingDVs);
    files.forEach(overwrite::addFile);
    if (scan == null) {
      // Spark replaced the scan with an empty relation: the result does not depend on the table
      commit(
          overwrite,
          String.format(
              "copy-on-write overwrite with %d new data files (no validation)", files.size()));
      return;
    }
    Expression conflictFilter =
        scan.filterExpressions().stream().reduce(Expressions.alwaysTrue(), Expressions::and);
    if (scan.snapshotId() != null) {
      overwrite.validateFromSnapshot(scan.snapshotId());
    }
    overwrite.conflictDetectionFilter(conflictFilter);
    IsolationLevel isolation = copyOnWrite.isolationLevel;
    switch (isolation) {
      case SERIALIZABLE:
        overwrite.validateNoConflictingData();
        overwrite.validateNoConflictingDeletes();
        break;
      case SNAPSHOT:
        overwrite.validateNoConflictingDeletes();
        break;
      default:
        throw new IllegalArgumentException("Unsupported isolation level: " + isolation);
    }
    commit(
        overwrite,
        String.format(
            "copy-on-write overwrite of %d data files with %d new data files (scan snapshot %s,"
                + " conflict detection filter %s, %s isolation)",
            replaced.size(),
            files.size(),
            scan.snapshotId(),
            redactor().redact(conflictFilter),
            isolation),
        conflictFilter);
  }

  private void commit(SnapshotUpdate<?> operation, String description) {
    commit(operation, description, overwriteExpr);
  }

  private void commit(SnapshotUpdate<?> operation, String description, Expression filter) {
    committer.commit(operation, description, filter);
  }

  private ExpressionRedactor redactor() {
    return ExpressionRedactor.forSpec(spec, table.schema());
  }

  private static List<DataFile> files(WriterCommitMessage[] messages) {
    List<DataFile> files = new ArrayList<>();
    for (WriterCommitMessage message : messages) {
      if (message != null) {
        files.addAll(List.of(((ProtectedTaskCommit) message).files()));
      }
    }
    return files;
  }
}
