/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.spark.rowlevel;

import io.icebergprotector.spark.read.ProtectedScan;
import io.icebergprotector.spark.read.ProtectedScanBuilder;
import java.util.ArrayList;
import java.util.List;
import org.apache.iceberg.IsolationLevel;
import org.apache.iceberg.MetadataColumns;
import org.apache.iceberg.RowLevelOperationMode;
import org.apache.iceberg.TableUtil;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.connector.expressions.Expressions;
import org.apache.spark.sql.connector.expressions.NamedReference;
import org.apache.spark.sql.connector.write.DeltaWriteBuilder;
import org.apache.spark.sql.connector.write.LogicalWriteInfo;
import org.apache.spark.sql.connector.write.RowLevelOperationInfo;
import org.apache.spark.sql.connector.write.SupportsDelta;

/**
 * A merge-on-read DELETE, UPDATE or MERGE on a protected table (Iceberg 1.11.0's {@code
 * SparkPositionDeltaOperation}): deleted and changed rows are recorded as position deletes
 * (deletion vectors on format-version 3 tables), changed and inserted rows are written through the
 * protected appender. A DELETE reads only the columns its condition names, so with a condition on
 * unprotected columns it reads no protected column and needs no column key.
 */
final class ProtectedPositionDeltaOperation extends BaseRowLevelOperation<ProtectedScan>
    implements SupportsDelta {
  private DeltaWriteBuilder lazyWriteBuilder;

  ProtectedPositionDeltaOperation(
      SparkSession spark,
      RowLevelTable table,
      RowLevelOperationInfo info,
      IsolationLevel isolationLevel) {
    super(spark, table, info.command(), isolationLevel, RowLevelOperationMode.MERGE_ON_READ);
  }

  @Override
  ProtectedScan build(ProtectedScanBuilder builder) {
    return builder.buildMergeOnReadScan();
  }

  @Override
  public DeltaWriteBuilder newWriteBuilder(LogicalWriteInfo info) {
    if (lazyWriteBuilder == null) {
      // the scan is null when the optimizer replaced it with an empty relation
      lazyWriteBuilder =
          new ProtectedPositionDeltaWriteBuilder(
              spark(), table(), command(), configuredScan(), isolationLevel(), info);
    }
    return lazyWriteBuilder;
  }

  @Override
  public NamedReference[] requiredMetadataAttributes() {
    List<NamedReference> attributes = new ArrayList<>();
    attributes.add(Expressions.column(MetadataColumns.SPEC_ID.name()));
    attributes.add(Expressions.column(MetadataColumns.PARTITION_COLUMN_NAME));
    if (TableUtil.supportsRowLineage(table().table())) {
      attributes.add(Expressions.column(MetadataColumns.ROW_ID.name()));
      attributes.add(Expressions.column(MetadataColumns.LAST_UPDATED_SEQUENCE_NUMBER.name()));
    }
    return attributes.toArray(new NamedReference[0]);
  }

  @Override
  public NamedReference[] rowId() {
    return new NamedReference[] {
      Expressions.column(MetadataColumns.FILE_PATH.name()),
      Expressions.column(MetadataColumns.ROW_POSITION.name())
    };
  }

  @Override
  public boolean representUpdateAsDeleteAndInsert() {
    return true;
  }
}
