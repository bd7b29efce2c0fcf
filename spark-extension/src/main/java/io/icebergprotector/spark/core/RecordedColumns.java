/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.spark.core;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.stream.Collectors;
import org.apache.iceberg.Table;

/**
 * The protected columns a table was last written with, kept in the table property {@value
 * #PROPERTY} as {@code policyPath=fieldId:keyId;...}. It lets protection follow a column through a
 * rename (field ids are stable, names are not) and notice a column whose protection was removed
 * while files still hold it encrypted.
 */
public final class RecordedColumns {
  public static final String PROPERTY = CatalogOptions.PROTECTED_COLUMNS.key();

  /** One recorded column: its field id and master key id. */
  public static final class Entry implements java.io.Serializable {
    private static final long serialVersionUID = 1L;
    private final int fieldId;
    private final String keyId;

    Entry(int fieldId, String keyId) {
      this.fieldId = fieldId;
      this.keyId = keyId;
    }

    public int fieldId() {
      return fieldId;
    }

    public String keyId() {
      return keyId;
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof Entry
          && ((Entry) o).fieldId == fieldId
          && ((Entry) o).keyId.equals(keyId);
    }

    @Override
    public int hashCode() {
      return Objects.hash(fieldId, keyId);
    }
  }

  private static final RecordedColumns NONE = new RecordedColumns(Map.of());

  private final Map<String, Entry> byPath;

  private RecordedColumns(Map<String, Entry> byPath) {
    this.byPath = Collections.unmodifiableMap(byPath);
  }

  public static RecordedColumns none() {
    return NONE;
  }

  public static RecordedColumns of(Table table) {
    return table == null ? NONE : parse(table.properties().get(PROPERTY), table.name());
  }

  static RecordedColumns parse(String text, String tableName) {
    if (text == null || text.isBlank()) {
      return NONE;
    }
    Map<String, Entry> entries = new LinkedHashMap<>();
    for (String item : text.split(";")) {
      if (item.isBlank()) {
        continue;
      }
      int eq = item.lastIndexOf('=');
      int colon = item.lastIndexOf(':');
      if (eq <= 0 || colon < eq) {
        throw new ProtectorException(
            String.format(
                "Table %s has a malformed %s property near '%s' (expected path=fieldId:keyId)",
                tableName, PROPERTY, item));
      }
      try {
        entries.put(
            item.substring(0, eq),
            new Entry(Integer.parseInt(item.substring(eq + 1, colon)), item.substring(colon + 1)));
      } catch (NumberFormatException e) {
        throw new ProtectorException(
            String.format(
                "Table %s has a malformed %s property: '%s' has no numeric field id",
                tableName, PROPERTY, item));
      }
    }
    return new RecordedColumns(entries);
  }

  /** What a spec protects, in property form. */
  public static RecordedColumns of(ProtectionSpec spec) {
    Map<String, Entry> entries = new LinkedHashMap<>();
    for (ColumnProtection column : spec.columns().values()) {
      entries.put(column.policyPath(), new Entry(column.fieldId(), column.keyId()));
    }
    entries.putAll(spec.droppedColumns());
    return new RecordedColumns(entries);
  }

  /** Writes the spec's protected columns to the table property when they changed. */
  public static void record(Table table, ProtectionSpec spec) {
    RecordedColumns current = of(spec.withoutRetired());
    if (!current.equals(of(table))) {
      table.updateProperties().set(PROPERTY, current.encode()).commit();
    }
  }

  public Map<String, Entry> entries() {
    return byPath;
  }

  public boolean isEmpty() {
    return byPath.isEmpty();
  }

  public String encode() {
    return byPath.entrySet().stream()
        .map(e -> e.getKey() + "=" + e.getValue().fieldId() + ":" + e.getValue().keyId())
        .collect(Collectors.joining(";"));
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof RecordedColumns && ((RecordedColumns) o).byPath.equals(byPath);
  }

  @Override
  public int hashCode() {
    return byPath.hashCode();
  }
}
