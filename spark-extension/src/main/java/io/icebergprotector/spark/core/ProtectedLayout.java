/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.spark.core;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Set;
import org.apache.iceberg.Schema;
import org.apache.iceberg.SortField;
import org.apache.iceberg.SortOrder;
import org.apache.iceberg.types.Types;

/**
 * Layout rules of protected tables, decided on field ids (names change, ids do not): no protected
 * column, nor a field nested in one, may order rows (sort orders, and with them range distribution,
 * z-order), or be an identifier field. Rows sorted by a protected value reveal the rank order of
 * the values through row positions; identifier fields end up in plaintext in equality-delete files.
 * Partition sources are refused by {@link ProtectionSpec#checkPartitioning}; {@link
 * #checkPartitionSources} checks columns named by a partition transform before it is applied.
 */
public final class ProtectedLayout {
  private ProtectedLayout() {}

  /**
   * Refuses a sort order with a protected source column, for writes and for sort-based rewrites.
   *
   * @param table the table's name, as the user would write it in {@code ALTER TABLE}
   */
  public static void checkSortOrder(
      ProtectionSpec spec, SortOrder order, Schema schema, String table) {
    if (order == null || order.isUnsorted()) {
      return;
    }
    Set<Integer> protectedIds = spec.protectedFieldIds(schema);
    for (SortField field : order.fields()) {
      if (protectedIds.contains(field.sourceId())) {
        throw new ProtectorException(
            String.format(
                "Table %s has sort order [%s], which orders rows by protected column '%s': the"
                    + " rank order of protected values would show through row positions. Remove"
                    + " it with ALTER TABLE %s WRITE UNORDERED, or order by unprotected columns"
                    + " only (ALTER TABLE %s WRITE ORDERED BY <columns>)",
                table,
                describe(order, schema),
                schema.findColumnName(field.sourceId()),
                table,
                table));
      }
    }
  }

  /**
   * Refuses ordering or clustering rows by the named columns ({@code WRITE ORDERED BY}, {@code
   * WRITE LOCALLY ORDERED BY}, a sort or z-order rewrite), naming {@code what} in the error.
   */
  public static void checkOrderingColumns(
      ProtectionSpec spec, Schema schema, Collection<String> columns, String table, String what) {
    refuseProtected(
        spec,
        schema,
        columns,
        "Cannot order protected table %2$s by protected column '%1$s' (%3$s): the rank order of"
            + " protected values would show through row positions. Order by unprotected columns"
            + " only, or use WRITE UNORDERED",
        table,
        what);
  }

  /**
   * Refuses a partition transform whose source is a protected column ({@code what}: the transform).
   */
  public static void checkPartitionSources(
      ProtectionSpec spec, Schema schema, Collection<String> columns, String table, String what) {
    refuseProtected(
        spec,
        schema,
        columns,
        "Cannot partition protected table %2$s by protected column '%1$s' (%3$s): partition values"
            + " are stored in plaintext in Iceberg metadata",
        table,
        what);
  }

  /**
   * Refuses identifier fields on protected columns: equality deletes would hold them in plaintext.
   */
  public static void checkIdentifierFields(
      ProtectionSpec spec, Schema schema, Collection<String> columns, String table) {
    refuseProtected(
        spec,
        schema,
        columns,
        "Cannot make protected column '%1$s' an identifier field of %2$s: equality-delete files"
            + " store identifier field values in plaintext",
        table,
        null);
  }

  /** Throws {@code format} (1: column, 2: table, 3: what) for the first protected column named. */
  private static void refuseProtected(
      ProtectionSpec spec,
      Schema schema,
      Collection<String> columns,
      String format,
      String table,
      String what) {
    Set<Integer> protectedIds = spec.protectedFieldIds(schema);
    for (String column : columns) {
      Types.NestedField field = resolve(schema, column);
      if (field != null && protectedIds.contains(field.fieldId())) {
        throw new ProtectorException(
            String.format(format, schema.findColumnName(field.fieldId()), table, what));
      }
    }
  }

  /** The field a column name refers to: the exact name, else a case-insensitive match. */
  static Types.NestedField resolve(Schema schema, String name) {
    Types.NestedField field = schema.findField(name);
    return field != null ? field : schema.caseInsensitiveFindField(name);
  }

  /** {@code ssn ASC NULLS_FIRST, bucket[4](id) DESC NULLS_LAST}. */
  static String describe(SortOrder order, Schema schema) {
    List<String> parts = new ArrayList<>();
    for (SortField field : order.fields()) {
      String column = schema.findColumnName(field.sourceId());
      String term =
          field.transform().isIdentity() ? column : field.transform() + "(" + column + ")";
      parts.add(term + " " + field.direction() + " " + field.nullOrder());
    }
    return String.join(", ", parts);
  }
}
