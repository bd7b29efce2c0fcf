/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.spark;

import io.icebergprotector.spark.procedures.SparkProcedures;
import java.util.Map;
import org.apache.iceberg.spark.SparkSessionCatalog;
import org.apache.spark.sql.catalyst.analysis.NoSuchNamespaceException;
import org.apache.spark.sql.catalyst.analysis.NoSuchTableException;
import org.apache.spark.sql.catalyst.analysis.TableAlreadyExistsException;
import org.apache.spark.sql.connector.catalog.FunctionCatalog;
import org.apache.spark.sql.connector.catalog.Identifier;
import org.apache.spark.sql.connector.catalog.StagedTable;
import org.apache.spark.sql.connector.catalog.SupportsNamespaces;
import org.apache.spark.sql.connector.catalog.Table;
import org.apache.spark.sql.connector.catalog.TableCatalog;
import org.apache.spark.sql.connector.catalog.TableInfo;
import org.apache.spark.sql.connector.catalog.ViewCatalog;
import org.apache.spark.sql.connector.catalog.procedures.UnboundProcedure;
import org.apache.spark.sql.connector.expressions.Transform;
import org.apache.spark.sql.types.StructType;

/**
 * Spark 4.1 version (as 4.0, and routing the TableInfo forms of create and stage): the procedures
 * of {@link ProtectingSessionCatalog} (Iceberg's, guarded), through Spark's own {@code
 * ProcedureCatalog}; see {@link CatalogWithProcedures}.
 */
abstract class SessionCatalogWithProcedures<
        T extends TableCatalog & FunctionCatalog & SupportsNamespaces & ViewCatalog>
    extends SparkSessionCatalog<T> {
  @Override
  public UnboundProcedure loadProcedure(Identifier ident) {
    return SparkProcedures.guard(ident.name(), super.loadProcedure(ident), this);
  }

  // Spark 4.1 creates and stages tables through the TableInfo forms, which Iceberg's catalog
  // implements apart from the forms the protecting catalog checks: route them to those.

  @Override
  public Table createTable(Identifier ident, TableInfo info)
      throws TableAlreadyExistsException, NoSuchNamespaceException {
    return createTable(ident, info.schema(), info.partitions(), info.properties());
  }

  @Override
  public StagedTable stageCreate(Identifier ident, TableInfo info)
      throws TableAlreadyExistsException, NoSuchNamespaceException {
    return stageCreate(ident, info.schema(), info.partitions(), info.properties());
  }

  @Override
  public StagedTable stageReplace(Identifier ident, TableInfo info)
      throws NoSuchNamespaceException, NoSuchTableException {
    return stageReplace(ident, info.schema(), info.partitions(), info.properties());
  }

  @Override
  public StagedTable stageCreateOrReplace(Identifier ident, TableInfo info)
      throws NoSuchNamespaceException {
    return stageCreateOrReplace(ident, info.schema(), info.partitions(), info.properties());
  }

  // ...and the forms the protecting catalog checks go on to Iceberg's TableInfo forms, never back
  // through the ones above.

  @Override
  public Table createTable(
      Identifier ident, StructType schema, Transform[] partitions, Map<String, String> properties)
      throws TableAlreadyExistsException, NoSuchNamespaceException {
    return super.createTable(
        ident, CatalogWithProcedures.tableInfo(schema, partitions, properties));
  }

  @Override
  public StagedTable stageCreate(
      Identifier ident, StructType schema, Transform[] partitions, Map<String, String> properties)
      throws TableAlreadyExistsException, NoSuchNamespaceException {
    return super.stageCreate(
        ident, CatalogWithProcedures.tableInfo(schema, partitions, properties));
  }

  @Override
  public StagedTable stageReplace(
      Identifier ident, StructType schema, Transform[] partitions, Map<String, String> properties)
      throws NoSuchNamespaceException, NoSuchTableException {
    return super.stageReplace(
        ident, CatalogWithProcedures.tableInfo(schema, partitions, properties));
  }

  @Override
  public StagedTable stageCreateOrReplace(
      Identifier ident, StructType schema, Transform[] partitions, Map<String, String> properties)
      throws NoSuchNamespaceException {
    return super.stageCreateOrReplace(
        ident, CatalogWithProcedures.tableInfo(schema, partitions, properties));
  }
}
