/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.spark.procedures;

import io.icebergprotector.spark.core.ProtectorException;
import io.icebergprotector.spark.maintenance.ProcedureParam;
import io.icebergprotector.spark.maintenance.ProcedureResult;
import io.icebergprotector.spark.maintenance.ProtectedProcedures;
import io.icebergprotector.spark.table.ProtectedTable;
import io.icebergprotector.spark.table.TableAdmin;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.iceberg.spark.Spark3Util;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.util.ArrayData;
import org.apache.spark.sql.connector.catalog.CatalogPlugin;
import org.apache.spark.sql.connector.catalog.Identifier;
import org.apache.spark.sql.connector.catalog.TableCatalog;

/**
 * Guards Iceberg's procedures on protected tables. Every table-valued argument is resolved the way
 * Iceberg 1.11.0 resolves it ({@link Spark3Util#catalogAndIdentifier}: multipart identifiers,
 * backquotes, catalog prefixes, the session's current catalog and namespace), and the table is
 * loaded through the resolved catalog: a table is protected when it loads as a {@link
 * ProtectedTable} or the policy lists its name.
 *
 * <ul>
 *   <li>{@link #REFUSED}: procedures that would import plaintext files or read protected columns
 *       outside the protected read path; refused for everyone.
 *   <li>{@link #READ_ONLY}: allowed to everyone.
 *   <li>every other procedure changes the table's state (snapshots, branches, manifests, files,
 *       statistics, registration) and needs a writer role of the table. On a protected table,
 *       {@code rewrite_data_files} and {@code compute_table_stats} run through the protected paths
 *       ({@link ProtectedProcedures}); the others work on metadata or on files that hold no column
 *       values, and run as Iceberg's.
 * </ul>
 *
 * Table properties passed to {@code migrate} and {@code snapshot} may not be protector properties.
 *
 * <p>This is the version-independent part: {@code SparkProcedures} (src/main/spark-*) wraps
 * Iceberg's procedure in that Spark version's procedure interface and asks {@link #call} first.
 */
final class GuardedProcedure {
  static final Set<String> REFUSED =
      Set.of("add_files", "migrate", "snapshot", "create_changelog_view");

  /** Refused procedures that import files the protector did not write. */
  private static final Set<String> IMPORTING = Set.of("add_files", "migrate", "snapshot");

  static final Set<String> READ_ONLY = Set.of("ancestors_of");

  /** Where Iceberg resolves an identifier that names no catalog. */
  private enum DefaultCatalog {
    PROCEDURE, // BaseProcedure.toIdentifier / ProcedureInput.ident(param)
    CURRENT, // SparkActions.migrateTable / snapshotTable(...).as(...)
    SESSION // AddFilesProcedure: source_table against the v2 session catalog
  }

  /** Table-valued parameters per procedure in Iceberg 1.11.0; others have only {@code table}. */
  private static final Map<String, Map<String, DefaultCatalog>> TABLE_PARAMETERS =
      Map.of(
          "add_files",
              Map.of("table", DefaultCatalog.PROCEDURE, "source_table", DefaultCatalog.SESSION),
          "migrate", Map.of("table", DefaultCatalog.CURRENT),
          "snapshot",
              Map.of("source_table", DefaultCatalog.CURRENT, "table", DefaultCatalog.CURRENT));

  private static final Map<String, DefaultCatalog> ONLY_TABLE =
      Map.of("table", DefaultCatalog.PROCEDURE);

  /** Source tables are read, not changed: they are checked only when they are protected. */
  private static final Set<String> SOURCE_PARAMETERS = Set.of("source_table");

  /** Procedures whose {@code properties} argument becomes table properties. */
  private static final Set<String> PROPERTY_SETTING = Set.of("migrate", "snapshot");

  private final String name;
  private final List<ProcedureParam> params;
  private final TableCatalog catalog;

  /**
   * The guard of procedure {@code name} of {@code catalog} (a protecting catalog or session
   * catalog), whose parameters are {@code params}.
   */
  GuardedProcedure(String name, List<ProcedureParam> params, TableCatalog catalog) {
    this.name = name.toLowerCase(Locale.ROOT);
    this.params = List.copyOf(params);
    this.catalog = catalog;
  }

