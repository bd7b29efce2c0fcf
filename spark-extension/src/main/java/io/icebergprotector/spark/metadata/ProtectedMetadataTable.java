/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.spark.metadata;

import io.icebergprotector.policy.TablePolicy;
import io.icebergprotector.spark.compat.IcebergConfs;
import io.icebergprotector.spark.compat.PinnedSparkTable;
import io.icebergprotector.spark.core.ProtectorException;
import io.icebergprotector.spark.core.RecordedColumns;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import org.apache.iceberg.BaseMetadataTable;
import org.apache.iceberg.Table;
import org.apache.iceberg.spark.source.SparkTable;
import org.apache.spark.sql.connector.catalog.TableCapability;
import org.apache.spark.sql.connector.expressions.filter.Predicate;
import org.apache.spark.sql.connector.read.ScanBuilder;
import org.apache.spark.sql.connector.write.LogicalWriteInfo;
import org.apache.spark.sql.connector.write.RowLevelOperationBuilder;
import org.apache.spark.sql.connector.write.RowLevelOperationInfo;
import org.apache.spark.sql.connector.write.WriteBuilder;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;

/**
 * A metadata table ({@code files}, {@code entries}, {@code all_data_files}, ...) of a protected
 * table. It reads what Iceberg's metadata table reads, but its rows never show metrics or bounds of
 * a protected column (see {@link MetricsRedaction} and {@link HiddenColumns}), whatever the file's
 * age, the snapshot or the principal: metadata is not where clear values are served. It is a {@link
 * SparkTable}, so Iceberg's time travel ({@code VERSION AS OF}, {@code TIMESTAMP AS OF}) keeps
 * working and keeps the protection. Writes and deletes through it are refused.
 */
public final class ProtectedMetadataTable extends PinnedSparkTable {
  private final SparkTable delegate;
  private final TablePolicy policy;

  private ProtectedMetadataTable(SparkTable delegate, TablePolicy policy) {
    super(delegate.table(), IcebergConfs.pinnedSnapshotId(delegate), delegate.branch(), false);
    this.delegate = delegate;
    this.policy = policy;
  }

  /**
   * Protects a metadata table of a table the policy lists, or whose properties record protected
   * columns; returns other metadata tables unchanged.
   *
   * @param table Iceberg's Spark table over a {@link BaseMetadataTable}
   * @param policy the data table's policy entry
   */
  public static SparkTable protect(SparkTable table, Optional<TablePolicy> policy) {
    if (table instanceof ProtectedMetadataTable) {
      return table;
    }
    Table data = dataTable(table);
    if (policy.isEmpty() && RecordedColumns.of(data).isEmpty()) {
      return table;
    }
    return new ProtectedMetadataTable(table, policy.orElse(null));
  }

  private static Table dataTable(SparkTable table) {
    return ((BaseMetadataTable) table.table()).table();
  }

  @Override
  public Long snapshotId() {
    return delegate.snapshotId();
  }

  @Override
  public String branch() {
    return delegate.branch();
  }

  // overrides SparkTable's on Iceberg's Spark 3.5 and 4.0 modules (4.1 has no such method)
  public SparkTable copyWithSnapshotId(long newSnapshotId) {
    return new ProtectedMetadataTable(IcebergConfs.atSnapshot(delegate, newSnapshotId), policy);
  }

  @Override
  public SparkTable copyWithBranch(String targetBranch) {
    return new ProtectedMetadataTable(delegate.copyWithBranch(targetBranch), policy);
  }

  @Override
  public StructType schema() {
    return delegate.schema();
  }

  @Override
  public Set<TableCapability> capabilities() {
    return Set.of(TableCapability.BATCH_READ);
  }

  @Override
  public ScanBuilder newScanBuilder(CaseInsensitiveStringMap options) {
    // Iceberg's builder refreshes the table first (when the catalog does not cache), so the
    // hidden columns are those of the metadata the scan reads.
    ScanBuilder scan = delegate.newScanBuilder(options);
    HiddenColumns hidden = HiddenColumns.of(dataTable(delegate), policy);
    return new ProtectedMetadataScanBuilder(scan, table().schema().asStruct(), hidden);
  }

  @Override
  public WriteBuilder newWriteBuilder(LogicalWriteInfo info) {
    throw refusal("Writing to");
  }

  @Override
  public RowLevelOperationBuilder newRowLevelOperationBuilder(RowLevelOperationInfo info) {
    throw refusal(info.command().name() + " on");
  }

  @Override
  public boolean canDeleteWhere(Predicate[] predicates) {
    throw refusal("DELETE on");
  }

  @Override
  public void deleteWhere(Predicate[] predicates) {
    throw refusal("DELETE on");
  }

  private ProtectorException refusal(String operation) {
    return new ProtectorException(
        String.format(
            "%s metadata table %s of protected table %s is not supported: its metadata tables"
                + " are read-only",
            operation, name(), dataTable(delegate).name()));
  }

  @Override
  public boolean equals(Object other) {
    return other instanceof ProtectedMetadataTable
        && delegate.equals(((ProtectedMetadataTable) other).delegate);
  }

  @Override
  public int hashCode() {
    return Objects.hash(ProtectedMetadataTable.class, delegate);
  }
}
