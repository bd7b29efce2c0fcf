/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.spark.read;

import io.icebergprotector.spark.masks.ColumnMask;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.spark.SparkSchemaUtil;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.util.ArrayBasedMapData;
import org.apache.spark.sql.catalyst.util.ArrayData;
import org.apache.spark.sql.catalyst.util.GenericArrayData;
import org.apache.spark.sql.catalyst.util.MapData;
import org.apache.spark.sql.types.DataType;

/**
 * Applies the value kernels of column masks to rows in Spark's internal format, in place, at any
 * depth: a masked field inside a struct (or a list of structs, or a map's values) is masked where
 * it sits. Compiled once per task from the output schema; rows without any masked field are never
 * touched.
 */
final class RowMasker {
  private final StructNode root;

  private RowMasker(StructNode root) {
    this.root = root;
  }

  /**
   * A masker for rows of {@code struct}, or null when no field of it is masked.
   *
   * @param masks column masks by field id (fields whose own mask applies)
   */
  static RowMasker compile(Types.StructType struct, Map<Integer, ColumnMask> masks) {
    StructNode node = struct(struct, masks);
    return node == null ? null : new RowMasker(node);
  }

  /** Masks {@code row} in place and returns it. */
  InternalRow mask(InternalRow row) {
    root.apply(row);
    return row;
  }

  private interface Node {
    Object apply(Object value);
  }

  private static Node node(Type type, int fieldId, Map<Integer, ColumnMask> masks) {
    ColumnMask mask = masks.get(fieldId);
    if (mask != null) {
      return mask::apply;
    }
    switch (type.typeId()) {
      case STRUCT:
        return struct(type.asStructType(), masks);
      case LIST:
        Types.ListType list = type.asListType();
        Node element = node(list.elementType(), list.elementId(), masks);
        return element == null
            ? null
            : new ListNode(SparkSchemaUtil.convert(list.elementType()), element);
      case MAP:
        Types.MapType map = type.asMapType();
        Node value = node(map.valueType(), map.valueId(), masks);
        return value == null ? null : new MapNode(SparkSchemaUtil.convert(map.valueType()), value);
      default:
        return null;
    }
  }

  private static StructNode struct(Types.StructType struct, Map<Integer, ColumnMask> masks) {
    List<Integer> positions = new ArrayList<>();
    List<Node> children = new ArrayList<>();
    List<DataType> types = new ArrayList<>();
    List<Types.NestedField> fields = struct.fields();
    for (int pos = 0; pos < fields.size(); pos++) {
      Types.NestedField field = fields.get(pos);
      Node child = node(field.type(), field.fieldId(), masks);
      if (child != null) {
        positions.add(pos);
        children.add(child);
        types.add(SparkSchemaUtil.convert(field.type()));
      }
    }
    if (children.isEmpty()) {
      return null;
    }
    return new StructNode(
        positions.stream().mapToInt(Integer::intValue).toArray(),
        children.toArray(new Node[0]),
        types.toArray(new DataType[0]));
  }

  private static final class StructNode implements Node {
    private final int[] positions;
    private final Node[] children;
    private final DataType[] types;

    StructNode(int[] positions, Node[] children, DataType[] types) {
      this.positions = positions;
      this.children = children;
      this.types = types;
    }

    @Override
    public Object apply(Object value) {
      InternalRow row = (InternalRow) value;
      for (int i = 0; i < positions.length; i++) {
        int pos = positions[i];
        if (!row.isNullAt(pos)) {
          Object masked = children[i].apply(row.get(pos, types[i]));
          if (masked == null) {
            row.setNullAt(pos);
          } else {
            row.update(pos, masked);
          }
        }
      }
      return row;
    }
  }

  private static final class ListNode implements Node {
    private final DataType elementType;
    private final Node element;

    ListNode(DataType elementType, Node element) {
      this.elementType = elementType;
      this.element = element;
    }

    @Override
    public Object apply(Object value) {
      return maskArray((ArrayData) value, elementType, element);
    }
  }

  private static final class MapNode implements Node {
    private final DataType valueType;
    private final Node value;

    MapNode(DataType valueType, Node value) {
      this.valueType = valueType;
      this.value = value;
    }

    @Override
    public Object apply(Object map) {
      MapData data = (MapData) map;
      return new ArrayBasedMapData(
          data.keyArray().copy(), maskArray(data.valueArray(), valueType, value));
    }
  }

  /** A new array: readers may hand out reused or read-only arrays. */
  private static ArrayData maskArray(ArrayData array, DataType elementType, Node element) {
    Object[] values = new Object[array.numElements()];
    for (int i = 0; i < values.length; i++) {
      values[i] = array.isNullAt(i) ? null : element.apply(array.get(i, elementType));
    }
    return new GenericArrayData(values);
  }
}
