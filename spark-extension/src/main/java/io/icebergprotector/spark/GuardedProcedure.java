package io.icebergprotector.spark;

import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.iceberg.spark.Spark3Util;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.util.ArrayData;
import org.apache.spark.sql.connector.catalog.CatalogPlugin;
import org.apache.spark.sql.connector.catalog.TableCatalog;
import org.apache.spark.sql.connector.iceberg.catalog.Procedure;
import org.apache.spark.sql.connector.iceberg.catalog.ProcedureParameter;
import org.apache.spark.sql.types.StructType;

/**
 * Guards Iceberg's procedures on protected tables. Every table-valued argument is resolved the way
 * Iceberg 1.11.0 resolves it ({@link Spark3Util#catalogAndIdentifier}: multipart identifiers,
 * backquotes, catalog prefixes, the session's current catalog and namespace), and the table is
 * loaded through the resolved catalog: a table is protected when it loads as a {@link
 * ProtectedTable} or the policy lists its name.
 *
 * <ul>
 *   <li>{@link #REFUSED}: procedures that would write, import or derive plaintext of protected
 *       columns outside the protected write path; refused for everyone.
 *   <li>{@link #READ_ONLY}: allowed to everyone.
 *   <li>every other procedure changes the table's state (snapshots, branches, manifests, files,
 *       statistics, registration) and needs a writer role of the table.
 * </ul>
 *
 * Table properties passed to {@code migrate} and {@code snapshot} may not be protector properties.
 */
final class GuardedProcedure implements Procedure {
  static final Set<String> REFUSED =
      Set.of(
          "rewrite_data_files",
          "rewrite_position_delete_files",
          "add_files",
          "migrate",
          "snapshot",
          "compute_table_stats",
          "create_changelog_view");

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
  private final Procedure delegate;
  private final TableCatalog catalog;

  private GuardedProcedure(String name, Procedure delegate, TableCatalog catalog) {
    this.name = name;
    this.delegate = delegate;
    this.catalog = catalog;
  }

  /** Wraps a procedure of {@code catalog} (a protecting catalog or session catalog). */
  static Procedure guard(String name, Procedure procedure, TableCatalog catalog) {
    return new GuardedProcedure(name.toLowerCase(Locale.ROOT), procedure, catalog);
  }

  @Override
  public ProcedureParameter[] parameters() {
    return delegate.parameters();
  }

  @Override
  public StructType outputType() {
    return delegate.outputType();
  }

  @Override
  public String description() {
    return delegate.description();
  }

  @Override
  public InternalRow[] call(InternalRow args) {
    SparkSession spark = SparkSession.active();
    Map<String, DefaultCatalog> tableParameters = TABLE_PARAMETERS.getOrDefault(name, ONLY_TABLE);
    ProcedureParameter[] params = delegate.parameters();
    for (int i = 0; i < params.length; i++) {
      String param = params[i].name().toLowerCase(Locale.ROOT);
      if (args.isNullAt(i)) {
        continue;
      }
      if (tableParameters.containsKey(param)) {
        check(spark, param, args.getUTF8String(i).toString(), tableParameters.get(param));
      } else if ("properties".equals(param) && PROPERTY_SETTING.contains(name)) {
        ArrayData keys = args.getMap(i).keyArray();
        for (int k = 0; k < keys.numElements(); k++) {
          TableAdmin.checkReserved(
              keys.getUTF8String(k).toString(), "the table of " + procedureName(), "set");
        }
      }
    }
    return delegate.call(args);
  }

  private void check(SparkSession spark, String param, String value, DefaultCatalog where) {
    if (value.isEmpty()) {
      return; // Iceberg refuses empty identifiers itself
    }
    Optional<TableAdmin.Governed> governed;
    try {
      Spark3Util.CatalogAndIdentifier resolved =
          Spark3Util.catalogAndIdentifier(
              "identifier for parameter '" + param + "'", spark, value, defaultCatalog(spark, where));
      governed = TableAdmin.governed(resolved.catalog(), resolved.identifier());
    } catch (RuntimeException e) {
      if (SOURCE_PARAMETERS.contains(param)) {
        return; // e.g. `parquet`.`/path`: a file source, which Iceberg resolves on its own
      }
      throw e;
    }
    if (governed.isEmpty()) {
      return;
    }
    String argument = param + " => '" + value + "'";
    if (REFUSED.contains(name)) {
      throw new ProtectorException(refusal(governed.get(), argument));
    }
    if (!READ_ONLY.contains(name)) {
      governed.get().requireWriter(procedureName() + " (" + argument + ")");
    }
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
        + "it would write or derive plaintext of protected columns outside the protected write"
        + " path";
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
