/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.spark.flow;

import io.icebergprotector.policy.TablePolicy;
import io.icebergprotector.spark.compat.ScalaCollections;
import io.icebergprotector.spark.core.CatalogOptions;
import io.icebergprotector.spark.core.ColumnProtection;
import io.icebergprotector.spark.core.ProtectionSpec;
import io.icebergprotector.spark.read.ProtectedInputPartition;
import io.icebergprotector.spark.read.ProtectedScan;
import io.icebergprotector.spark.table.ProtectedTable;
import io.icebergprotector.spark.table.ProtectingCatalog;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import org.apache.iceberg.Schema;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.expressions.Attribute;
import org.apache.spark.sql.connector.catalog.CatalogPlugin;
import org.apache.spark.sql.connector.catalog.Table;
import org.apache.spark.sql.connector.read.InputPartition;
import org.apache.spark.sql.connector.write.RowLevelOperationTable;
import org.apache.spark.sql.execution.datasources.v2.DataSourceV2Relation;
import scala.Option;

/**
 * Everything the data-flow check needs from Iceberg tables of a protecting catalog. Only this class
 * names Iceberg types, and it is used only when Iceberg is on the classpath ({@link
 * SessionFlowSources#ICEBERG}): plain Parquet paths work without Iceberg.
 */
final class IcebergTables implements IcebergFlows {
  IcebergTables() {}

  /**
   * The protection of a table for the principal whose view its scan returns: the principal {@code
   * session} acts as, as {@link ProtectedTable#newScanBuilder} resolves it. The one place that
   * asks.
   */
  static ProtectionSpec protectionOf(ProtectedTable table, SparkSession session) {
    return table.protectionFor(session);
  }

  /** The flows of a protected table's columns, or null for any other relation. */
  @Override
  public List<Set<Flow>> sourceFlows(DataSourceV2Relation relation, SparkSession session) {
    Table read = relation.table();
    boolean rowLevel = read instanceof RowLevelOperationTable;
    if (rowLevel) {
      // the scan of a DELETE, UPDATE or MERGE (ReplaceData, WriteDelta) reads the table it writes
      read = ((RowLevelOperationTable) read).table();
    }
    if (!(read instanceof ProtectedTable)) {
      return null;
    }
    ProtectedTable table = (ProtectedTable) read;
    ProtectionSpec spec = protectionOf(table, session);
    // a decrypt-rewrite reads retired columns in clear to store them unprotected, as the policy
    // now says
    boolean decrypting =
        Boolean.parseBoolean(relation.options().get(CatalogOptions.REWRITE_DECRYPT.key()));
    FlowSource source =
        new FlowSource(
            rowLevel ? FlowSource.ROW_LEVEL_SCAN : "table",
            relation.name(),
            spec.policy().table(spec.tableName()).orElseThrow(),
            spec.policy(),
            spec.principal(),
            spec.kms());
    Schema schema = table.table().schema();
    List<Set<Flow>> out = new ArrayList<>();
    for (Attribute attribute : ScalaCollections.asJava(relation.output())) {
      Set<Flow> flows = new LinkedHashSet<>();
      for (ColumnProtection column : spec.columns().values()) {
        boolean retired = spec.retiredFieldIds().contains(column.fieldId());
        List<String> path = shortPath(schema, column.fieldId());
        if ((retired && decrypting)
            || path.isEmpty()
            || !path.get(0).equalsIgnoreCase(attribute.name())) {
          continue;
        }
        flows.add(flow(source, column, path.subList(1, path.size())));
      }
      out.add(flows);
    }
    return out;
  }

  @Override
  public Set<Flow> partitionFlows(InputPartition partition) {
    if (!(partition instanceof ProtectedInputPartition)) {
      return null;
    }
    ProtectedScan scan = ((ProtectedInputPartition) partition).origin();
    if (scan == null) {
      return null; // a copy from an executor: the driver's RDDs hold their own partitions
    }
    ProtectionSpec spec = scan.projection().spec();
    Schema read = scan.projection().outputSchema();
    FlowSource source =
        new FlowSource(
            FlowSource.RDD_OF_TABLE,
            scan.table().name(),
            spec.policy().table(spec.tableName()).orElseThrow(),
            spec.policy(),
            spec.principal(),
            spec.kms());
    Set<Flow> out = new LinkedHashSet<>();
    for (ColumnProtection column : spec.columns().values()) {
      if (read.findField(column.fieldId()) != null) {
        out.add(flow(source, column, List.of()));
      }
    }
    return out;
  }

  /** How the scan's principal reads {@code column}, found at {@code subPath} of a value. */
  private static Flow flow(FlowSource source, ColumnProtection column, List<String> subPath) {
    return new Flow(
        source,
        column.path(),
        column.policyPath(),
        column.level(),
        column.mask() == null ? null : column.mask().spec(),
        subPath);
  }

  /** A field's path without the {@code element} / {@code value} steps through lists and maps. */
  private static List<String> shortPath(Schema schema, int fieldId) {
    String name = schema.findColumnName(fieldId);
    if (name == null) {
      return List.of();
    }
    List<String> out = new ArrayList<>();
    Type type = schema.asStruct();
    for (String part : Arrays.asList(name.split("\\."))) {
      if (type instanceof Types.ListType || type instanceof Types.MapType) {
        type = ((Type.NestedType) type).fieldType(part);
        continue; // Spark addresses the list's struct fields directly
      }
      out.add(part);
      type = type != null && type.isNestedType() ? type.asNestedType().fieldType(part) : null;
    }
    return out;
  }

  /** The destination of a write into a protected table, or null for any other table. */
  @Override
  public WriteDestination destination(Table table, String name, SparkSession session) {
    if (!(table instanceof ProtectedTable)) {
      return null;
    }
    ProtectedTable protectedTable = (ProtectedTable) table;
    // a decrypt-rewrite writes retired columns in plaintext
    ProtectionSpec spec = protectionOf(protectedTable, session).withoutRetired();
    Schema schema = protectedTable.table().schema();
    Set<Integer> ids = spec.protectedFieldIds(schema);
    return WriteDestination.protectedBy(
        "protected table " + name, path -> coveredById(schema, ids, path));
  }

  // A value at `path` is protected when the field there, or the nearest existing ancestor, is a
  // protected column or lies inside one.
  private static boolean coveredById(Schema schema, Set<Integer> protectedIds, String path) {
    String candidate = path;
    while (true) {
      Types.NestedField field = schema.caseInsensitiveFindField(candidate);
      if (field != null) {
        return protectedIds.contains(field.fieldId());
      }
      int dot = candidate.lastIndexOf('.');
      if (dot < 0) {
        return false;
      }
      candidate = candidate.substring(0, dot);
    }
  }

  /**
   * The policy entry of a table that CTAS/RTAS creates in {@code catalog}: present when a
   * protecting catalog creates it as an Iceberg table that its policy lists.
   */
  @Override
  public Optional<TablePolicy> createdTableEntry(
      CatalogPlugin catalog, String tableName, Option<String> provider) {
    ProtectingCatalog protecting = null;
    if (catalog instanceof ProtectingCatalog) {
      protecting = (ProtectingCatalog) catalog;
    } else if (catalog instanceof ProtectingCatalog.Holder
        && (provider.isEmpty() || "iceberg".equals(provider.get().toLowerCase(Locale.ROOT)))) {
      // the session catalog passes tables of other providers to Spark's catalog, unprotected
      protecting = ((ProtectingCatalog.Holder) catalog).protectingCatalog();
    }
    return protecting == null
        ? Optional.empty()
        : protecting.protectorContext().policy().table(tableName);
  }
}
