/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.spark.table;

import static io.icebergprotector.policy.Preconditions.checkArgument;

import io.icebergprotector.kms.KeyDestroyedException;
import io.icebergprotector.kms.KeyService;
import io.icebergprotector.kms.KeyServiceException;
import io.icebergprotector.spark.binding.FileAdmission;
import io.icebergprotector.spark.compat.IcebergOptions;
import io.icebergprotector.spark.compat.PinnedSparkTable;
import io.icebergprotector.spark.core.CatalogOptions;
import io.icebergprotector.spark.core.ColumnProtection;
import io.icebergprotector.spark.core.ProtectionSpec;
import io.icebergprotector.spark.core.ProtectorException;
import io.icebergprotector.spark.crypto.KeyServiceRegistry;
import io.icebergprotector.spark.read.ProtectedFilters;
import io.icebergprotector.spark.read.ProtectedScanBuilder;
import io.icebergprotector.spark.rowlevel.ProtectedRowLevelOperationBuilder;
import io.icebergprotector.spark.rowlevel.RowLevelAccess;
import io.icebergprotector.spark.rowlevel.RowLevelTable;
import io.icebergprotector.spark.write.ProtectedWriteBuilder;
import io.icebergprotector.spark.write.RewriteWriteInfo;
import java.util.Set;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.spark.SparkUtil;
import org.apache.iceberg.spark.source.SparkTable;
import org.apache.iceberg.util.SnapshotUtil;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.connector.expressions.filter.Predicate;
import org.apache.spark.sql.connector.read.ScanBuilder;
import org.apache.spark.sql.connector.write.LogicalWriteInfo;
import org.apache.spark.sql.connector.write.RowLevelOperationBuilder;
import org.apache.spark.sql.connector.write.RowLevelOperationInfo;
import org.apache.spark.sql.connector.write.WriteBuilder;
import org.apache.spark.sql.types.ArrayType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.MapType;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;

/**
 * An Iceberg table listed in the policy. It keeps everything of {@link SparkTable} (metadata,
 * properties, partitioning, procedures) and replaces the data paths: scans decrypt per principal,
 * writes encrypt the policy columns, and DELETE, UPDATE and MERGE run through both (package {@code
 * rowlevel}).
 */
public class ProtectedTable extends PinnedSparkTable implements RowLevelTable {
  private final Long snapshotId;
  private final String branch;
  private final boolean refreshEagerly;
  private final TableProtection protection;
  private final ProtectionSpec spec;
  private final String rewriteGroupId;
  private StructType lazySchema;

  public ProtectedTable(
      Table table,
      Long snapshotId,
      String branch,
      boolean refreshEagerly,
      TableProtection protection) {
    this(table, snapshotId, branch, refreshEagerly, protection, null);
  }

  /**
   * @param rewriteGroupId the rewrite file group every scan and write of this table reads and
   *     stages (the table of a group in Iceberg's Spark 4.1 rewrite catalog), or null
   */
  public ProtectedTable(
      Table table,
      Long snapshotId,
      String branch,
      boolean refreshEagerly,
      TableProtection protection,
      String rewriteGroupId) {
    super(table, snapshotId, branch, refreshEagerly);
    this.snapshotId = snapshotId;
    this.branch = branch;
    this.refreshEagerly = refreshEagerly;
    this.protection = protection;
    this.spec = protection.loaded();
    this.rewriteGroupId = rewriteGroupId;
  }

  /**
   * The protection for the principal that loaded this table. Scans and writes do not use it: they
   * resolve their own with {@link #protectionFor(SparkSession)}.
   */
  public ProtectionSpec protection() {
    return spec;
  }

  /** The protection for the principal that {@code session} acts as now, on the current schema. */
  @Override
  public ProtectionSpec protectionFor(SparkSession session) {
    return protection.resolve(session, table().schema());
  }

  @Override
  public String branch() {
    return branch;
  }

  @Override
  public StructType schema() {
    if (lazySchema == null) {
      Set<Integer> ids = spec.protectedFieldIds(table().schema());
      StructType base = super.schema();
      this.lazySchema = (StructType) nullable(base, snapshotSchema(), ids, false);
    }
    return lazySchema;
  }

