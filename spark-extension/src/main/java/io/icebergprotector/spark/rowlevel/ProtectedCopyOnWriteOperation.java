/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.spark.rowlevel;

import io.icebergprotector.spark.read.ProtectedCopyOnWriteScan;
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
import org.apache.spark.sql.connector.write.LogicalWriteInfo;
import org.apache.spark.sql.connector.write.RowLevelOperationInfo;
import org.apache.spark.sql.connector.write.WriteBuilder;

/**
 * A copy-on-write DELETE, UPDATE or MERGE on a protected table (Iceberg 1.11.0's {@code
 * SparkCopyOnWriteOperation}): the scan reads whole data files through the protected read path, the
 * rows that stay (and the changed ones) are written again through the protected appender, and the
 * commit replaces the files read. The principal must read every protected column in clear, since
 * each of them is copied ({@link RowLevelAccess}).
 */
final class ProtectedCopyOnWriteOperation extends BaseRowLevelOperation<ProtectedCopyOnWriteScan> {
  private WriteBuilder lazyWriteBuilder;

  ProtectedCopyOnWriteOperation(
      SparkSession spark,
      RowLevelTable table,
      RowLevelOperationInfo info,
      IsolationLevel isolationLevel) {
    super(spark, table, info.command(), isolationLevel, RowLevelOperationMode.COPY_ON_WRITE);
  }

  @Override
  ProtectedCopyOnWriteScan build(ProtectedScanBuilder builder) {
    return builder.buildCopyOnWriteScan();
  }

  @Override
  public WriteBuilder newWriteBuilder(LogicalWriteInfo info) {
    if (lazyWriteBuilder == null) {
      lazyWriteBuilder =
          table()
              .newProtectedWriteBuilder(info)
              .overwriteFiles(configuredScan(), command(), isolationLevel());
    }
    return lazyWriteBuilder;
  }

  @Override
  public NamedReference[] requiredMetadataAttributes() {
    List<NamedReference> attributes = new ArrayList<>();
    attributes.add(Expressions.column(MetadataColumns.FILE_PATH.name()));
    if (command() == Command.DELETE || command() == Command.UPDATE) {
      attributes.add(Expressions.column(MetadataColumns.ROW_POSITION.name()));
    }
    if (TableUtil.supportsRowLineage(table().table())) {
      attributes.add(Expressions.column(MetadataColumns.ROW_ID.name()));
      attributes.add(Expressions.column(MetadataColumns.LAST_UPDATED_SEQUENCE_NUMBER.name()));
    }
    return attributes.toArray(new NamedReference[0]);
  }
}
