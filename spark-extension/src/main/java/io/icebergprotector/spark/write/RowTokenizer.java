/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.spark.write;

import io.icebergprotector.kms.KeyService;
import io.icebergprotector.kms.KeyServiceException;
import io.icebergprotector.kms.token.Tokenizer;
import io.icebergprotector.spark.core.ColumnProtection;
import io.icebergprotector.spark.core.ProtectionSpec;
import io.icebergprotector.spark.core.ProtectorException;
import io.icebergprotector.spark.crypto.ColumnTokenizers;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.Schema;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * Replaces the values of a file's tokenized columns by their tokens before they are written, in
 * batches of {@link #BATCH_SIZE} rows: rows are copied into a buffer, each tokenized column of the
 * buffer is tokenized with one batch call ({@link Tokenizer#protectAll}), and the rows go to the
 * Parquet writer. Every row of a file is tokenized under the latest key version; {@link
 * #versions()} is what the file records in its footer. In server token mode each batch call is one
 * {@code encode} request per tokenized column to the key server, whose first answer pins the
 * version for the file's later batches. Not thread-safe: one per file writer.
 */
final class RowTokenizer implements AutoCloseable {
  static final int BATCH_SIZE = 1024;

  private final ProtectionSpec spec;
  private final DataType[] rowTypes;
  private final int[] positions;
  private final ColumnProtection[] columns;
  private final Type.TypeID[] kinds;
  private final Tokenizer[] tokenizers;
  private final ColumnTokenizers keys;
  private final GenericInternalRow[] buffer = new GenericInternalRow[BATCH_SIZE];
  private final String[] strings = new String[BATCH_SIZE];
  private final byte[][] binaries = new byte[BATCH_SIZE][];
  private final long[] longs = new long[BATCH_SIZE];
  private final int[] rowsOfLongs = new int[BATCH_SIZE];
  private int count = 0;

  private RowTokenizer(
      ProtectionSpec spec,
      StructType rowType,
      int[] positions,
      ColumnProtection[] columns,
      Type.TypeID[] kinds) {
    this.spec = spec;
    this.rowTypes = new DataType[rowType.fields().length];
    for (int i = 0; i < rowTypes.length; i++) {
      rowTypes[i] = rowType.fields()[i].dataType();
    }
    this.positions = positions;
    this.columns = columns;
    this.kinds = kinds;
    this.tokenizers = new Tokenizer[columns.length];
    this.keys = new ColumnTokenizers(spec);
  }

  /**
   * A tokenizer for rows of {@code schema} (whose Spark type is {@code rowType}), or null when the
   * schema has no tokenized column.
   */
  static RowTokenizer of(ProtectionSpec spec, Schema schema, StructType rowType) {
    Map<Integer, ColumnProtection> tokenized = spec.tokenizedColumns();
    if (tokenized.isEmpty()) {
      return null;
    }
    List<Integer> positions = new ArrayList<>();
    List<ColumnProtection> columns = new ArrayList<>();
    List<Type.TypeID> kinds = new ArrayList<>();
    List<Types.NestedField> fields = schema.columns();
    for (int pos = 0; pos < fields.size(); pos++) {
      ColumnProtection column = tokenized.get(fields.get(pos).fieldId());
      if (column != null) {
        Type.TypeID kind = fields.get(pos).type().typeId();
        switch (kind) {
          case STRING:
          case BINARY:
          case LONG:
          case INTEGER:
            break;
          default:
            throw new ProtectorException(
                String.format(
                    "Cannot tokenize column '%s' of table %s: its type %s is not string, binary,"
                        + " int or long",
                    column.path(), spec.tableName(), fields.get(pos).type()));
        }
        positions.add(pos);
        columns.add(column);
        kinds.add(kind);
      }
    }
    if (positions.isEmpty()) {
      return null;
    }
    return new RowTokenizer(
        spec,
        rowType,
        positions.stream().mapToInt(Integer::intValue).toArray(),
        columns.toArray(new ColumnProtection[0]),
        kinds.toArray(new Type.TypeID[0]));
  }

  /** Buffers a copy of {@code row}; true when the buffer is full and must be {@link #flush}ed. */
  boolean add(InternalRow row) {
    Object[] values = new Object[rowTypes.length];
    for (int i = 0; i < values.length; i++) {
      if (!row.isNullAt(i)) {
        Object value = row.get(i, rowTypes[i]);
        values[i] = copyOf(value);
      }
    }
    buffer[count] = new GenericInternalRow(values);
    count += 1;
    return count == BATCH_SIZE;
  }

  private static Object copyOf(Object value) {
    // readers and Spark's writers reuse their buffers: keep nothing that points into them
    if (value instanceof UTF8String) {
      return ((UTF8String) value).clone();
    } else if (value instanceof InternalRow) {
      return ((InternalRow) value).copy();
    } else if (value instanceof org.apache.spark.sql.catalyst.util.ArrayData) {
      return ((org.apache.spark.sql.catalyst.util.ArrayData) value).copy();
    } else if (value instanceof org.apache.spark.sql.catalyst.util.MapData) {
      return ((org.apache.spark.sql.catalyst.util.MapData) value).copy();
    } else if (value instanceof byte[]) {
      return ((byte[]) value).clone();
    }
    return value;
  }

  /**
   * Tokenizes the buffered rows and hands them to {@code sink}, in order, then empties the buffer.
   */
  void flush(java.util.function.Consumer<InternalRow> sink) {
    if (count == 0) {
      return;
    }
    for (int c = 0; c < positions.length; c++) {
      tokenize(c);
    }
    for (int i = 0; i < count; i++) {
      sink.accept(buffer[i]);
      buffer[i] = null;
    }
    count = 0;
  }

  private void tokenize(int c) {
    int pos = positions[c];
    Tokenizer tokenizer = tokenizer(c);
    try {
      switch (kinds[c]) {
        case STRING:
          for (int i = 0; i < count; i++) {
            Object v = buffer[i].genericGet(pos);
            strings[i] = v == null ? null : v.toString();
          }
          tokenizer.protectAll(strings, count);
          for (int i = 0; i < count; i++) {
            buffer[i].update(pos, strings[i] == null ? null : UTF8String.fromString(strings[i]));
            strings[i] = null;
          }
          break;
        case BINARY:
          for (int i = 0; i < count; i++) {
            binaries[i] = (byte[]) buffer[i].genericGet(pos);
          }
          tokenizer.protectAll(binaries, count);
          for (int i = 0; i < count; i++) {
            buffer[i].update(pos, binaries[i]);
            binaries[i] = null;
          }
          break;
        case LONG:
        case INTEGER:
          int n = 0;
          for (int i = 0; i < count; i++) {
            Object v = buffer[i].genericGet(pos);
            if (v != null) {
              longs[n] = ((Number) v).longValue();
              rowsOfLongs[n] = i;
              n += 1;
            }
          }
          tokenizer.protectAll(longs, n);
          boolean isInt = kinds[c] == Type.TypeID.INTEGER;
          for (int k = 0; k < n; k++) {
            long token = longs[k];
            buffer[rowsOfLongs[k]].update(pos, isInt ? (Object) Math.toIntExact(token) : token);
          }
          break;
        default:
          throw new IllegalStateException("Unexpected type " + kinds[c]);
      }
    } catch (KeyServiceException | ArithmeticException e) {
      // server token mode: the key server's refusal names principal, key and domain
      throw new ProtectorException(
          String.format(
              "Cannot tokenize a value of column '%s' of table %s (method %s, token domain '%s')"
                  + " for principal %s: %s",
              columns[c].path(),
              spec.tableName(),
              columns[c].tokenMethod(),
              columns[c].domain(),
              spec.principal(),
              e.getMessage()),
          e);
    }
  }

  private Tokenizer tokenizer(int c) {
    if (tokenizers[c] == null) {
      tokenizers[c] = keys.tokenizer(columns[c], KeyService.LATEST_VERSION);
    }
    return tokenizers[c];
  }

  /** The token key version of every tokenized column written so far, by field id. */
  Map<Integer, Integer> versions() {
    Map<Integer, Integer> out = new LinkedHashMap<>();
    for (int c = 0; c < columns.length; c++) {
      // a column of only nulls still records the version a reader would use
      out.put(columns[c].fieldId(), tokenizer(c).version());
    }
    return out;
  }

  @Override
  public void close() {
    keys.close();
  }
}
