/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.spark;

import io.icebergprotector.spark.procedures.SparkProcedures;
import org.apache.iceberg.spark.SparkSessionCatalog;
import org.apache.spark.sql.catalyst.analysis.NoSuchProcedureException;
import org.apache.spark.sql.connector.catalog.FunctionCatalog;
import org.apache.spark.sql.connector.catalog.Identifier;
import org.apache.spark.sql.connector.catalog.SupportsNamespaces;
import org.apache.spark.sql.connector.catalog.TableCatalog;
import org.apache.spark.sql.connector.catalog.ViewCatalog;
import org.apache.spark.sql.connector.iceberg.catalog.Procedure;

/**
 * Spark 3.5 version: the procedures of {@link ProtectingSessionCatalog} (Iceberg's, guarded),
 * through Iceberg's procedure API; see {@link CatalogWithProcedures}.
 */
abstract class SessionCatalogWithProcedures<
        T extends TableCatalog & FunctionCatalog & SupportsNamespaces & ViewCatalog>
    extends SparkSessionCatalog<T> {
  @Override
  public Procedure loadProcedure(Identifier ident) throws NoSuchProcedureException {
    return SparkProcedures.guard(ident.name(), super.loadProcedure(ident), this);
  }
}
