/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.spark.maintenance;

import io.icebergprotector.spark.binding.BindingBoundary;
import io.icebergprotector.spark.compat.IcebergRewriteCatalog;
import io.icebergprotector.spark.core.ProtectorException;
import io.icebergprotector.spark.core.RecordedColumns;
import io.icebergprotector.spark.table.ProtectingCatalog;
import java.util.Map;
import org.apache.iceberg.BaseMetadataTable;
import org.apache.iceberg.PositionDeletesTable;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.analysis.NoSuchFunctionException;
import org.apache.spark.sql.catalyst.analysis.NoSuchNamespaceException;
import org.apache.spark.sql.catalyst.analysis.NoSuchTableException;
import org.apache.spark.sql.catalyst.analysis.TableAlreadyExistsException;
import org.apache.spark.sql.connector.catalog.CatalogManager;
import org.apache.spark.sql.connector.catalog.CatalogPlugin;
import org.apache.spark.sql.connector.catalog.FunctionCatalog;
import org.apache.spark.sql.connector.catalog.Identifier;
import org.apache.spark.sql.connector.catalog.Table;
import org.apache.spark.sql.connector.catalog.TableCatalog;
import org.apache.spark.sql.connector.catalog.TableChange;
import org.apache.spark.sql.connector.catalog.functions.UnboundFunction;
import org.apache.spark.sql.connector.expressions.Transform;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;

/**
 * Iceberg's rewrite catalog ({@link IcebergRewriteCatalog}: {@code SparkCachedTableCatalog} on
 * Iceberg's Spark 3.5 and 4.0 modules, {@code SparkRewriteTableCatalog} on 4.1) with protection:
 * the catalog through which Iceberg's actions read and write the tables they put into their {@code
 * SparkTableCache} (the file groups of {@code rewrite_data_files}: {@code
 * spark.read().format("iceberg").option("scan-task-set-id", id).load(id)} on 3.5 and 4.0, {@code
 * load(id)} on 4.1, and the matching write). A table that a protecting catalog of the session
 * loaded becomes a {@link ProtectedTable} here as well, so a compaction reads and writes through
 * the protected paths and Iceberg's action commits what they staged. Other tables stay Iceberg's.
 *
 * <p>Registered as {@value #NAME} (Iceberg's name for it) by the protector before it lets Iceberg
 * rewrite a protected table ({@link #install}). A cached table that holds protected columns but
 * belongs to no protecting catalog of the session is refused: Iceberg's own readers and writers
 * would bypass the protection.
 *
 * <p>Position delete tables pass through as Iceberg's ({@code rewrite_position_delete_files}):
 * position delete files hold data file locations and row positions, not column values.
 */
public class ProtectingCachedTableCatalog implements TableCatalog, FunctionCatalog {
  /** The catalog name Iceberg's source resolves cached tables with. */
  public static final String NAME = IcebergRewriteCatalog.NAME;

  private static final String CONF = "spark.sql.catalog." + NAME;

  private final TableCatalog delegate = IcebergRewriteCatalog.newIcebergCatalog();

  /**
   * Makes {@value #NAME} this class in {@code spark}'s conf, so sessions cloned from it from now on
   * (Iceberg's actions run in a clone) read cached tables through it. Refuses when the name is
   * configured as another class: Iceberg would rewrite through that one.
   */
  public static void install(SparkSession spark) {
    String current = spark.conf().getOption(CONF).getOrElse(() -> null);
    if (current == null || current.equals(IcebergRewriteCatalog.ICEBERG_CLASS)) {
      spark.conf().set(CONF, ProtectingCachedTableCatalog.class.getName());
    } else if (!current.equals(ProtectingCachedTableCatalog.class.getName())) {
      throw new ProtectorException(
          String.format(
              "Cannot rewrite a protected table while %s = %s: Iceberg's actions read and write"
                  + " through that catalog, which does not protect. Unset it, or set it to %s",
              CONF, current, ProtectingCachedTableCatalog.class.getName()));
    }
  }

