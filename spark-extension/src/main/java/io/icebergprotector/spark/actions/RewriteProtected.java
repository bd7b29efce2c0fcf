/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.spark.actions;

import static io.icebergprotector.policy.Preconditions.checkArgument;

import io.icebergprotector.spark.access.MaintenanceAccess;
import io.icebergprotector.spark.binding.BindingBoundary;
import io.icebergprotector.spark.binding.FileAdmission;
import io.icebergprotector.spark.compat.IcebergOptions;
import io.icebergprotector.spark.core.CatalogOptions;
import io.icebergprotector.spark.core.ColumnProtection;
import io.icebergprotector.spark.core.ProtectionSpec;
import io.icebergprotector.spark.core.ProtectorException;
import io.icebergprotector.spark.core.RecordedColumns;
import io.icebergprotector.spark.crypto.ColumnTokenizers;
import io.icebergprotector.spark.crypto.FileBinding;
import io.icebergprotector.spark.crypto.KeyServiceRegistry;
import io.icebergprotector.spark.crypto.ProtectorCrypto;
import io.icebergprotector.spark.inspect.ColumnReport;
import io.icebergprotector.spark.inspect.FooterReport;
import io.icebergprotector.spark.inspect.KeyMaterial;
import io.icebergprotector.spark.inspect.ParquetFooterInspector;
import io.icebergprotector.spark.table.ProtectedTable;
import io.icebergprotector.spark.table.ProtectingCatalog;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.actions.ImmutableRewriteDataFiles;
import org.apache.iceberg.actions.RewriteDataFilesCommitManager;
import org.apache.iceberg.actions.RewriteFileGroup;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.shaded.org.apache.parquet.ParquetReadOptions;
import org.apache.iceberg.shaded.org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.iceberg.shaded.org.apache.parquet.schema.MessageType;
import org.apache.iceberg.spark.CommitMetadata;
import org.apache.iceberg.spark.FileRewriteCoordinator;
import org.apache.iceberg.spark.ScanTaskSetManager;
import org.apache.iceberg.spark.Spark3Util;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.connector.catalog.CatalogPlugin;
import org.apache.spark.sql.connector.catalog.Identifier;

/**
 * Rewrites the data files of a protected table that do not match its protection today, as one
 * atomic Iceberg rewrite commit: files whose keys are older than a key version (after a rotation),
 * plaintext files (a table that was just put under the policy), files whose columns are encrypted
 * differently from the policy (a newly protected column, a changed key), files without file binding
 * (written by a protector version before binding: reason {@code unbound}), files whose tokenized
 * columns were tokenized under an older token key version than their key's latest (reason {@code
 * token-version}: they are re-tokenized), and, in decrypt mode, files holding columns whose
 * protection was removed. Files the protector did not write, committed after the table came under
 * file binding, are refused unless unverified files are accepted explicitly (then reason {@code
 * unverified}): a rewrite would otherwise bind them and so vouch for their contents. Readers keep
 * reading the previous snapshot until the commit.
 *
 * <pre>
 * RewriteProtected.Result r = RewriteProtected.of(spark, "prod.db.customers").minKeyVersion(3).execute();
 * </pre>
 */
public final class RewriteProtected {
  private final SparkSession spark;
  private final String tableName;
  private int minKeyVersion = 0;
  private boolean decrypt = false;
  private boolean force = false;
  private boolean acceptUnverified = false;
  private String catalogName;
  private final Map<String, Integer> latestVersions = new java.util.HashMap<>();
  private ProtectionSpec currentSpec;

  private RewriteProtected(SparkSession spark, String tableName) {
    this.spark = spark;
    this.tableName = tableName;
  }

  /** The action for a table name as Spark resolves it, e.g. {@code prod.db.customers}. */
  public static RewriteProtected of(SparkSession spark, String tableName) {
    return new RewriteProtected(spark, tableName);
  }

