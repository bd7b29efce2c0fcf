package io.icebergprotector.spark.write;

import io.icebergprotector.kms.KeyService;
import io.icebergprotector.kms.KeyServiceException;
import io.icebergprotector.policy.Principal;
import io.icebergprotector.spark.ExpressionRedactor;
import io.icebergprotector.spark.RecordedColumns;
import io.icebergprotector.spark.binding.BindingBoundary;
import io.icebergprotector.spark.crypto.KeyServiceRegistry;
import io.icebergprotector.spark.read.ProtectedCopyOnWriteScan;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.RewriteFiles;
import org.apache.iceberg.io.CloseableIterable;
import io.icebergprotector.spark.ProtectionSpec;
import io.icebergprotector.spark.ProtectorException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.apache.iceberg.AppendFiles;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.IsolationLevel;
import org.apache.iceberg.OverwriteFiles;
import org.apache.iceberg.ReplacePartitions;
import org.apache.iceberg.Schema;
import org.apache.iceberg.SnapshotSummary;
import org.apache.iceberg.SnapshotUpdate;
import org.apache.iceberg.Table;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.util.ContentFileUtil;
import org.apache.iceberg.util.DataFileSet;
import org.apache.iceberg.util.DeleteFileSet;
import org.apache.iceberg.spark.SparkWriteConf;
import org.apache.iceberg.spark.SparkWriteRequirements;
import org.apache.iceberg.spark.source.SerializableTableWithSize;
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
import org.apache.spark.sql.types.StructType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A protected batch write: executors write encrypted Parquet files, the driver commits them to
 * Iceberg in one atomic operation (append, overwrite by filter, dynamic partition overwrite, a
 * protected rewrite, or the file replacement of a copy-on-write DELETE, UPDATE or MERGE). Commits
 * carry the snapshot properties users set ({@link ProtectedCommit}).
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
  private final SparkWriteConf writeConf;
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
      SparkWriteConf writeConf,
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
   * The current versions of the keys this write uses. Parquet caches key-encryption keys per
   * access token; a new generation after a rotation makes new files use the new key version at
   * once instead of when the cache expires. Best effort: a key service that does not describe
   * keys to this principal leaves the generation empty.
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

  private DataWriterFactory writerFactory() {
    Broadcast<Table> tableBroadcast =
        JavaSparkContext.fromSparkContext(spark.sparkContext())
            .broadcast(SerializableTableWithSize.copyOf(table));
    return new ProtectedDataWriterFactory(
        tableBroadcast,
        info.queryId(),
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
          commitRewrite(files);
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
    commit(overwrite, String.format("overwrite by %s with %d protected data files",
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

  private void commitRewrite(List<DataFile> newFiles) {
    Set<String> paths = rewrite.files();
    List<DataFile> oldFiles = new ArrayList<>();
    DeleteFileSet oldDVs = DeleteFileSet.create();
    try (CloseableIterable<FileScanTask> tasks =
        table.newScan().useSnapshot(rewrite.snapshotId()).planFiles()) {
      for (FileScanTask task : tasks) {
        if (paths.contains(task.file().location())) {
          oldFiles.add(task.file());
          // the rows they delete were not copied; a DV may not outlive its data file
          task.deletes().stream().filter(ContentFileUtil::isDV).forEach(oldDVs::add);
        }
      }
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
    if (oldFiles.size() != paths.size()) {
      throw new ProtectorException(
          String.format(
              "Cannot commit the protected rewrite of %s: %d of the %d files to replace are not in"
                  + " snapshot %d",
              table.name(), paths.size() - oldFiles.size(), paths.size(), rewrite.snapshotId()));
    }
    RewriteFiles operation = table.newRewrite().validateFromSnapshot(rewrite.snapshotId());
    oldFiles.forEach(operation::deleteFile);
    oldDVs.forEach(operation::deleteFile);
    newFiles.forEach(operation::addFile);
    commit(
        operation,
        String.format(
            "protected rewrite of %d files into %d files", oldFiles.size(), newFiles.size()));
    if (rewrite.decrypt()) {
      RecordedColumns.record(table, spec);
    }
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
          String.format("copy-on-write overwrite with %d new data files (no validation)",
              files.size()));
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
            replaced.size(), files.size(), scan.snapshotId(), redactor().redact(conflictFilter),
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
