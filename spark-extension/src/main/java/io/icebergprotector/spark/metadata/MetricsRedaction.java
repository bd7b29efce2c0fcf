/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.spark.metadata;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.MetadataColumns;
import org.apache.iceberg.MetricsUtil;
import org.apache.iceberg.types.Types;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.catalyst.util.ArrayBasedMapData;
import org.apache.spark.sql.catalyst.util.ArrayData;
import org.apache.spark.sql.catalyst.util.GenericArrayData;
import org.apache.spark.sql.catalyst.util.MapData;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.MapType;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

/**
 * Removes the metrics of hidden columns from the rows of an Iceberg metadata table, as Spark reads
 * them (any projection of the table's schema):
 *
 * <ul>
 *   <li>the per-column maps {@code column_sizes}, {@code value_counts}, {@code null_value_counts},
 *       {@code nan_value_counts}, {@code lower_bounds} and {@code upper_bounds}, at the top level
 *       or inside {@code data_file} (the {@code entries} tables), lose the keys of hidden field
 *       ids;
 *   <li>the sub-structs of hidden columns in {@code readable_metrics} become NULL;
 *   <li>hidden fields of {@code position_deletes}' {@code row} (the deleted row) become NULL.
 * </ul>
 *
 * Fields are recognised by the Iceberg field ids of the metadata table's schema, not by name.
 */
final class MetricsRedaction implements Serializable {
  private static final long serialVersionUID = 1L;

  private static final Set<Integer> METRIC_MAPS =
      Set.of(
          DataFile.COLUMN_SIZES.fieldId(),
          DataFile.VALUE_COUNTS.fieldId(),
          DataFile.NULL_VALUE_COUNTS.fieldId(),
          DataFile.NAN_VALUE_COUNTS.fieldId(),
          DataFile.LOWER_BOUNDS.fieldId(),
          DataFile.UPPER_BOUNDS.fieldId());

  private final StructNode root;
  private final List<List<String>> paths;

  private MetricsRedaction(StructNode root, List<List<String>> paths) {
    this.root = root;
    this.paths = List.copyOf(paths);
  }

  /**
   * @param readSchema the rows' schema: a projection of {@code metadataSchema} in Spark types
   * @param metadataSchema the metadata table's Iceberg schema
   * @param hidden the columns whose metrics are removed
   */
  static MetricsRedaction of(
      StructType readSchema, Types.StructType metadataSchema, HiddenColumns hidden) {
    List<List<String>> paths = new ArrayList<>();
    StructNode root = walk(readSchema, metadataSchema, List.of(), false, hidden, paths);
    return new MetricsRedaction(root, paths);
  }

  /**
   * Paths (field names from the top) of every field this redaction changes or may change, whether
   * or not a hidden column currently needs it: a filter on one of them must not run before it.
   */
  List<List<String>> redactedPaths() {
    return paths;
  }

  /** True if a reference to {@code names} touches a redacted field, or a struct holding one. */
  boolean touches(String[] names) {
    for (List<String> path : paths) {
      int common = Math.min(path.size(), names.length);
      boolean prefix = true;
      for (int i = 0; i < common && prefix; i++) {
        prefix = path.get(i).equalsIgnoreCase(names[i]);
      }
      if (prefix) {
        return true;
      }
    }
    return false;
  }

  InternalRow apply(InternalRow row) {
    return root == null ? row : root.apply(row);
  }