  /** Rewrites files with any key (column or footer) older than this version. */
  public RewriteProtected minKeyVersion(int version) {
    checkArgument(version >= 0, "Min key version must be >= 0: %s", version);
    this.minKeyVersion = version;
    return this;
  }

  /** Decrypts columns whose protection was removed from the policy (forced unprotection). */
  public RewriteProtected decrypt(boolean decryptRetired) {
    this.decrypt = decryptRetired;
    return this;
  }

  /**
   * Also rewrites (and so binds) data files the protector did not write that were committed after
   * the table came under file binding, instead of refusing them. The session setting {@code
   * spark.sql.catalog.<catalog>.protector.accept-unverified-files} does the same.
   */
  public RewriteProtected acceptUnverified(boolean accept) {
    this.acceptUnverified = accept;
    return this;
  }

  /** Rewrites every data file. */
  public RewriteProtected force(boolean rewriteAll) {
    this.force = rewriteAll;
    return this;
  }

  /** What a rewrite did. */
  public static final class Result {
    private final int rewrittenFiles;
    private final long rewrittenBytes;
    private final int addedFiles;
    private final long addedBytes;
    private final Map<String, Integer> reasons;

    Result(
        int rewrittenFiles,
        long rewrittenBytes,
        int addedFiles,
        long addedBytes,
        Map<String, Integer> reasons) {
      this.rewrittenFiles = rewrittenFiles;
      this.rewrittenBytes = rewrittenBytes;
      this.addedFiles = addedFiles;
      this.addedBytes = addedBytes;
      this.reasons = reasons;
    }

    public int rewrittenFiles() {
      return rewrittenFiles;
    }

    public long rewrittenBytes() {
      return rewrittenBytes;
    }

    public int addedFiles() {
      return addedFiles;
    }

    public long addedBytes() {
      return addedBytes;
    }

    /** Why files were selected: reason → file count. */
    public Map<String, Integer> reasons() {
      return reasons;
    }

    @Override
    public String toString() {
      return String.format(
          "rewrote %d files (%d bytes) into %d files (%d bytes); reasons %s",
          rewrittenFiles, rewrittenBytes, addedFiles, addedBytes, reasons);
    }
  }

