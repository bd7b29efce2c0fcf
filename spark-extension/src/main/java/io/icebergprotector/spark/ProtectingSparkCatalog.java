/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.spark;

import io.icebergprotector.policy.Principal;
import io.icebergprotector.policy.TablePolicy;
import io.icebergprotector.spark.analysis.SchemaChangeCheck;
import io.icebergprotector.spark.binding.BindingBoundary;
import io.icebergprotector.spark.compat.IcebergConfs;
import io.icebergprotector.spark.compat.IcebergRewriteCatalog;
import io.icebergprotector.spark.core.PrincipalBinding;
import io.icebergprotector.spark.core.ProtectionSpec;
import io.icebergprotector.spark.core.ProtectorContext;
import io.icebergprotector.spark.core.ProtectorException;
import io.icebergprotector.spark.core.RecordedColumns;
import io.icebergprotector.spark.metadata.ProtectedMetadataTable;
import io.icebergprotector.spark.procedures.CatalogProcedure;
import io.icebergprotector.spark.procedures.DescribeProtectionProcedure;
import io.icebergprotector.spark.procedures.RewriteProtectedProcedure;
import io.icebergprotector.spark.read.IcebergMaskTypes;
import io.icebergprotector.spark.table.ProtectedStagedTable;
import io.icebergprotector.spark.table.ProtectedTable;
import io.icebergprotector.spark.table.ProtectingCatalog;
import io.icebergprotector.spark.table.TableAdmin;
import io.icebergprotector.spark.table.TableProtection;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import org.apache.iceberg.BaseMetadataTable;
import org.apache.iceberg.CatalogProperties;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.spark.Spark3Util;
import org.apache.iceberg.spark.SparkCatalog;
import org.apache.iceberg.spark.SparkSchemaUtil;
import org.apache.iceberg.spark.source.SparkChangelogTable;
import org.apache.iceberg.spark.source.SparkTable;
import org.apache.iceberg.util.PropertyUtil;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.analysis.NoSuchTableException;
import org.apache.spark.sql.catalyst.analysis.TableAlreadyExistsException;
import org.apache.spark.sql.connector.catalog.Identifier;
import org.apache.spark.sql.connector.catalog.StagedTable;
import org.apache.spark.sql.connector.catalog.Table;
import org.apache.spark.sql.connector.catalog.TableChange;
import org.apache.spark.sql.connector.expressions.Transform;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;

/**
 * Iceberg's {@link SparkCatalog} with column protection. Tables the policy lists load as {@link
 * ProtectedTable}; all other tables are Iceberg's own, untouched. Every Iceberg catalog option
 * passes through; the {@code protector.*} options configure the protection.
 */
public class ProtectingSparkCatalog extends CatalogWithProcedures implements ProtectingCatalog {
  private String catalogName;
  private ProtectorContext context;
  private boolean refreshEagerly;

  @Override
  protected Catalog buildIcebergCatalog(String name, CaseInsensitiveStringMap options) {
    // SparkCatalog.initialize is final; this is the hook it calls with the catalog options.
    this.catalogName = name;
    this.context = ProtectorContext.fromOptions(name, options.asCaseSensitiveMap());
    boolean cacheEnabled =
        PropertyUtil.propertyAsBoolean(
                options, CatalogProperties.CACHE_ENABLED, CatalogProperties.CACHE_ENABLED_DEFAULT)
            && PropertyUtil.propertyAsLong(
                    options,
                    CatalogProperties.CACHE_EXPIRATION_INTERVAL_MS,
                    CatalogProperties.CACHE_EXPIRATION_INTERVAL_MS_DEFAULT)
                != 0;
    this.refreshEagerly = !cacheEnabled;
    return super.buildIcebergCatalog(name, options);
  }

  @Override
  public ProtectorContext protectorContext() {
    return context;
  }

  /** The principal this catalog acts for in the active session. */
  @Override
  public Principal principal() {
    return principal(activeSession());
  }

  /** The principal this catalog acts for in {@code session} now. */
  @Override
  public Principal principal(SparkSession session) {
    return context.principal(session, catalogName);
  }

  /** How the tasks of an operation for {@code session}'s principal recognize that principal. */
  PrincipalBinding binding(SparkSession session, String table) {
    return context.binding(catalogName, table, principal(session), fallbackUser(session));
  }

  /**
   * The protection of {@code table} (the policy's entry {@code policyTableName}) for the principal
   * this catalog acts for in {@code session} now.
   */
  @Override
  public ProtectionSpec resolveProtection(
      SparkSession session, String policyTableName, org.apache.iceberg.Table table, Schema schema) {
    TablePolicy policy =
        context
            .policy()
            .table(policyTableName)
            .orElseThrow(
                () ->
                    new ProtectorException(
                        String.format(
                            "Refusing to use protected table %s: the policy %s of catalog '%s' in"
                                + " the running session does not list it",
                            table.name(), context.policy().origin(), catalogName)));
    return ProtectionSpec.resolve(
            context, policy, schema, principal(session), RecordedColumns.of(table))
        .withBinding(binding(session, table.name()));
  }

