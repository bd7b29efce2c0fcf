/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.spark.rowlevel;

import io.icebergprotector.spark.read.ProtectedScan;
import io.icebergprotector.spark.read.ProtectedScanBuilder;
import org.apache.iceberg.IsolationLevel;
import org.apache.iceberg.RowLevelOperationMode;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.connector.read.ScanBuilder;
import org.apache.spark.sql.connector.write.RowLevelOperation;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;

/**
 * What both write modes share: the operation's scan is a protected scan for the principal running
 * it, checked against {@link RowLevelAccess} when Spark builds it (before any task runs), and kept
 * for the write, whose commit validates against it.
 *
 * @param <S> the scan of the write mode
 */
abstract class BaseRowLevelOperation<S extends ProtectedScan> implements RowLevelOperation {
  private final SparkSession spark;
  private final RowLevelTable table;
  private final Command command;
  private final IsolationLevel isolationLevel;
  private final RowLevelOperationMode mode;

  private ScanBuilder lazyScanBuilder;
  private S configuredScan;

  BaseRowLevelOperation(
      SparkSession spark,
      RowLevelTable table,
      Command command,
      IsolationLevel isolationLevel,
      RowLevelOperationMode mode) {
    this.spark = spark;
    this.table = table;
    this.command = command;
    this.isolationLevel = isolationLevel;
    this.mode = mode;
  }

  /** Builds the scan of this write mode, once its reads are allowed. */
  abstract S build(ProtectedScanBuilder builder);

  @Override
  public Command command() {
    return command;
  }

  @Override
  public String description() {
    return RowLevelAccess.describe(command, mode);
  }

  @Override
  public ScanBuilder newScanBuilder(CaseInsensitiveStringMap options) {
    if (lazyScanBuilder == null) {
      lazyScanBuilder =
          new RowLevelScanBuilder(table.newProtectedScanBuilder(options), this::checkAndBuild);
    }
    return lazyScanBuilder;
  }

  private S checkAndBuild(ProtectedScanBuilder builder) {
    RowLevelAccess.checkScan(
        builder.spec(),
        command,
        mode,
        builder.scannedSchema(),
        builder.projectedSchema(),
        builder.conditionFieldIds());
    S scan = build(builder);
    this.configuredScan = scan;
    return scan;
  }

  SparkSession spark() {
    return spark;
  }

  RowLevelTable table() {
    return table;
  }

  IsolationLevel isolationLevel() {
    return isolationLevel;
  }

  /** The scan Spark built, or null when the optimizer replaced it with an empty relation. */
  S configuredScan() {
    return configuredScan;
  }
}
