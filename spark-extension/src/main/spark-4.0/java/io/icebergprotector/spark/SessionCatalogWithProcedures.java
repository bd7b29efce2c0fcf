/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.spark;

import io.icebergprotector.spark.procedures.SparkProcedures;
import org.apache.iceberg.spark.SparkSessionCatalog;
import org.apache.spark.sql.connector.catalog.FunctionCatalog;
import org.apache.spark.sql.connector.catalog.Identifier;
import org.apache.spark.sql.connector.catalog.SupportsNamespaces;
import org.apache.spark.sql.connector.catalog.TableCatalog;
import org.apache.spark.sql.connector.catalog.ViewCatalog;
import org.apache.spark.sql.connector.catalog.procedures.UnboundProcedure;

/**
 * Spark 4.0 version: the procedures of {@link ProtectingSessionCatalog} (Iceberg's, guarded),
 * through Spark's own {@code ProcedureCatalog}; see {@link CatalogWithProcedures}.
 */
abstract class SessionCatalogWithProcedures<
        T extends TableCatalog & FunctionCatalog & SupportsNamespaces & ViewCatalog>
    extends SparkSessionCatalog<T> {
  @Override
  public UnboundProcedure loadProcedure(Identifier ident) {
    return SparkProcedures.guard(ident.name(), super.loadProcedure(ident), this);
  }
}