  private static StructNode walk(
      StructType sparkType,
      Types.StructType icebergType,
      List<String> path,
      boolean deletedRow,
      HiddenColumns hidden,
      List<List<String>> paths) {
    StructField[] fields = sparkType.fields();
    Node[] children = new Node[fields.length];
    boolean[] nulled = new boolean[fields.length];
    boolean changes = false;
    for (int i = 0; i < fields.length; i++) {
      StructField field = fields[i];
      Types.NestedField icebergField = find(icebergType, field.name());
      if (icebergField == null) {
        continue; // a Spark metadata column such as _spec_id
      }
      List<String> fieldPath = append(path, field.name());
      DataType type = field.dataType();
      int id = icebergField.fieldId();
      if (deletedRow) {
        // the deleted row carries the data table's own field ids
        if (hidden.fieldIds().contains(id)
            || (!(type instanceof StructType) && hidden.hidesAnyOf(icebergField))) {
          nulled[i] = true;
        } else if (type instanceof StructType) {
          children[i] =
              walk(
                  (StructType) type,
                  icebergField.type().asStructType(),
                  fieldPath,
                  true,
                  hidden,
                  paths);
        }
      } else if (METRIC_MAPS.contains(id) && type instanceof MapType) {
        paths.add(fieldPath);
        children[i] = new MapKeys(hidden.fieldIds(), ((MapType) type).valueType());
      } else if (path.isEmpty()
          && MetricsUtil.READABLE_METRICS.equals(field.name())
          && type instanceof StructType) {
        paths.add(fieldPath);
        children[i] = readableMetrics((StructType) type, hidden);
      } else if (id == MetadataColumns.DELETE_FILE_ROW_FIELD_ID && type instanceof StructType) {
        paths.add(fieldPath);
        children[i] =
            walk(
                (StructType) type,
                icebergField.type().asStructType(),
                fieldPath,
                true,
                hidden,
                paths);
      } else if (type instanceof StructType && icebergField.type().isStructType()) {
        children[i] =
            walk(
                (StructType) type,
                icebergField.type().asStructType(),
                fieldPath,
                false,
                hidden,
                paths);
      }
      changes |= nulled[i] || children[i] != null;
    }
    return changes ? new StructNode(sparkType, children, nulled) : null;
  }

  /** Each sub-struct of {@code readable_metrics} is named by its column's full name. */
  private static StructNode readableMetrics(StructType type, HiddenColumns hidden) {
    StructField[] columns = type.fields();
    boolean[] nulled = new boolean[columns.length];
    for (int i = 0; i < columns.length; i++) {
      nulled[i] = hidden.names().contains(columns[i].name());
    }
    return new StructNode(type, new Node[columns.length], nulled);
  }

  private static Types.NestedField find(Types.StructType type, String name) {
    Types.NestedField field = type.field(name);
    return field != null ? field : type.caseInsensitiveField(name);
  }

  private static List<String> append(List<String> path, String name) {
    List<String> result = new ArrayList<>(path);
    result.add(name);
    return List.copyOf(result);
  }

  private interface Node extends Serializable {
    Object apply(Object value);
  }

  /** Copies a struct, with some fields set to NULL and some transformed. */
  private static final class StructNode implements Node {
    private static final long serialVersionUID = 1L;
    private final DataType[] types;
    private final Node[] children;
    private final boolean[] nulled;

    StructNode(StructType type, Node[] children, boolean[] nulled) {
      StructField[] fields = type.fields();
      this.types = new DataType[fields.length];
      for (int i = 0; i < fields.length; i++) {
        types[i] = fields[i].dataType();
      }
      this.children = children;
      this.nulled = nulled;
    }

    @Override
    public Object apply(Object value) {
      return value == null ? null : apply((InternalRow) value);
    }

    InternalRow apply(InternalRow row) {
      Object[] values = new Object[types.length];
      for (int i = 0; i < types.length; i++) {
        if (nulled[i] || row.isNullAt(i)) {
          continue;
        }
        Object fieldValue = row.get(i, types[i]);
        values[i] = children[i] == null ? fieldValue : children[i].apply(fieldValue);
      }
      return new GenericInternalRow(values);
    }
  }

  /** A map keyed by field id without the entries of hidden field ids. */
  private static final class MapKeys implements Node {
    private static final long serialVersionUID = 1L;
    private final Set<Integer> hiddenIds;
    private final DataType valueType;

    MapKeys(Set<Integer> hiddenIds, DataType valueType) {
      this.hiddenIds = Set.copyOf(hiddenIds);
      this.valueType = valueType;
    }

    @Override
    public Object apply(Object value) {
      if (value == null || hiddenIds.isEmpty()) {
        return value;
      }
      MapData map = (MapData) value;
      ArrayData keys = map.keyArray();
      ArrayData values = map.valueArray();
      List<Object> keptKeys = new ArrayList<>();
      List<Object> keptValues = new ArrayList<>();
      for (int i = 0; i < map.numElements(); i++) {
        int key = keys.getInt(i);
        if (!hiddenIds.contains(key)) {
          keptKeys.add(key);
          keptValues.add(values.isNullAt(i) ? null : values.get(i, valueType));
        }
      }
      if (keptKeys.size() == map.numElements()) {
        return map;
      }
      return new ArrayBasedMapData(
          new GenericArrayData(keptKeys.toArray()), new GenericArrayData(keptValues.toArray()));
    }
  }
}
