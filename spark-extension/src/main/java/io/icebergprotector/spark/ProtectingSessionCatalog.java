/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.spark;

import io.icebergprotector.spark.analysis.NonIcebergTables;
import io.icebergprotector.spark.table.ProtectingCatalog;
import io.icebergprotector.spark.table.TableAdmin;
import java.util.Locale;
import java.util.Map;
import org.apache.iceberg.spark.source.SparkTable;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.TableIdentifier;
import org.apache.spark.sql.catalyst.analysis.NoSuchNamespaceException;
import org.apache.spark.sql.catalyst.analysis.NoSuchTableException;
import org.apache.spark.sql.catalyst.analysis.TableAlreadyExistsException;
import org.apache.spark.sql.connector.catalog.Identifier;
import org.apache.spark.sql.connector.catalog.StagedTable;
import org.apache.spark.sql.connector.catalog.Table;
import org.apache.spark.sql.connector.catalog.TableCatalog;
import org.apache.spark.sql.connector.expressions.Transform;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;
import scala.Option;

/**
 * Iceberg's {@code spark_catalog} replacement with column protection: Iceberg tables go through a
 * {@link ProtectingSparkCatalog}, other tables through Spark's built-in session catalog. A
 * non-Iceberg table whose name the policy lists is refused ({@link NonIcebergTables}): its
 * protected columns would be stored in plaintext.
 */
public class ProtectingSessionCatalog<
        T extends
            TableCatalog & org.apache.spark.sql.connector.catalog.FunctionCatalog
                & org.apache.spark.sql.connector.catalog.SupportsNamespaces
                & org.apache.spark.sql.connector.catalog.ViewCatalog>
    extends SessionCatalogWithProcedures<T> implements ProtectingCatalog.Holder {

  private ProtectingSparkCatalog protecting;
  private CaseInsensitiveStringMap options;

  @Override
  protected TableCatalog buildSparkCatalog(String name, CaseInsensitiveStringMap options) {
    ProtectingSparkCatalog catalog = new ProtectingSparkCatalog();
    catalog.initialize(name, options);
    this.protecting = catalog;
    this.options = options;
    return catalog;
  }

  /** The protecting Iceberg catalog behind this session catalog. */
  @Override
  public ProtectingSparkCatalog protectingCatalog() {
    return protecting;
  }

  @Override
  public Table loadTable(Identifier ident) throws NoSuchTableException {
    return checkLoaded(ident, super.loadTable(ident));
  }

  @Override
  public Table loadTable(Identifier ident, String version) throws NoSuchTableException {
    return checkLoaded(ident, super.loadTable(ident, version));
  }

  @Override
  public Table loadTable(Identifier ident, long timestamp) throws NoSuchTableException {
    return checkLoaded(ident, super.loadTable(ident, timestamp));
  }

  @Override
  public Table createTable(
      Identifier ident, StructType schema, Transform[] partitions, Map<String, String> properties)
      throws TableAlreadyExistsException, NoSuchNamespaceException {
    checkCreate(ident, properties, "create");
    return super.createTable(ident, schema, partitions, properties);
  }

  @Override
  public StagedTable stageCreate(
      Identifier ident, StructType schema, Transform[] partitions, Map<String, String> properties)
      throws TableAlreadyExistsException, NoSuchNamespaceException {
    checkCreate(ident, properties, "create");
    return super.stageCreate(ident, schema, partitions, properties);
  }

  @Override
  public StagedTable stageReplace(
      Identifier ident, StructType schema, Transform[] partitions, Map<String, String> properties)
      throws NoSuchNamespaceException, NoSuchTableException {
    checkCreate(ident, properties, "replace");
    return super.stageReplace(ident, schema, partitions, properties);
  }

  @Override
  public StagedTable stageCreateOrReplace(
      Identifier ident, StructType schema, Transform[] partitions, Map<String, String> properties)
      throws NoSuchNamespaceException {
    checkCreate(ident, properties, "create or replace");
    return super.stageCreateOrReplace(ident, schema, partitions, properties);
  }

  /** Reads and writes by name of a non-Iceberg table the policy lists load it first: refused. */
  private Table checkLoaded(Identifier ident, Table table) {
    if (!(table instanceof SparkTable)) {
      Map<String, String> properties = table.properties();
      NonIcebergTables.check(
          SparkSession.active(),
          protecting,
          TableAdmin.policyName(ident),
          properties.get(TableCatalog.PROP_PROVIDER),
          properties.get(TableCatalog.PROP_LOCATION),
          "read or write");
    }
    return table;
  }

  private void checkCreate(Identifier ident, Map<String, String> properties, String operation) {
    String provider = properties.get(TableCatalog.PROP_PROVIDER);
    if (createsIceberg(provider)) {
      return; // the protecting Iceberg catalog checks it
    }
    String location = properties.get(TableCatalog.PROP_LOCATION);
    SparkSession session = SparkSession.active();
    if (location == null && ident.namespace().length == 1) {
      location =
          session
              .sessionState()
              .catalog()
              .defaultTablePath(
                  new TableIdentifier(ident.name(), Option.apply(ident.namespace()[0])))
              .toString();
    }
    NonIcebergTables.check(
        session,
        protecting,
        TableAdmin.policyName(ident),
        provider,
        location == null ? null : NonIcebergTables.qualified(location),
        operation);
  }

  /** Mirrors SparkSessionCatalog's choice of catalog for a provider. */
  private boolean createsIceberg(String provider) {
    if (provider == null || "iceberg".equalsIgnoreCase(provider)) {
      return true;
    }
    String format = provider.toLowerCase(Locale.ROOT);
    return ("parquet".equals(format) || "avro".equals(format) || "orc".equals(format))
        && options.getBoolean(format + "-enabled", false);
  }
}
