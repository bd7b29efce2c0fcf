/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.spark.table;

import io.icebergprotector.policy.Policy;
import io.icebergprotector.policy.Principal;
import io.icebergprotector.policy.TablePolicy;
import io.icebergprotector.spark.core.ProtectorException;
import java.util.Collections;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import org.apache.spark.sql.catalyst.analysis.NoSuchTableException;
import org.apache.spark.sql.connector.catalog.CatalogPlugin;
import org.apache.spark.sql.connector.catalog.Identifier;
import org.apache.spark.sql.connector.catalog.Table;
import org.apache.spark.sql.connector.catalog.TableCatalog;

/**
 * Who may change a protected table's definition: schema, partitioning, sort order, identifier
 * fields, branches and tags, properties, and the table's existence (create, replace, drop, rename)
 * need a writer role of the table. The protector's own table properties ({@value #RESERVED_PREFIX}
 * keys) cannot be set or removed through SQL by anyone; the protector writes them through the
 * Iceberg API.
 */
public final class TableAdmin {
  /** Table properties with this prefix belong to the protector. */
  public static final String RESERVED_PREFIX = "protector.";

  // Spark passes CREATE TABLE ... OPTIONS (k = v) as table properties "k" and "option.k".
  private static final String SPARK_OPTION_PREFIX = "option.";

  private TableAdmin() {}

  /** A table the policy governs, as found through a protecting catalog. */
  public static final class Governed {
    private final ProtectingCatalog catalog;
    private final TablePolicy entry;
    private final Table table;

    Governed(ProtectingCatalog catalog, TablePolicy entry, Table table) {
      this.catalog = catalog;
      this.entry = entry;
      this.table = table;
    }

    public ProtectingCatalog catalog() {
      return catalog;
    }

    /** The table's policy entry. */
    public TablePolicy entry() {
      return entry;
    }

    /** {@code <catalog>.<policy table name>}, for messages. */
    public String displayName() {
      return catalog.catalogName() + "." + entry.name();
    }

    /**
     * The loaded table: a {@link ProtectedTable}, another table, or null when it does not exist.
     */
    public Table table() {
      return table;
    }

    /**
     * Refuses the operation (named as the user would write it, e.g. {@code DROP TABLE}) unless the
     * catalog's principal holds a writer role of the table.
     */
    public void requireWriter(String operation) {
      TableAdmin.requireWriter(catalog, entry, operation);
    }
  }

  /**
   * Whether the table {@code ident} of {@code catalog} is governed by a protecting catalog's
   * policy: it loads as a {@link ProtectedTable}, or its name is listed in the policy (a table that
   * does not exist yet, or a non-Iceberg table of the session catalog). A table whose recorded
   * protection has no policy entry any more fails to load, and that error is thrown here as well.
   */
  public static Optional<Governed> governed(CatalogPlugin catalog, Identifier ident) {
    ProtectingCatalog protecting = ProtectingCatalog.unwrap(catalog);
    if (protecting == null || !(catalog instanceof TableCatalog)) {
      return Optional.empty();
    }
    Policy policy = protecting.protectorContext().policy();
    Optional<TablePolicy> byName = policy.table(policyName(ident));
    Table table;
    try {
      table = ((TableCatalog) catalog).loadTable(ident);
    } catch (NoSuchTableException e) {
      table = null;
    } catch (ProtectorException e) {
      if (byName.isEmpty()) {
        throw e;
      }
      table = null; // refused to load, and listed: governed by its entry
    }
    Optional<TablePolicy> entry =
        table instanceof ProtectedTable
            ? policy.table(((ProtectedTable) table).protection().tableName())
            : byName;
    Table loaded = table;
    return entry.map(e -> new Governed(protecting, e, loaded));
  }

  /** {@code ns1.ns2.table}: how the policy names a table of a catalog. */
  public static String policyName(Identifier ident) {
    return ident.namespace().length == 0
        ? ident.name()
        : String.join(".", ident.namespace()) + "." + ident.name();
  }

  /**
   * Refuses {@code operation} on a loaded protected table unless the principal is one of its
   * writers; returns the table's policy entry.
   */
  public static TablePolicy requireWriter(
      ProtectingCatalog catalog, ProtectedTable table, String operation) {
    String policyName = table.protection().tableName();
    TablePolicy entry =
        catalog
            .protectorContext()
            .policy()
            .table(policyName)
            .orElseThrow(
                () ->
                    new ProtectorException(
                        "Protected table "
                            + policyName
                            + " has no policy entry in "
                            + catalog.protectorContext().policy().origin()));
    requireWriter(catalog, entry, operation);
    return entry;
  }

  /** Refuses {@code operation} on a protected table; other tables are Iceberg's own business. */
  public static void requireWriterIfProtected(
      ProtectingCatalog catalog, Identifier ident, String operation) {
    Table table;
    try {
      table = catalog.loadTable(ident);
    } catch (NoSuchTableException e) {
      return;
    }
    if (table instanceof ProtectedTable) {
      requireWriter(catalog, (ProtectedTable) table, operation);
    }
  }

  /**
   * Renaming a protected table needs a writer role; so does renaming a table to a name the policy
   * lists, which puts the table under that entry.
   */
  public static void checkRename(ProtectingCatalog catalog, Identifier from, Identifier to) {
    String operation = "RENAME TABLE " + policyName(from) + " TO " + policyName(to);
    requireWriterIfProtected(catalog, from, operation);
    Optional<TablePolicy> target = catalog.protectorContext().policy().table(policyName(to));
    if (target.isPresent()) {
      requireWriter(catalog, target.get(), operation);
    }
  }

  /**
   * Refuses {@code operation} on a policy table unless the principal holds one of its writer roles.
   */
  public static void requireWriter(ProtectingCatalog catalog, TablePolicy entry, String operation) {
    Principal principal = catalog.principal();
    Policy policy = catalog.protectorContext().policy();
    Set<String> roles = policy.rolesOf(principal);
    if (Collections.disjoint(entry.writers(), roles)) {
      throw new ProtectorException(
          String.format(
              "Principal '%s' (roles %s) may not run %s on protected table %s.%s: only the"
                  + " table's writer roles %s may change its definition or its state (policy %s)",
              principal.user(),
              new TreeSet<>(roles),
              operation,
              catalog.catalogName(),
              entry.name(),
              new TreeSet<>(entry.writers()),
              policy.origin()));
    }
  }

  /**
   * Whether a table property key belongs to the protector (also as a Spark {@code option.} key).
   */
  public static boolean isReserved(String key) {
    if (key == null) {
      return false;
    }
    String lower = key.trim().toLowerCase(Locale.ROOT);
    if (lower.startsWith(SPARK_OPTION_PREFIX)) {
      lower = lower.substring(SPARK_OPTION_PREFIX.length());
    }
    return lower.startsWith(RESERVED_PREFIX);
  }

  /**
   * Refuses setting or removing a protector property through SQL or a DataFrame writer ({@code how}
   * says which), on any table.
   */
  public static void checkReserved(String key, String table, String how) {
    if (isReserved(key)) {
      throw new ProtectorException(
          String.format(
              "Cannot %s table property '%s' of %s: properties starting with '%s' belong to the"
                  + " protector, which maintains them itself; they cannot be set, changed or"
                  + " removed through SQL or DataFrame writers",
              how, key, table, RESERVED_PREFIX));
    }
  }

  /** Refuses every protector property among the properties a table is created with. */
  public static void checkCreateProperties(Map<String, String> properties, String table) {
    if (properties == null) {
      return;
    }
    for (String key : properties.keySet()) {
      checkReserved(key, table, "set");
    }
  }
}