  private static String fallbackUser(SparkSession session) {
    return session != null ? session.sparkContext().sparkUser() : System.getProperty("user.name");
  }

  @Override
  public Table loadTable(Identifier ident) throws NoSuchTableException {
    return protect(super.loadTable(ident));
  }

  // Iceberg's Spark 3.5 and 4.0 catalogs load time travel through loadTable(ident), already
  // protected here; its Spark 4.1 catalog loads it apart

  @Override
  public Table loadTable(Identifier ident, String version) throws NoSuchTableException {
    return protect(super.loadTable(ident, version));
  }

  @Override
  public Table loadTable(Identifier ident, long timestamp) throws NoSuchTableException {
    return protect(super.loadTable(ident, timestamp));
  }

  @Override
  public Table createTable(
      Identifier ident, StructType schema, Transform[] transforms, Map<String, String> properties)
      throws TableAlreadyExistsException {
    checkCreate(ident, schema, transforms, properties, "CREATE TABLE");
    return recordProtection(protect(super.createTable(ident, schema, transforms, properties)));
  }

  @Override
  public StagedTable stageCreate(
      Identifier ident, StructType schema, Transform[] transforms, Map<String, String> properties)
      throws TableAlreadyExistsException {
    checkCreate(ident, schema, transforms, properties, "CREATE TABLE");
    return protectStaged(super.stageCreate(ident, schema, transforms, properties));
  }

  @Override
  public StagedTable stageReplace(
      Identifier ident, StructType schema, Transform[] transforms, Map<String, String> properties)
      throws NoSuchTableException {
    checkCreate(ident, schema, transforms, properties, "REPLACE TABLE");
    return protectStaged(super.stageReplace(ident, schema, transforms, properties));
  }

  @Override
  public StagedTable stageCreateOrReplace(
      Identifier ident, StructType schema, Transform[] transforms, Map<String, String> properties) {
    checkCreate(ident, schema, transforms, properties, "CREATE OR REPLACE TABLE");
    return protectStaged(super.stageCreateOrReplace(ident, schema, transforms, properties));
  }

  @Override
  public Table alterTable(Identifier ident, TableChange... changes) throws NoSuchTableException {
    SchemaChangeCheck.checkAlter(this, ident, changes);
    Table table = protect(super.alterTable(ident, changes));
    if (table instanceof ProtectedTable) {
      ProtectedTable protectedTable = (ProtectedTable) table;
      org.apache.iceberg.Table iceberg = protectedTable.table();
      protectedTable.protection().checkPartitioning(iceberg.spec(), iceberg.schema());
    }
    return table;
  }

  @Override
  public boolean dropTable(Identifier ident) {
    TableAdmin.requireWriterIfProtected(this, ident, "DROP TABLE");
    return super.dropTable(ident);
  }

  @Override
  public boolean purgeTable(Identifier ident) {
    TableAdmin.requireWriterIfProtected(this, ident, "DROP TABLE ... PURGE");
    return super.purgeTable(ident);
  }

  @Override
  public void renameTable(Identifier from, Identifier to)
      throws NoSuchTableException, TableAlreadyExistsException {
    TableAdmin.checkRename(this, from, to);
    super.renameTable(from, to);
  }

  /** Our procedures; Iceberg's are guarded ({@link CatalogWithProcedures#loadProcedure}). */
  @Override
  CatalogProcedure ownProcedure(Identifier ident) {
    if (ident.namespace().length == 1
        && ident.namespace()[0].equalsIgnoreCase("system")
        && ident.name().equalsIgnoreCase(RewriteProtectedProcedure.NAME)) {
      return new RewriteProtectedProcedure(this);
    }
    if (ident.namespace().length == 1
        && ident.namespace()[0].equalsIgnoreCase("system")
        && ident.name().equalsIgnoreCase(DescribeProtectionProcedure.NAME)) {
      return new DescribeProtectionProcedure(this);
    }
    return null;
  }

  @Override
  public Optional<TablePolicy> policyFor(String tableName) {
    String name = tableName;
    String prefix = catalogName + ".";
    if (name.toLowerCase(Locale.ROOT).startsWith(prefix.toLowerCase(Locale.ROOT))
        && context.policy().table(name).isEmpty()) {
      name = name.substring(prefix.length());
    }
    return context.policy().table(name);
  }

  Table protect(Table table) {
    return protect(table, refreshEagerly);
  }

  /**
   * A table that one of Iceberg's actions put into its {@code SparkTableCache} for a rewrite
   * ({@link ProtectingCachedTableCatalog}): protected like a loaded table, but never refreshed,
   * since the action pinned the snapshot it rewrites.
   */
  @Override
  public Table protectCached(Table table, String rewriteGroupId) {
    if (rewriteGroupId == null) {
      return protect(table, false);
    }
    org.apache.iceberg.Table iceberg = IcebergRewriteCatalog.icebergTable(table);
    Optional<TablePolicy> policy = policyFor(iceberg.name());
    if (policy.isEmpty()) {
      return protect(table, false);
    }
    return new ProtectedTable(
        iceberg, null, null, false, protectionOf(policy.get(), iceberg), rewriteGroupId);
  }