  // overrides SparkTable's on Iceberg's Spark 3.5 and 4.0 modules (4.1 has no such method)
  public ProtectedTable copyWithSnapshotId(long newSnapshotId) {
    return new ProtectedTable(table(), newSnapshotId, null, refreshEagerly, protection);
  }

  @Override
  public ProtectedTable copyWithBranch(String targetBranch) {
    return new ProtectedTable(table(), null, targetBranch, refreshEagerly, protection);
  }

  @Override
  public ScanBuilder newScanBuilder(CaseInsensitiveStringMap options) {
    return newProtectedScanBuilder(options);
  }

  /**
   * The scan builder of this table for the principal the active session acts as now; row-level
   * operations build their scans from it.
   */
  @Override
  public ProtectedScanBuilder newProtectedScanBuilder(CaseInsensitiveStringMap scanOptions) {
    CaseInsensitiveStringMap options =
        rewriteGroupId == null
            ? scanOptions
            : withOption(scanOptions, IcebergOptions.SCAN_TASK_SET_ID, rewriteGroupId);
    // a rewrite's scan reads the tasks staged for the snapshot its action pinned: no refresh
    if (refreshEagerly && !options.containsKey(IcebergOptions.SCAN_TASK_SET_ID)) {
      table().refresh();
    }
    SparkSession session = SparkSession.active();
    ProtectionSpec current = protectionFor(session);
    ProtectionSpec scanSpec = current.withDestroyedKeys(destroyedKeys(current));
    if (Boolean.parseBoolean(options.get(CatalogOptions.REWRITE_DECRYPT.key()))) {
      scanSpec = scanSpec.forDecryptRead();
    }
    return new ProtectedScanBuilder(
        session,
        table(),
        snapshotId,
        branch,
        snapshotSchema(),
        options,
        scanSpec,
        protection.catalogName(),
        FileAdmission.acceptUnverified(session, protection.catalogName(), options));
  }

  @Override
  public WriteBuilder newWriteBuilder(LogicalWriteInfo info) {
    return newProtectedWriteBuilder(info);
  }

  /** The write builder of this table for the principal the active session acts as now. */
  @Override
  public ProtectedWriteBuilder newProtectedWriteBuilder(LogicalWriteInfo info) {
    checkArgument(
        snapshotId == null, "Cannot write to table at a specific snapshot: %s", snapshotId);
    SparkSession session = SparkSession.active();
    LogicalWriteInfo write =
        rewriteGroupId == null ? info : new RewriteWriteInfo(info, rewriteGroupId);
    return new ProtectedWriteBuilder(
        session, table(), branch, write, schema -> protection.resolve(session, schema));
  }

  /**
   * DELETE, UPDATE and MERGE in the table's write mode, for writers only; what the operation may
   * read and copy is checked when its scan is built ({@link RowLevelAccess}).
   */
  @Override
  public RowLevelOperationBuilder newRowLevelOperationBuilder(RowLevelOperationInfo info) {
    checkArgument(snapshotId == null, "Cannot modify table at a specific snapshot: %s", snapshotId);
    SparkSession session = SparkSession.active();
    RowLevelAccess.requireWriter(protectionFor(session), info.command().name());
    return new ProtectedRowLevelOperationBuilder(session, this, info);
  }

  /**
   * A DELETE that removes whole data files through metadata, for writers, when its condition names
   * no protected column: manifests hold no metrics of protected columns (and plaintext metrics of
   * old files must not decide anything), so such a condition goes through the row-level DELETE,
   * which evaluates it on clear values only.
   */
  @Override
  public boolean canDeleteWhere(Predicate[] predicates) {
    ProtectionSpec current = protectionFor(SparkSession.active());
    RowLevelAccess.requireWriter(current, "DELETE");
    if (comparesProtected(current, predicates)) {
      return false;
    }
    return super.canDeleteWhere(predicates);
  }

  @Override
  public void deleteWhere(Predicate[] predicates) {
    ProtectionSpec current = protectionFor(SparkSession.active());
    RowLevelAccess.requireWriter(current, "DELETE");
    if (comparesProtected(current, predicates)) {
      throw new ProtectorException(
          String.format(
              "Cannot delete from protected table %s through metadata with a condition on a"
                  + " protected column: run DELETE, whose condition is evaluated on clear values",
              current.tableName()));
    }
    super.deleteWhere(predicates);
  }

