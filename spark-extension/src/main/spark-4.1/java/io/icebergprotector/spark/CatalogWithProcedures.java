/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.spark;

import io.icebergprotector.spark.procedures.CatalogProcedure;
import io.icebergprotector.spark.procedures.SparkProcedures;
import java.util.Map;
import org.apache.iceberg.spark.SparkCatalog;
import org.apache.spark.sql.catalyst.analysis.NoSuchTableException;
import org.apache.spark.sql.catalyst.analysis.TableAlreadyExistsException;
import org.apache.spark.sql.connector.catalog.CatalogV2Util;
import org.apache.spark.sql.connector.catalog.Identifier;
import org.apache.spark.sql.connector.catalog.StagedTable;
import org.apache.spark.sql.connector.catalog.Table;
import org.apache.spark.sql.connector.catalog.TableInfo;
import org.apache.spark.sql.connector.catalog.procedures.UnboundProcedure;
import org.apache.spark.sql.connector.expressions.Transform;
import org.apache.spark.sql.types.StructType;

/**
 * Spark 4.1 version (as 4.0, and routing the TableInfo forms of create and stage): the procedures
 * of {@link ProtectingSparkCatalog}, through Spark's own {@code ProcedureCatalog} (Spark 4.0 parses
 * and runs {@code CALL}). The Spark 3.5 version goes through Iceberg's procedure API; the method's
 * return type is all that differs, so ProtectingSparkCatalog (shared) extends this class.
 */
abstract class CatalogWithProcedures extends SparkCatalog {
  /** Our own procedure {@code ident}, or null when it names none. */
  abstract CatalogProcedure ownProcedure(Identifier ident);

  @Override
  public UnboundProcedure loadProcedure(Identifier ident) {
    CatalogProcedure own = ownProcedure(ident);
    if (own != null) {
      return SparkProcedures.own(own);
    }
    return SparkProcedures.guard(ident.name(), super.loadProcedure(ident), this);
  }

  // Spark 4.1 creates and stages tables through the TableInfo forms, which Iceberg's catalog
  // implements apart from the forms the protecting catalog checks: route them to those.

  @Override
  public Table createTable(Identifier ident, TableInfo info) throws TableAlreadyExistsException {
    return createTable(ident, info.schema(), info.partitions(), info.properties());
  }

  @Override
  public StagedTable stageCreate(Identifier ident, TableInfo info)
      throws TableAlreadyExistsException {
    return stageCreate(ident, info.schema(), info.partitions(), info.properties());
  }

  @Override
  public StagedTable stageReplace(Identifier ident, TableInfo info) throws NoSuchTableException {
    return stageReplace(ident, info.schema(), info.partitions(), info.properties());
  }

  @Override
  public StagedTable stageCreateOrReplace(Identifier ident, TableInfo info) {
    return stageCreateOrReplace(ident, info.schema(), info.partitions(), info.properties());
  }

  // ...and the forms the protecting catalog checks go on to Iceberg's TableInfo forms, never back
  // through the ones above.

  @Override
  public Table createTable(
      Identifier ident, StructType schema, Transform[] partitions, Map<String, String> properties)
      throws TableAlreadyExistsException {
    return super.createTable(ident, tableInfo(schema, partitions, properties));
  }

  @Override
  public StagedTable stageCreate(
      Identifier ident, StructType schema, Transform[] partitions, Map<String, String> properties)
      throws TableAlreadyExistsException {
    return super.stageCreate(ident, tableInfo(schema, partitions, properties));
  }

  @Override
  public StagedTable stageReplace(
      Identifier ident, StructType schema, Transform[] partitions, Map<String, String> properties)
      throws NoSuchTableException {
    return super.stageReplace(ident, tableInfo(schema, partitions, properties));
  }

  @Override
  public StagedTable stageCreateOrReplace(
      Identifier ident, StructType schema, Transform[] partitions, Map<String, String> properties) {
    return super.stageCreateOrReplace(ident, tableInfo(schema, partitions, properties));
  }

  /** Spark's description of a table to create, as Spark 4.1 passes it to the TableInfo forms. */
  static TableInfo tableInfo(
      StructType schema, Transform[] partitions, Map<String, String> properties) {
    return new TableInfo.Builder()
        .withColumns(CatalogV2Util.structTypeToV2Columns(schema))
        .withPartitions(partitions)
        .withProperties(properties)
        .build();
  }
}
