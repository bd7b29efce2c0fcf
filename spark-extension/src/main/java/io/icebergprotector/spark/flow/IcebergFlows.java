/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.spark.flow;

import io.icebergprotector.policy.TablePolicy;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.connector.catalog.CatalogPlugin;
import org.apache.spark.sql.connector.catalog.Table;
import org.apache.spark.sql.connector.read.InputPartition;
import org.apache.spark.sql.execution.datasources.v2.DataSourceV2Relation;

/**
 * What the data-flow check asks of Iceberg tables. The implementation ({@link IcebergTables}) names
 * Iceberg types; it is loaded by name, and only when Iceberg is on the classpath, so that the check
 * (which plain Parquet paths use too) links no Iceberg class.
 */
interface IcebergFlows {
  /** The implementation, or null without Iceberg on the classpath. */
  IcebergFlows INSTANCE = load();

  /** The flows of a protected table's columns, or null for any other relation. */
  List<Set<Flow>> sourceFlows(DataSourceV2Relation relation, SparkSession session);

  /**
   * The protected columns a partition of a protected scan reads, as its principal reads them, or
   * null for any other partition.
   */
  Set<Flow> partitionFlows(InputPartition partition);

  /** Where a write into {@code table} stores protected values, or null if it is not protected. */
  WriteDestination destination(Table table, String name, SparkSession session);

  /** The policy entry a CTAS/RTAS target of a protecting catalog will get. */
  Optional<TablePolicy> createdTableEntry(
      CatalogPlugin catalog, String tableName, scala.Option<String> provider);

  private static IcebergFlows load() {
    ClassLoader loader = IcebergFlows.class.getClassLoader();
    try {
      Class.forName("org.apache.iceberg.spark.source.SparkTable", false, loader);
    } catch (ClassNotFoundException | LinkageError e) {
      return null;
    }
    try {
      return (IcebergFlows)
          Class.forName("io.icebergprotector.spark.flow.IcebergTables", true, loader)
              .getDeclaredConstructor()
              .newInstance();
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException("Cannot load the Iceberg part of the data-flow check", e);
    }
  }
}
