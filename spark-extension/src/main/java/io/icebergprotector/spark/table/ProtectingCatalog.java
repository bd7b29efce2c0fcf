/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.spark.table;

import io.icebergprotector.policy.Principal;
import io.icebergprotector.policy.TablePolicy;
import io.icebergprotector.spark.core.ProtectionSpec;
import io.icebergprotector.spark.core.ProtectorContext;
import io.icebergprotector.spark.core.ProtectorException;
import java.util.Optional;
import org.apache.iceberg.Schema;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.connector.catalog.CatalogPlugin;
import org.apache.spark.sql.connector.catalog.Table;
import org.apache.spark.sql.connector.catalog.TableCatalog;

/**
 * What the layers below the catalog (tables, row-level operations, maintenance, actions, the
 * data-flow check) need from a protecting catalog. The catalog classes users configure implement
 * it; depending on this interface instead of them keeps the package graph acyclic.
 */
public interface ProtectingCatalog extends TableCatalog {

  /** The name the session knows this catalog by. */
  String catalogName();

  ProtectorContext protectorContext();

  /** The policy entry of a table identifier such as {@code db.t} or {@code <catalog>.db.t}. */
  Optional<TablePolicy> policyFor(String tableName);

  /** The principal this catalog acts for in the active session now. */
  Principal principal();

  /** The principal this catalog acts for in {@code session} now. */
  Principal principal(SparkSession session);

  /**
   * The protection of {@code table} (the policy's entry {@code policyTableName}) for the principal
   * this catalog acts for in {@code session} now.
   */
  ProtectionSpec resolveProtection(
      SparkSession session, String policyTableName, org.apache.iceberg.Table table, Schema schema);

  /**
   * A table that Iceberg's actions load for a rewrite, protected like a loaded table.
   *
   * @param table Iceberg's table of its rewrite catalog ({@code IcebergRewriteCatalog})
   * @param rewriteGroupId the file group every read and write of the table rewrites, or null when
   *     they name it in their options
   */
  Table protectCached(Table table, String rewriteGroupId);

  /** A catalog that delegates protection to a protecting catalog (the session catalog wrapper). */
  interface Holder {
    ProtectingCatalog protectingCatalog();
  }

  /** The protecting catalog behind a Spark catalog, or null when it protects nothing. */
  static ProtectingCatalog unwrap(CatalogPlugin catalog) {
    if (catalog instanceof ProtectingCatalog) {
      return (ProtectingCatalog) catalog;
    }
    if (catalog instanceof Holder) {
      return ((Holder) catalog).protectingCatalog();
    }
    return null;
  }

  /**
   * The protecting catalog named {@code catalogName} in {@code session}: where an operation over a
   * protected table resolves its principal, whichever session loaded the table.
   *
   * @throws ProtectorException if that session has no protecting catalog of that name
   */
  static ProtectingCatalog of(SparkSession session, String catalogName, String table) {
    CatalogPlugin plugin;
    try {
      plugin = session.sessionState().catalogManager().catalog(catalogName);
    } catch (RuntimeException e) {
      plugin = null;
    }
    ProtectingCatalog protecting = unwrap(plugin);
    if (protecting == null) {
      throw new ProtectorException(
          String.format(
              "Refusing to read or write protected table %s from a session whose catalog '%s' is"
                  + " not a protecting catalog (%s): the session that runs an operation decides"
                  + " whose keys it uses",
              table, catalogName, plugin == null ? "not configured" : plugin.getClass().getName()));
    }
    return protecting;
  }
}
