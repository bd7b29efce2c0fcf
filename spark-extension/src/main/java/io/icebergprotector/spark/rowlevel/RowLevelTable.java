/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.spark.rowlevel;

import io.icebergprotector.spark.core.ProtectionSpec;
import io.icebergprotector.spark.read.ProtectedScanBuilder;
import io.icebergprotector.spark.write.ProtectedWriteBuilder;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.connector.write.LogicalWriteInfo;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;

/**
 * The protected table a row-level operation runs on: what the operation's scan and writes need. The
 * table class implements it, so that this package does not depend on the one above it.
 */
public interface RowLevelTable {

  /** The Iceberg table. */
  org.apache.iceberg.Table table();

  /** The branch the table object reads and writes, or null for the main branch. */
  String branch();

  /** The table's protection for the principal that {@code session} acts as now. */
  ProtectionSpec protectionFor(SparkSession session);

  ProtectedScanBuilder newProtectedScanBuilder(CaseInsensitiveStringMap options);

  ProtectedWriteBuilder newProtectedWriteBuilder(LogicalWriteInfo info);
}