  public Result execute() {
    ProtectedTable protectedTable = loadProtectedTable();
    Table table = protectedTable.table();
    table.refresh();
    ProtectionSpec spec = protectedTable.protection();
    this.currentSpec = spec;
    MaintenanceAccess.requireRewrite(
        spec, "CALL " + catalogName + ".system.rewrite_protected", false);
    boolean acceptAll =
        acceptUnverified || FileAdmission.acceptUnverified(spark, catalogName, Map.of());
    FileAdmission admission = FileAdmission.of(table, spec.tableName(), catalogName, acceptAll);
    FileBinding binding = FileBinding.of(table);
    ProtectionSpec readSpec = decrypt ? spec.forDecryptRead() : spec;
    Snapshot snapshot = table.currentSnapshot();
    if (snapshot == null) {
      return new Result(0, 0, 0, 0, Map.of());
    }

    Map<String, Integer> reasons = new LinkedHashMap<>();
    Set<String> selected = new LinkedHashSet<>();
    List<FileScanTask> tasks = new ArrayList<>();
    long bytes = 0;
    try (CloseableIterable<FileScanTask> planned =
        table.newScan().useSnapshot(snapshot.snapshotId()).planFiles()) {
      for (FileScanTask task : planned) {
        DataFile file = task.file();
        String reason = reasonToRewrite(table, readSpec, spec, file, admission, binding);
        if (reason != null && selected.add(file.location())) {
          reasons.merge(reason, 1, Integer::sum);
          bytes += file.fileSizeInBytes();
          tasks.add(task);
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    if (selected.isEmpty()) {
      // Nothing to rewrite: still put the table under file binding (the rewrite's write does it
      // otherwise), if this principal may write it.
      if (spec.policy().wrappableKeys(spec.principal()).containsAll(spec.writeKeyIds())) {
        BindingBoundary.record(table);
      }
      if (!decrypt && spec.retiredFieldIds().isEmpty()) {
        // nothing to rewrite, but a table encrypted before its columns were recorded gets them now
        RecordedColumns.record(table, spec);
      }
      return new Result(0, 0, 0, 0, reasons);
    }

    Set<DataFile> added = rewrite(table, snapshot.snapshotId(), tasks, acceptAll);
    if (decrypt) {
      // the retired columns are gone from every live file: stop recording them
      RecordedColumns.record(table, spec.withoutRetired());
    }
    long addedBytes = added.stream().mapToLong(DataFile::fileSizeInBytes).sum();
    return new Result(selected.size(), bytes, added.size(), addedBytes, reasons);
  }

  /**
   * Rewrites the files of {@code tasks} as one group, the way Iceberg's {@code rewrite_data_files}
   * does: the tasks are staged in Iceberg's {@link ScanTaskSetManager}, the protected scan reads
   * exactly them ({@code scan-task-set-id}), the protected write stages the new files with {@link
   * FileRewriteCoordinator} ({@code rewritten-file-scan-task-set-id}), and Iceberg's {@link
   * RewriteDataFilesCommitManager} commits the replacement: validated against changes since {@code
   * snapshotId}, with that snapshot's data sequence number (so deletes committed meanwhile still
   * apply), removing the rewritten files' deletion vectors, and cleaning up the new files if the
   * commit fails.
   */
  private Set<DataFile> rewrite(
      Table table, long snapshotId, List<FileScanTask> tasks, boolean acceptAll) {
    String groupId = UUID.randomUUID().toString();
    ScanTaskSetManager taskSets = ScanTaskSetManager.get();
    FileRewriteCoordinator coordinator = FileRewriteCoordinator.get();
    try {
      taskSets.stageTasks(table, groupId, tasks);
      Dataset<Row> rows =
          spark
              .read()
              .option(IcebergOptions.SCAN_TASK_SET_ID, groupId)
              .option(CatalogOptions.REWRITE_DECRYPT.key(), String.valueOf(decrypt))
              .option(CatalogOptions.ACCEPT_UNVERIFIED_FILES.key(), String.valueOf(acceptAll))
              .table(tableName);
      // The DataFrameWriter form, as Iceberg's own rewrites write: with writeTo(tableName),
      // Spark 4.0 resolves the target to the relation the read above resolved (with the read's
      // options), and its V2Writes rule fails an assertion on the differing options.
      rows.write()
          .format("iceberg")
          .option(IcebergOptions.REWRITTEN_FILE_SCAN_TASK_SET_ID, groupId)
          .option(CatalogOptions.REWRITE_DECRYPT.key(), String.valueOf(decrypt))
          .mode("append")
          .save(tableName);
      Set<DataFile> added = coordinator.fetchNewFiles(table, groupId);
      if (added == null) {
        throw new ProtectorException(
            "The protected rewrite of " + tableName + " staged no files for task set " + groupId);
      }
      RewriteFileGroup group =
          new RewriteFileGroup(
              ImmutableRewriteDataFiles.FileGroupInfo.builder()
                  .globalIndex(0)
                  .partitionIndex(0)
                  .partition(tasks.get(0).file().partition())
                  .build(),
              tasks,
              table.spec().specId(),
              Long.MAX_VALUE,
              Long.MAX_VALUE,
              added.size());
      group.setOutputFiles(added);
      Map<String, String> properties = new LinkedHashMap<>(CommitMetadata.commitProperties());
      properties.put("spark.app.id", spark.sparkContext().applicationId());
      properties.put("iceberg-protector.protected", "true");
      properties.put("iceberg-protector.operation", "rewrite_protected");
      new RewriteDataFilesCommitManager(table, snapshotId, true, properties)
          .commitOrClean(Set.of(group));
      return added;
    } finally {
      taskSets.removeTasks(table, groupId);
      coordinator.clearRewrite(table, groupId);
    }
  }

  private ProtectedTable loadProtectedTable() {
    Spark3Util.CatalogAndIdentifier resolved =
        Spark3Util.catalogAndIdentifier("table", spark, tableName);
    CatalogPlugin catalog = resolved.catalog();
    this.catalogName = catalog.name();
    ProtectingCatalog protecting = ProtectingCatalog.unwrap(catalog);
    if (protecting == null) {
      throw new ProtectorException(
          String.format(
              "Table %s is not in a protecting catalog (catalog %s is %s)",
              tableName, catalog.name(), catalog.getClass().getName()));
    }
    Identifier ident = resolved.identifier();
    try {
      org.apache.spark.sql.connector.catalog.Table loaded = protecting.loadTable(ident);
      if (!(loaded instanceof ProtectedTable)) {
        throw new ProtectorException(
            "Table " + tableName + " is not listed in the policy: there is nothing to rewrite");
      }
      return (ProtectedTable) loaded;
    } catch (org.apache.spark.sql.catalyst.analysis.NoSuchTableException e) {
      throw new ProtectorException("Table " + tableName + " does not exist", e);
    }
  }

  /** Why a file must be rewritten, or null if it matches today's protection. */
  private String reasonToRewrite(
      Table table,
      ProtectionSpec readSpec,
      ProtectionSpec spec,
      DataFile file,
      FileAdmission admission,
      FileBinding binding) {
    FileAdmission.Verdict verdict = admission.admit(file); // refuses unaccepted unverified files
    if (force) {
      return "forced";
    }
    if (verdict == FileAdmission.Verdict.UNVERIFIED) {
      return "unverified";
    }
    String location = file.location();
    FileBinding fileBinding = verdict == FileAdmission.Verdict.BOUND ? binding : null;
    InputFile input = table.io().newInputFile(location, file.fileSizeInBytes());
    FooterReport report =
        ParquetFooterInspector.inspect(
            input, ProtectorCrypto.fileDecryption(readSpec, location, fileBinding));
    if (verdict == FileAdmission.Verdict.LEGACY) {
      boolean plaintext =
          !report.encrypted() && !expectedKeys(table, readSpec, spec, file, null).isEmpty();
      return plaintext ? "plaintext" : "unbound";
    }
    if (report.aadPrefixRequired()) {
      // bound before bindings were stored: only this project's readers could open it
      return "binding-not-stored";
    }
    Map<String, String> expected = expectedKeys(table, readSpec, spec, file, fileBinding);
    if (minKeyVersion > 0 && olderThan(report.footerKey().orElse(null))) {
      return "key-version";
    }
    for (ColumnReport column : report.columns()) {
      String want = expected.get(column.path());
      String have =
          column.encrypted() && !column.encryptedWithFooterKey()
              ? column.keyMaterial().map(KeyMaterial::masterKeyId).orElse("?")
              : null;
      if (!java.util.Objects.equals(want, have)) {
        return want == null ? "unprotected-column" : "policy-change";
      }
      if (have != null && minKeyVersion > 0 && olderThan(column.keyMaterial().orElse(null))) {
        return "key-version";
      }
    }
    if (!decrypt && staleTokens(table, readSpec, spec, file, fileBinding)) {
      return "token-version";
    }
    return null;
  }

  /**
   * True when a tokenized column of the file was tokenized under a token key version older than its
   * master key's latest (or than {@code min_key_version} where the key service describes keys to
   * admins only): tokens carry no version, so the footer's record ({@link
   * ColumnTokenizers#VERSIONS_KEY}) says which; re-tokenizing is a rewrite.
   */
  private boolean staleTokens(
      Table table,
      ProtectionSpec readSpec,
      ProtectionSpec spec,
      DataFile file,
      FileBinding fileBinding) {
    Map<Integer, ColumnProtection> tokenized = spec.tokenizedColumns();
    if (tokenized.isEmpty()) {
      return false;
    }
    Map<String, String> metadata = footer(table, readSpec, file, fileBinding).getKeyValueMetaData();
    Map<Integer, Integer> versions =
        ColumnTokenizers.parseVersions(
            metadata.get(ColumnTokenizers.VERSIONS_KEY), file.location());
    for (Map.Entry<Integer, Integer> entry : versions.entrySet()) {
      ColumnProtection column = tokenized.get(entry.getKey());
      if (column == null) {
        continue;
      }
      int target = latestVersions.computeIfAbsent(column.keyId(), this::latestVersion);
      if (minKeyVersion > 0) {
        target = Math.min(target, minKeyVersion);
      }
      if (entry.getValue() < target) {
        return true;
      }
    }
    return false;
  }

  private org.apache.iceberg.shaded.org.apache.parquet.hadoop.metadata.FileMetaData footer(
      Table table, ProtectionSpec readSpec, DataFile file, FileBinding fileBinding) {
    String location = file.location();
    ParquetReadOptions options =
        ParquetReadOptions.builder()
            .withDecryption(ProtectorCrypto.fileDecryption(readSpec, location, fileBinding))
            .build();
    try (ParquetFileReader reader =
        ParquetFileReader.open(
            new io.icebergprotector.spark.read.ParquetInputFileAdapter(
                table.io().newInputFile(location)),
            options)) {
      return reader.getFooter().getFileMetaData();
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read the footer of " + location, e);
    }
  }

  /**
   * True when the material's key version is below the requested minimum, capped at the key's latest
   * version: a key that was never rotated that far does not force rewrites forever.
   */
  private boolean olderThan(KeyMaterial material) {
    if (material == null) {
      return false;
    }
    java.util.OptionalInt version = material.masterKeyVersion();
    if (version.isEmpty()) {
      return false;
    }
    int target =
        Math.min(
            minKeyVersion,
            latestVersions.computeIfAbsent(material.masterKeyId(), this::latestVersion));
    return version.getAsInt() < target;
  }

  private int latestVersion(String keyId) {
    if (!currentSpec.kms().describesKeysToAnyone()) {
      // key servers describe keys to admins only; 0: no minimum asked, nothing is older
      return minKeyVersion;
    }
    try {
      return KeyServiceRegistry.obtain(currentSpec.keyScope(), currentSpec.policy())
          .describeKey(keyId)
          .latestVersion();
    } catch (RuntimeException e) {
      return minKeyVersion; // a service that does not describe keys: trust the requested minimum
    }
  }

  /**
   * The master key each Parquet leaf column of the file should be encrypted with today, by the
   * file's own field ids (so renamed columns still match). Retired columns expect plaintext in
   * decrypt mode and keep their recorded key otherwise.
   */
  private Map<String, String> expectedKeys(
      Table table,
      ProtectionSpec readSpec,
      ProtectionSpec spec,
      DataFile file,
      FileBinding fileBinding) {
    String location = file.location();
    MessageType fileSchema;
    ParquetReadOptions options =
        ParquetReadOptions.builder()
            .withDecryption(ProtectorCrypto.fileDecryption(readSpec, location, fileBinding))
            .build();
    try (ParquetFileReader reader =
        ParquetFileReader.open(
            new io.icebergprotector.spark.read.ParquetInputFileAdapter(
                table.io().newInputFile(location)),
            options)) {
      fileSchema = reader.getFooter().getFileMetaData().getSchema();
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read the footer of " + location, e);
    }
    // what a rewrite would write today: retired columns in plaintext when decrypting
    return ProtectorCrypto.leafKeys(decrypt ? spec.withoutRetired() : spec, fileSchema);
  }
}
