/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.spark.rowlevel;

import java.util.Map;
import org.apache.iceberg.IsolationLevel;
import org.apache.iceberg.RowLevelOperationMode;
import org.apache.iceberg.TableProperties;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.connector.write.RowLevelOperation;
import org.apache.spark.sql.connector.write.RowLevelOperation.Command;
import org.apache.spark.sql.connector.write.RowLevelOperationBuilder;
import org.apache.spark.sql.connector.write.RowLevelOperationInfo;

/**
 * Chooses how a DELETE, UPDATE or MERGE on a protected table runs, from the same table properties
 * as Iceberg's {@code SparkRowLevelOperationBuilder} (1.11.0): {@code write.delete.mode}, {@code
 * write.update.mode}, {@code write.merge.mode} (copy-on-write or merge-on-read) and the matching
 * {@code write.*.isolation-level} (serializable or snapshot).
 */
public final class ProtectedRowLevelOperationBuilder implements RowLevelOperationBuilder {
  private final SparkSession spark;
  private final RowLevelTable table;
  private final RowLevelOperationInfo info;
  private final RowLevelOperationMode mode;
  private final IsolationLevel isolationLevel;

  public ProtectedRowLevelOperationBuilder(
      SparkSession spark, RowLevelTable table, RowLevelOperationInfo info) {
    this.spark = spark;
    this.table = table;
    this.info = info;
    Map<String, String> properties = table.table().properties();
    this.mode = mode(properties, info.command());
    this.isolationLevel = isolationLevel(properties, info.command());
  }

  @Override
  public RowLevelOperation build() {
    switch (mode) {
      case COPY_ON_WRITE:
        return new ProtectedCopyOnWriteOperation(spark, table, info, isolationLevel);
      case MERGE_ON_READ:
        return new ProtectedPositionDeltaOperation(spark, table, info, isolationLevel);
      default:
        throw new IllegalArgumentException("Unsupported operation mode: " + mode);
    }
  }

  static RowLevelOperationMode mode(Map<String, String> properties, Command command) {
    switch (command) {
      case DELETE:
        return RowLevelOperationMode.fromName(
            properties.getOrDefault(
                TableProperties.DELETE_MODE, TableProperties.DELETE_MODE_DEFAULT));
      case UPDATE:
        return RowLevelOperationMode.fromName(
            properties.getOrDefault(
                TableProperties.UPDATE_MODE, TableProperties.UPDATE_MODE_DEFAULT));
      case MERGE:
        return RowLevelOperationMode.fromName(
            properties.getOrDefault(
                TableProperties.MERGE_MODE, TableProperties.MERGE_MODE_DEFAULT));
      default:
        throw new IllegalArgumentException("Unsupported command: " + command);
    }
  }

  static IsolationLevel isolationLevel(Map<String, String> properties, Command command) {
    switch (command) {
      case DELETE:
        return IsolationLevel.fromName(
            properties.getOrDefault(
                TableProperties.DELETE_ISOLATION_LEVEL,
                TableProperties.DELETE_ISOLATION_LEVEL_DEFAULT));
      case UPDATE:
        return IsolationLevel.fromName(
            properties.getOrDefault(
                TableProperties.UPDATE_ISOLATION_LEVEL,
                TableProperties.UPDATE_ISOLATION_LEVEL_DEFAULT));
      case MERGE:
        return IsolationLevel.fromName(
            properties.getOrDefault(
                TableProperties.MERGE_ISOLATION_LEVEL,
                TableProperties.MERGE_ISOLATION_LEVEL_DEFAULT));
      default:
        throw new IllegalArgumentException("Unsupported command: " + command);
    }
  }
}