  private Table protect(Table table, boolean refresh) {
    if (table instanceof SparkChangelogTable) {
      refuseChangelog((SparkChangelogTable) table);
    }
    if (!(table instanceof SparkTable) || table instanceof ProtectedTable) {
      return table;
    }
    SparkTable sparkTable = (SparkTable) table;
    org.apache.iceberg.Table iceberg = sparkTable.table();
    if (iceberg instanceof BaseMetadataTable) {
      return ProtectedMetadataTable.protect(
          sparkTable, policyFor(((BaseMetadataTable) iceberg).table().name()));
    }
    Optional<TablePolicy> policy = policyFor(iceberg.name());
    if (policy.isEmpty()) {
      RecordedColumns recorded = RecordedColumns.of(iceberg);
      if (!recorded.isEmpty()) {
        throw new ProtectorException(
            String.format(
                "Table %s holds protected columns %s, but the policy %s no longer lists the table."
                    + " Restore its policy entry; to remove protection, keep the entry, drop its"
                    + " columns and run CALL %s.system.rewrite_protected(table => '<table>',"
                    + " decrypt => true)",
                iceberg.name(),
                recorded.entries().keySet(),
                context.policy().origin(),
                catalogName));
      }
      return table;
    }
    TableProtection protection = protectionOf(policy.get(), iceberg);
    if (table instanceof StagedTable) {
      return new ProtectedStagedTable(sparkTable, protection);
    }
    return new ProtectedTable(
        iceberg,
        IcebergConfs.pinnedSnapshotId(sparkTable),
        sparkTable.branch(),
        refresh,
        protection);
  }

  private TableProtection protectionOf(TablePolicy policy, org.apache.iceberg.Table iceberg) {
    SparkSession session = activeSession();
    return new TableProtection(
        catalogName,
        policy.name(),
        iceberg,
        resolveProtection(session, policy.name(), iceberg, iceberg.schema()));
  }

  /**
   * Iceberg's changelog scan reads data files with Iceberg's own readers, outside the protected
   * read path (no per-principal view, and plaintext files from before protection in clear).
   */
  private void refuseChangelog(SparkChangelogTable changelog) {
    String name = changelog.name();
    String suffix = "." + SparkChangelogTable.TABLE_NAME;
    String base = name.endsWith(suffix) ? name.substring(0, name.length() - suffix.length()) : name;
    if (policyFor(base).isPresent()) {
      throw new ProtectorException(
          String.format(
              "Cannot read the changelog of protected table %s: changelog scans bypass the"
                  + " protected read path. Read the table itself (with time travel for older"
                  + " snapshots)",
              base));
    }
  }

  private StagedTable protectStaged(StagedTable staged) {
    // inside the staged transaction, so the record commits with the table
    return (StagedTable) recordProtection(protect(staged));
  }

  /**
   * Records the protected columns' field ids in the table, so protection survives renames, and puts
   * a new table under file binding from its first file on.
   */
  private static Table recordProtection(Table table) {
    if (table instanceof ProtectedTable) {
      ProtectedTable protectedTable = (ProtectedTable) table;
      RecordedColumns.record(protectedTable.table(), protectedTable.protection());
      BindingBoundary.record(protectedTable.table());
    }
    return table;
  }

  /**
   * Create-time checks: no protector property is set through SQL; and for a policy table, the
   * principal is a writer, every policy column exists, fits its masks, and is no partition source.
   */
  private void checkCreate(
      Identifier ident,
      StructType sparkSchema,
      Transform[] transforms,
      Map<String, String> properties,
      String operation) {
    String name = String.join(".", ident.namespace()) + "." + ident.name();
    TableAdmin.checkCreateProperties(properties, catalogName + "." + name);
    Optional<TablePolicy> policy = policyFor(name);
    if (policy.isEmpty()) {
      return;
    }
    TableAdmin.requireWriter(this, policy.get(), operation);
    Schema schema = SparkSchemaUtil.convert(sparkSchema);
    context.policy().validateSchema(policy.get().name(), IcebergMaskTypes.columnTypes(schema));
    ProtectionSpec spec = ProtectionSpec.resolve(context, policy.get(), schema, principal());
    spec.checkWritable(schema);
    PartitionSpec partitionSpec = Spark3Util.toPartitionSpec(schema, transforms);
    spec.checkPartitioning(partitionSpec, schema);
  }

  @Override
  public String catalogName() {
    return catalogName;
  }

  private static SparkSession activeSession() {
    return SparkSession.getActiveSession().isDefined()
        ? SparkSession.getActiveSession().get()
        : SparkSession.getDefaultSession().isDefined()
            ? SparkSession.getDefaultSession().get()
            : null;
  }
}
