/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.spark.metadata;

import io.icebergprotector.policy.ColumnPolicy;
import io.icebergprotector.policy.TablePolicy;
import io.icebergprotector.spark.core.RecordedColumns;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.types.TypeUtil;
import org.apache.iceberg.types.Types;

/**
 * The columns of a protected table whose metrics and bounds metadata tables must never show, by
 * field id and by column name, for files of any age and snapshots of any schema: every policy
 * column found by name in any schema the table ever had, every column recorded as protected
 * (renamed, retired or dropped since), and every field nested below one of those.
 */
final class HiddenColumns implements Serializable {
  private static final long serialVersionUID = 1L;

  private final Set<Integer> fieldIds;
  private final Set<String> names;

  private HiddenColumns(Set<Integer> fieldIds, Set<String> names) {
    this.fieldIds = Collections.unmodifiableSet(fieldIds);
    this.names = Collections.unmodifiableSet(names);
  }

  /**
   * @param table the data table (not a metadata table)
   * @param policy the table's policy entry, or null when only recorded columns remain
   */
  static HiddenColumns of(Table table, TablePolicy policy) {
    List<Schema> schemas = new ArrayList<>(table.schemas().values());
    schemas.add(table.schema());
    Set<Integer> ids = new TreeSet<>();
    RecordedColumns.of(table).entries().values().forEach(entry -> ids.add(entry.fieldId()));
    if (policy != null) {
      for (ColumnPolicy column : policy.columns()) {
        for (Schema schema : schemas) {
          Types.NestedField field = schema.caseInsensitiveFindField(column.path());
          if (field != null) {
            ids.add(field.fieldId());
          }
        }
      }
    }
    for (Schema schema : schemas) {
      for (int id : List.copyOf(ids)) {
        Types.NestedField field = schema.findField(id);
        if (field != null && field.type().isNestedType()) {
          ids.addAll(TypeUtil.indexById(Types.StructType.of(field)).keySet());
        }
      }
    }
    // readable_metrics names its columns by their full name in the table schema
    Set<String> names = new TreeSet<>();
    for (Schema schema : schemas) {
      for (int id : ids) {
        String name = schema.findColumnName(id);
        if (name != null) {
          names.add(name);
        }
      }
    }
    return new HiddenColumns(ids, names);
  }

  Set<Integer> fieldIds() {
    return fieldIds;
  }

  Set<String> names() {
    return names;
  }

  boolean hidesAnyOf(Types.NestedField field) {
    for (int id : TypeUtil.indexById(Types.StructType.of(field)).keySet()) {
      if (fieldIds.contains(id)) {
        return true;
      }
    }
    return false;
  }
}