  @Override
  public void initialize(String name, CaseInsensitiveStringMap options) {
    delegate.initialize(name, options);
  }

  @Override
  public String name() {
    return delegate.name();
  }

  @Override
  public Table loadTable(Identifier ident) throws NoSuchTableException {
    return protect(ident, delegate.loadTable(ident));
  }

  @Override
  public Table loadTable(Identifier ident, String version) throws NoSuchTableException {
    return protect(ident, delegate.loadTable(ident, version));
  }

  @Override
  public Table loadTable(Identifier ident, long timestamp) throws NoSuchTableException {
    return protect(ident, delegate.loadTable(ident, timestamp));
  }

  private static Table protect(Identifier ident, Table table) {
    org.apache.iceberg.Table iceberg = IcebergRewriteCatalog.icebergTable(table);
    boolean metadata = iceberg instanceof BaseMetadataTable;
    if (iceberg instanceof PositionDeletesTable) {
      return table;
    }
    org.apache.iceberg.Table data = metadata ? ((BaseMetadataTable) iceberg).table() : iceberg;
    ProtectingCatalog owner = owner(data.name());
    if (owner != null) {
      return owner.protectCached(table, IcebergRewriteCatalog.rewriteGroupId(ident));
    }
    if (!RecordedColumns.of(data).isEmpty()
        || data.properties().containsKey(BindingBoundary.PROPERTY)) {
      throw new ProtectorException(
          String.format(
              "Refusing to read or write table %s for one of Iceberg's actions: it holds"
                  + " protected data, but no protecting catalog of this session loaded it, so"
                  + " Iceberg's readers and writers would bypass the protection. Run the procedure"
                  + " through the protecting catalog",
              data.name()));
    }
    return table;
  }

  /**
   * The protecting catalog of the active session that names its tables {@code <catalog>.<...>}:
   * Iceberg's catalogs name their tables with the Spark catalog's name first.
   */
  private static ProtectingCatalog owner(String tableName) {
    int dot = tableName.indexOf('.');
    if (dot <= 0) {
      return null;
    }
    String catalogName = tableName.substring(0, dot);
    CatalogManager catalogs = SparkSession.active().sessionState().catalogManager();
    if (!catalogs.isCatalogRegistered(catalogName)) {
      return null;
    }
    CatalogPlugin plugin = catalogs.catalog(catalogName);
    ProtectingCatalog protecting = ProtectingCatalog.unwrap(plugin);
    return protecting;
  }

  @Override
  public Identifier[] listTables(String[] namespace) throws NoSuchNamespaceException {
    return delegate.listTables(namespace);
  }

  @Override
  public void invalidateTable(Identifier ident) {
    delegate.invalidateTable(ident);
  }

  @Override
  public Table createTable(
      Identifier ident, StructType schema, Transform[] partitions, Map<String, String> properties)
      throws TableAlreadyExistsException, NoSuchNamespaceException {
    return delegate.createTable(ident, schema, partitions, properties);
  }

  @Override
  public Table alterTable(Identifier ident, TableChange... changes) throws NoSuchTableException {
    return delegate.alterTable(ident, changes);
  }

  @Override
  public boolean dropTable(Identifier ident) {
    return delegate.dropTable(ident);
  }

  @Override
  public boolean purgeTable(Identifier ident) {
    return delegate.purgeTable(ident);
  }

  @Override
  public void renameTable(Identifier oldIdent, Identifier newIdent)
      throws NoSuchTableException, TableAlreadyExistsException {
    delegate.renameTable(oldIdent, newIdent);
  }

  @Override
  public Identifier[] listFunctions(String[] namespace) throws NoSuchNamespaceException {
    return ((FunctionCatalog) delegate).listFunctions(namespace);
  }

  @Override
  public UnboundFunction loadFunction(Identifier ident) throws NoSuchFunctionException {
    return ((FunctionCatalog) delegate).loadFunction(ident);
  }
}
