/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.spark;

import io.icebergprotector.spark.procedures.CatalogProcedure;
import io.icebergprotector.spark.procedures.SparkProcedures;
import org.apache.iceberg.spark.SparkCatalog;
import org.apache.spark.sql.catalyst.analysis.NoSuchProcedureException;
import org.apache.spark.sql.connector.catalog.Identifier;
import org.apache.spark.sql.connector.iceberg.catalog.Procedure;

/**
 * Spark 3.5 version: the procedures of {@link ProtectingSparkCatalog}, through Iceberg's procedure
 * API. The Spark 4.0 version implements Spark's own {@code ProcedureCatalog}; the method's return
 * type is all that differs, so ProtectingSparkCatalog (shared) extends this class.
 */
abstract class CatalogWithProcedures extends SparkCatalog {
  /** Our own procedure {@code ident}, or null when it names none. */
  abstract CatalogProcedure ownProcedure(Identifier ident);

  @Override
  public Procedure loadProcedure(Identifier ident) throws NoSuchProcedureException {
    CatalogProcedure own = ownProcedure(ident);
    if (own != null) {
      return SparkProcedures.own(own);
    }
    return SparkProcedures.guard(ident.name(), super.loadProcedure(ident), this);
  }
}
