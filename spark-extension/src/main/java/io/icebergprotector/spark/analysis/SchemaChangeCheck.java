/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.spark.analysis;

import io.icebergprotector.policy.ColumnPolicy;
import io.icebergprotector.policy.TablePolicy;
import io.icebergprotector.spark.core.ProtectorException;
import io.icebergprotector.spark.core.RecordedColumns;
import io.icebergprotector.spark.table.ProtectedTable;
import io.icebergprotector.spark.table.ProtectingCatalog;
import io.icebergprotector.spark.table.TableAdmin;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Collectors;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.spark.Spark3Util;
import org.apache.iceberg.types.Types;
import org.apache.spark.sql.catalyst.analysis.NoSuchTableException;
import org.apache.spark.sql.connector.catalog.Identifier;
import org.apache.spark.sql.connector.catalog.TableChange;

/**
 * Checks {@code ALTER TABLE} changes to a protected table before they are committed. The policy
 * names columns, but protection follows the field id recorded for each policy column ({@link
 * RecordedColumns}): a column added or renamed to a policy column's name while the recorded field
 * still exists under another name would take over the policy entry, and the renamed column would
 * lose its protection for new writes.
 */
public final class SchemaChangeCheck {
  private SchemaChangeCheck() {}

  /**
   * Checks {@code ALTER TABLE} before it commits: no protector property is set or removed (on any
   * table), and on a protected table the principal is a writer and no policy name changes field.
   */
  public static void checkAlter(ProtectingCatalog catalog, Identifier ident, TableChange... changes)
      throws NoSuchTableException {
    String operation = describe(changes);
    String name = catalog.catalogName() + "." + TableAdmin.policyName(ident);
    for (TableChange change : changes) {
      if (change instanceof TableChange.SetProperty) {
        TableAdmin.checkReserved(((TableChange.SetProperty) change).property(), name, "set");
      } else if (change instanceof TableChange.RemoveProperty) {
        TableAdmin.checkReserved(((TableChange.RemoveProperty) change).property(), name, "unset");
      }
    }
    org.apache.spark.sql.connector.catalog.Table current = catalog.loadTable(ident);
    if (current instanceof ProtectedTable) {
      ProtectedTable table = (ProtectedTable) current;
      TablePolicy entry = TableAdmin.requireWriter(catalog, table, operation);
      Table iceberg = table.table();
      checkPolicyNames(
          entry,
          RecordedColumns.of(iceberg),
          schemaAfter(iceberg, Arrays.asList(changes)),
          catalog.catalogName() + "." + entry.name(),
          operation);
    }
  }

  /** The table's schema after {@code changes}, computed without committing anything. */
  static Schema schemaAfter(Table table, List<TableChange> changes) {
    List<TableChange> columnChanges =
        changes.stream()
            .filter(c -> c instanceof TableChange.ColumnChange)
            .collect(Collectors.toList());
    if (columnChanges.isEmpty()) {
      return table.schema();
    }
    return Spark3Util.applySchemaChanges(table.updateSchema(), columnChanges).apply();
  }

  /**
   * Refuses a schema in which a policy column's name denotes another field than the one recorded
   * for it, while the recorded field still exists.
   */
  static void checkPolicyNames(
      TablePolicy entry, RecordedColumns recorded, Schema after, String table, String operation) {
    for (ColumnPolicy column : entry.columns()) {
      RecordedColumns.Entry record = recorded.entries().get(column.path());
      if (record == null || after.findField(record.fieldId()) == null) {
        continue; // never recorded, or dropped: the name is free for a new column
      }
      Types.NestedField named = after.caseInsensitiveFindField(column.path());
      if (named != null && named.fieldId() != record.fieldId()) {
        String current = after.findColumnName(record.fieldId());
        throw new ProtectorException(
            String.format(
                "Cannot run %s on protected table %s: the policy's column '%s' is protected as"
                    + " field id %d, which is now named '%s'. Another column (field id %d) would"
                    + " then be named '%s', take over the policy's protection and leave '%s'"
                    + " unprotected for new writes. Rename '%s' back to '%s' first, or choose"
                    + " another name",
                operation,
                table,
                column.path(),
                record.fieldId(),
                current,
                named.fieldId(),
                column.path(),
                current,
                current,
                column.path()));
      }
    }
  }

  /**
   * {@code ALTER TABLE (rename column ssn to x, set property k)}: what the changes do, for
   * messages.
   */
  static String describe(TableChange... changes) {
    List<String> parts = new ArrayList<>();
    for (TableChange change : changes) {
      parts.add(describe(change));
    }
    return "ALTER TABLE (" + String.join(", ", parts) + ")";
  }

  private static String describe(TableChange change) {
    if (change instanceof TableChange.SetProperty) {
      return "set property " + ((TableChange.SetProperty) change).property();
    } else if (change instanceof TableChange.RemoveProperty) {
      return "unset property " + ((TableChange.RemoveProperty) change).property();
    } else if (change instanceof TableChange.RenameColumn) {
      TableChange.RenameColumn rename = (TableChange.RenameColumn) change;
      return "rename column " + name(rename.fieldNames()) + " to " + rename.newName();
    } else if (change instanceof TableChange.AddColumn) {
      return "add column " + name(((TableChange.AddColumn) change).fieldNames());
    } else if (change instanceof TableChange.DeleteColumn) {
      return "drop column " + name(((TableChange.DeleteColumn) change).fieldNames());
    } else if (change instanceof TableChange.ColumnChange) {
      return "alter column " + name(((TableChange.ColumnChange) change).fieldNames());
    }
    return change.getClass().getSimpleName();
  }

  private static String name(String[] parts) {
    return String.join(".", Arrays.asList(parts));
  }
}
