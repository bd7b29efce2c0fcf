/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.spark.table;

import io.icebergprotector.spark.core.ProtectionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.spark.sql.SparkSession;

/**
 * How a protected table resolves its protection: through the protecting catalog of the session that
 * runs the operation, for the principal that session acts as at that moment. A table object (and
 * any plan, view or DataFrame holding it) is therefore never bound to the principal that loaded it:
 * a scan built later, or in another session, gets its own principal's view and keys.
 */
public final class TableProtection {
  private final String catalogName;
  private final String policyTableName;
  private final Table table;
  private final ProtectionSpec loaded;

  public TableProtection(
      String catalogName, String policyTableName, Table table, ProtectionSpec loaded) {
    this.catalogName = catalogName;
    this.policyTableName = policyTableName;
    this.table = table;
    this.loaded = loaded;
  }

  /** The protection for the principal that loaded the table (schema, DDL checks, equality). */
  ProtectionSpec loaded() {
    return loaded;
  }

  String catalogName() {
    return catalogName;
  }

  /** The protection of {@code schema} for the principal that {@code session} acts as now. */
  ProtectionSpec resolve(SparkSession session, Schema schema) {
    ProtectingCatalog catalog = ProtectingCatalog.of(session, catalogName, table.name());
    return catalog.resolveProtection(session, policyTableName, table, schema);
  }
}