  /** Checks a call with {@code args}; says whether Iceberg's procedure runs, and with what. */
  ProcedureResult call(InternalRow args) {
    SparkSession spark = SparkSession.active();
    Map<String, DefaultCatalog> tableParameters = TABLE_PARAMETERS.getOrDefault(name, ONLY_TABLE);
    Target target = null;
    for (int i = 0; i < params.size(); i++) {
      String param = params.get(i).name().toLowerCase(Locale.ROOT);
      if (args.isNullAt(i)) {
        continue;
      }
      if (tableParameters.containsKey(param)) {
        Target checked =
            check(spark, param, args.getUTF8String(i).toString(), tableParameters.get(param));
        if ("table".equals(param)) {
          target = checked;
        }
      } else if ("properties".equals(param) && PROPERTY_SETTING.contains(name)) {
        ArrayData keys = args.getMap(i).keyArray();
        for (int k = 0; k < keys.numElements(); k++) {
          TableAdmin.checkReserved(
              keys.getUTF8String(k).toString(), "the table of " + procedureName(), "set");
        }
      }
    }
    if (target != null && target.governed.table() instanceof ProtectedTable) {
      return ProtectedProcedures.call(
          name,
          params,
          args,
          spark,
          catalog.name(),
          target.catalog,
          target.ident,
          (ProtectedTable) target.governed.table(),
          target.governed.displayName());
    }
    return ProcedureResult.delegate(args);
  }

  /** A protected table argument: where it resolved, and its policy entry. */
  private static final class Target {
    private final TableCatalog catalog;
    private final Identifier ident;
    private final TableAdmin.Governed governed;

    Target(TableCatalog catalog, Identifier ident, TableAdmin.Governed governed) {
      this.catalog = catalog;
      this.ident = ident;
      this.governed = governed;
    }
  }

  /** Checks one table argument; returns it when the policy governs it, else null. */
  private Target check(SparkSession spark, String param, String value, DefaultCatalog where) {
    if (value.isEmpty()) {
      return null; // Iceberg refuses empty identifiers itself
    }
    Optional<TableAdmin.Governed> governed;
    Spark3Util.CatalogAndIdentifier resolved;
    try {
      resolved =
          Spark3Util.catalogAndIdentifier(
              "identifier for parameter '" + param + "'",
              spark,
              value,
              defaultCatalog(spark, where));
      governed = TableAdmin.governed(resolved.catalog(), resolved.identifier());
    } catch (RuntimeException e) {
      if (SOURCE_PARAMETERS.contains(param)) {
        return null; // e.g. `parquet`.`/path`: a file source, which Iceberg resolves on its own
      }
      throw e;
    }
    if (governed.isEmpty()) {
      return null;
    }
    String argument = param + " => '" + value + "'";
    if (REFUSED.contains(name)) {
      throw new ProtectorException(refusal(governed.get(), argument));
    }
    boolean ownCheck =
        governed.get().table() instanceof ProtectedTable && ProtectedProcedures.checksAccess(name);
    if (!READ_ONLY.contains(name) && !ownCheck) {
      governed.get().requireWriter(procedureName() + " (" + argument + ")");
    }
    return new Target((TableCatalog) resolved.catalog(), resolved.identifier(), governed.get());
  }

  private String refusal(TableAdmin.Governed table, String argument) {
    String intro =
        String.format(
            "Procedure %s is not supported on protected table %s (%s): ",
            name, table.displayName(), argument);
    if (IMPORTING.contains(name)) {
      return intro
          + "it imports files the protector did not write, so their protected columns would stay"
          + " in plaintext. Write the rows through the table (INSERT INTO, DataFrame writes), or"
          + " encrypt an Iceberg table's existing files with CALL "
          + table.catalog().catalogName()
          + ".system.rewrite_protected(table => '<table>')";
    }
    return intro
        + "it would read protected columns outside the protected read path. Read the table"
        + " itself (with time travel for older snapshots)";
  }

  private CatalogPlugin defaultCatalog(SparkSession spark, DefaultCatalog where) {
    switch (where) {
      case CURRENT:
        return spark.sessionState().catalogManager().currentCatalog();
      case SESSION:
        return spark.sessionState().catalogManager().v2SessionCatalog();
      default:
        return catalog;
    }
  }

  private String procedureName() {
    return "CALL " + catalog.name() + ".system." + name;
  }
}