  private boolean comparesProtected(ProtectionSpec current, Predicate[] predicates) {
    Schema schema = table().schema();
    return RowLevelAccess.touchesProtected(
        current,
        schema,
        ProtectedFilters.references(
            predicates, schema, SparkUtil.caseSensitive(SparkSession.active())));
  }

  /**
   * Keys of readable columns (and the footer key) that were destroyed. Checked on the driver
   * because executors may still hold unwrapped keys in parquet's key cache. Only the local key
   * service is asked: a remote server reports a destroyed key on unwrap.
   */
  private static Set<String> destroyedKeys(ProtectionSpec spec) {
    if (!spec.kms().describesKeysToAnyone()) {
      return Set.of();
    }
    Set<String> keyIds = new java.util.TreeSet<>();
    keyIds.add(spec.footerKeyId());
    spec.columns().values().stream()
        .filter(ColumnProtection::readable)
        .forEach(c -> keyIds.add(c.keyId()));
    KeyService keys = KeyServiceRegistry.obtain(spec.keyScope(), spec.policy());
    Set<String> destroyed = new java.util.TreeSet<>();
    for (String keyId : keyIds) {
      try {
        if (keys.describeKey(keyId).destroyed()) {
          destroyed.add(keyId);
        }
      } catch (KeyDestroyedException e) {
        destroyed.add(keyId);
      } catch (KeyServiceException e) {
        // reported by the read itself, with the file that needs the key
      }
    }
    return destroyed;
  }

  /**
   * Equal only for the same principal's view: Spark's cache matches plans by their tables, and data
   * cached for one principal must never answer another's query.
   */
  @Override
  public boolean equals(Object other) {
    return super.equals(other) && spec.keyScope().equals(((ProtectedTable) other).spec.keyScope());
  }

  @Override
  public int hashCode() {
    return 31 * super.hashCode() + spec.keyScope().hashCode();
  }

  private ProtectorException refusal(String operation) {
    return new ProtectorException(
        String.format(
            "%s is not supported on protected table %s: it would rewrite protected columns"
                + " outside the protected write path",
            operation, spec.tableName()));
  }

  private static CaseInsensitiveStringMap withOption(
      CaseInsensitiveStringMap options, String key, String value) {
    java.util.Map<String, String> merged = new java.util.HashMap<>(options.asCaseSensitiveMap());
    merged.put(key, value);
    return new CaseInsensitiveStringMap(merged);
  }

  private Schema snapshotSchema() {
    if (branch != null) {
      return SnapshotUtil.schemaFor(table(), branch);
    }
    return SnapshotUtil.schemaFor(table(), snapshotId, null);
  }

  /** Marks every protected field (and what lies below it) nullable: denied readers get NULL. */
  private static DataType nullable(DataType type, Schema schema, Set<Integer> ids, boolean force) {
    Set<String> names = new java.util.HashSet<>();
    for (int id : ids) {
      String name = schema.findColumnName(id);
      if (name != null) {
        names.add(name);
      }
    }
    return nullable(type, "", names, force);
  }

  private static DataType nullable(DataType type, String prefix, Set<String> names, boolean force) {
    if (type instanceof StructType) {
      StructType struct = (StructType) type;
      StructField[] fields = new StructField[struct.fields().length];
      for (int i = 0; i < fields.length; i++) {
        StructField f = struct.fields()[i];
        String path = prefix + f.name();
        boolean protectedField = force || names.contains(path);
        fields[i] =
            new StructField(
                f.name(),
                nullable(f.dataType(), path + ".", names, protectedField),
                f.nullable() || protectedField,
                f.metadata());
      }
      return new StructType(fields);
    } else if (type instanceof ArrayType && force) {
      ArrayType array = (ArrayType) type;
      return new ArrayType(nullable(array.elementType(), prefix, names, true), true);
    } else if (type instanceof MapType && force) {
      MapType map = (MapType) type;
      return new MapType(map.keyType(), nullable(map.valueType(), prefix, names, true), true);
    }
    return type;
  }
}
