/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.spark.read;

import io.icebergprotector.kms.KeyServiceException;
import io.icebergprotector.kms.token.Tokenizer;
import io.icebergprotector.spark.core.ColumnProtection;
import io.icebergprotector.spark.core.ProtectionSpec;
import io.icebergprotector.spark.core.ProtectorException;
import io.icebergprotector.spark.crypto.ColumnTokenizers;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.Schema;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.execution.vectorized.OnHeapColumnVector;
import org.apache.spark.sql.execution.vectorized.WritableColumnVector;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.vectorized.ColumnVector;
import org.apache.spark.sql.vectorized.ColumnarBatch;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * Turns the stored tokens of a reader's clear and masked tokenized columns back into values (a
 * masked reader's mask applies to the value, after this). Each file says under which token key
 * version its columns were tokenized ({@link ColumnTokenizers#VERSIONS_KEY}); the tokenizer of that
 * version is opened once per reader. Rows are detokenized in place, value by value in local token
 * mode, or a read-ahead batch of rows at a time ({@link #applyAll}) in server mode; batches column
 * by column with one batch call each ({@link Tokenizer#unprotectAll}), into on-heap vectors this
 * object owns and reuses. In server token mode every batch call is one request per column to the
 * key server, naming the table column ({@link Tokenizer#readingColumn}): a masked reader's values
 * arrive masked by the server, and are checked to carry the mask the session's policy expects.
 * Token readers never get here: they read the stored tokens. Not thread-safe: one per reader.
 */
final class Detokenizer implements AutoCloseable {
  private final ProtectionSpec spec;
  private final int[] positions;
  private final ColumnProtection[] columns;
  private final Type.TypeID[] kinds;
  private final DataType[] sparkTypes;
  private final Tokenizer[] current;
  private final ColumnTokenizers keys;
  private final boolean[] serverMasked;
  private final boolean server;
  private final WritableColumnVector[] outputs;
  private final int[] capacities;
  private String location = null;
  private String[] strings = new String[0];
  private byte[][] binaries = new byte[0][];
  private long[] longs = new long[0];
  private int[] rowsOfLongs = new int[0];

  private Detokenizer(
      ProtectionSpec spec,
      int[] positions,
      ColumnProtection[] columns,
      Type.TypeID[] kinds,
      DataType[] sparkTypes) {
    this.spec = spec;
    this.positions = positions;
    this.columns = columns;
    this.kinds = kinds;
    this.sparkTypes = sparkTypes;
    this.current = new Tokenizer[columns.length];
    this.keys = new ColumnTokenizers(spec);
    this.server = spec.tokenMode() == io.icebergprotector.kms.token.TokenMode.SERVER;
    this.serverMasked = new boolean[columns.length];
    for (int c = 0; c < columns.length; c++) {
      serverMasked[c] = spec.serverMasks(columns[c]);
    }
    this.outputs = new WritableColumnVector[columns.length];
    this.capacities = new int[columns.length];
  }

  /**
   * A detokenizer of the top-level columns of {@code output} that the principal reads in clear or
   * masked, or null when there are none.
   *
   * @param unread fields read as NULL (never detokenized)
   */
  static Detokenizer compile(Schema output, ProtectionSpec spec, java.util.Set<Integer> unread) {
    List<Integer> positions = new ArrayList<>();
    List<ColumnProtection> columns = new ArrayList<>();
    List<Type.TypeID> kinds = new ArrayList<>();
    List<DataType> types = new ArrayList<>();
    List<Types.NestedField> fields = output.columns();
    for (int pos = 0; pos < fields.size(); pos++) {
      Types.NestedField field = fields.get(pos);
      ColumnProtection column = spec.columns().get(field.fieldId());
      if (column != null && column.detokenizes() && !unread.contains(field.fieldId())) {
        positions.add(pos);
        columns.add(column);
        kinds.add(field.type().typeId());
        types.add(org.apache.iceberg.spark.SparkSchemaUtil.convert(field.type()));
      }
    }
    if (positions.isEmpty()) {
      return null;
    }
    return new Detokenizer(
        spec,
        positions.stream().mapToInt(Integer::intValue).toArray(),
        columns.toArray(new ColumnProtection[0]),
        kinds.toArray(new Type.TypeID[0]),
        types.toArray(new DataType[0]));
  }

  /** Selects the token key versions of the file at {@code location}. */
  void open(String fileLocation, Map<String, String> footerMetadata) {
    this.location = fileLocation;
    Map<Integer, Integer> versions =
        ColumnTokenizers.parseVersions(
            footerMetadata.get(ColumnTokenizers.VERSIONS_KEY), fileLocation);
    for (int c = 0; c < columns.length; c++) {
      Integer version = versions.get(columns[c].fieldId());
      if (version == null) {
        throw new ProtectorException(
            String.format(
                "Cannot detokenize column '%s' of table %s for principal %s: data file %s records"
                    + " no token key version for it (footer key %s), so it was not written"
                    + " tokenized by the protector; rewrite it with rewrite_protected",
                columns[c].path(),
                spec.tableName(),
                spec.principal(),
                fileLocation,
                ColumnTokenizers.VERSIONS_KEY));
      }
      current[c] = keys.tokenizer(columns[c], version);
      if (server) {
        current[c].readingColumn(
            spec.tableName(), columns[c].policyPath(), kinds[c] == Type.TypeID.INTEGER);
      }
    }
  }

  /** Whether rows should be detokenized in batches ({@link #applyAll}): server token mode. */
  boolean batchesRows() {
    return server;
  }

  /** Detokenizes {@code row} in place and returns it. */
  InternalRow apply(InternalRow row) {
    for (int c = 0; c < positions.length; c++) {
      int pos = positions[c];
      if (row.isNullAt(pos)) {
        continue;
      }
      try {
        switch (kinds[c]) {
          case STRING:
            row.update(
                pos,
                UTF8String.fromString(current[c].unprotect(row.getUTF8String(pos).toString())));
            break;
          case BINARY:
            row.update(pos, current[c].unprotect(row.getBinary(pos)));
            break;
          case LONG:
            row.setLong(pos, current[c].unprotect(row.getLong(pos)));
            break;
          case INTEGER:
            row.setInt(pos, Math.toIntExact(current[c].unprotect(row.getInt(pos))));
            break;
          default:
            throw new IllegalStateException("Unexpected type " + kinds[c]);
        }
      } catch (KeyServiceException | ArithmeticException e) {
        throw failure(c, e);
      }
    }
    return row;
  }

  /**
   * Detokenizes {@code rows[0..count)} in place (rows the caller owns, e.g. copies read ahead),
   * column by column with one batch call each.
   */
  void applyAll(InternalRow[] rows, int count) {
    grow(count);
    for (int c = 0; c < positions.length; c++) {
      try {
        detokenizeRows(c, rows, count);
      } catch (KeyServiceException | ArithmeticException e) {
        throw failure(c, e);
      }
    }
  }

  private void detokenizeRows(int c, InternalRow[] rows, int count) {
    int pos = positions[c];
    switch (kinds[c]) {
      case STRING:
        for (int i = 0; i < count; i++) {
          strings[i] = rows[i].isNullAt(pos) ? null : rows[i].getUTF8String(pos).toString();
        }
        unprotect(c, strings, count);
        for (int i = 0; i < count; i++) {
          rows[i].update(pos, strings[i] == null ? null : UTF8String.fromString(strings[i]));
          strings[i] = null;
        }
        break;
      case BINARY:
        for (int i = 0; i < count; i++) {
          binaries[i] = rows[i].isNullAt(pos) ? null : rows[i].getBinary(pos);
        }
        unprotect(c, binaries, count);
        for (int i = 0; i < count; i++) {
          rows[i].update(pos, binaries[i]);
          binaries[i] = null;
        }
        break;
      case LONG:
      case INTEGER:
        boolean isInt = kinds[c] == Type.TypeID.INTEGER;
        int n = 0;
        for (int i = 0; i < count; i++) {
          if (!rows[i].isNullAt(pos)) {
            longs[n] = isInt ? rows[i].getInt(pos) : rows[i].getLong(pos);
            rowsOfLongs[n] = i;
            n += 1;
          }
        }
        unprotect(c, longs, n);
        for (int k = 0; k < n; k++) {
          if (isInt) {
            rows[rowsOfLongs[k]].setInt(pos, Math.toIntExact(longs[k]));
          } else {
            rows[rowsOfLongs[k]].setLong(pos, longs[k]);
          }
        }
        break;
      default:
        throw new IllegalStateException("Unexpected type " + kinds[c]);
    }
  }

  private void unprotect(int c, String[] values, int count) {
    current[c].unprotectAll(values, count);
    checkView(c, count);
  }

  private void unprotect(int c, byte[][] values, int count) {
    current[c].unprotectAll(values, count);
    checkView(c, count);
  }

  private void unprotect(int c, long[] values, int count) {
    current[c].unprotectAll(values, count);
    checkView(c, count);
  }

  /**
   * Server mode: the values must be the view the session's policy gives (the server masks what it
   * masks for this principal; the reader does not mask these columns again).
   */
  private void checkView(int c, int count) {
    if (!server || count == 0) {
      return;
    }
    String applied = current[c].appliedMask();
    String expected = serverMasked[c] ? columns[c].mask().spec() : null;
    boolean same =
        applied == null
            ? expected == null
            : expected != null
                && io.icebergprotector.policy.Mask.parse(applied).equals(columns[c].mask());
    if (!same) {
      throw new ProtectorException(
          String.format(
              "Cannot read column '%s' of table %s for principal %s in data file %s: the key server"
                  + " answered %s, but the session's policy makes the principal a %s reader of it;"
                  + " the key server's and the session's policies differ",
              columns[c].path(),
              spec.tableName(),
              spec.principal(),
              location,
              applied == null ? "clear values" : "values masked with " + applied,
              serverMasked[c] ? "masked (" + expected + ")" : "clear"));
    }
  }

  /** A batch with the detokenized columns replaced; valid until the next call. */
  ColumnarBatch apply(ColumnarBatch batch) {
    int numRows = batch.numRows();
    ColumnVector[] vectors = new ColumnVector[batch.numCols()];
    for (int i = 0; i < vectors.length; i++) {
      vectors[i] = batch.column(i);
    }
    grow(numRows);
    for (int c = 0; c < positions.length; c++) {
      int pos = positions[c];
      ColumnVector in = vectors[pos];
      WritableColumnVector out = output(c, numRows);
      try {
        detokenize(c, in, numRows, out);
      } catch (KeyServiceException | ArithmeticException e) {
        throw failure(c, e);
      }
      vectors[pos] = out;
    }
    return new ColumnarBatch(vectors, numRows);
  }

  private void detokenize(int c, ColumnVector in, int numRows, WritableColumnVector out) {
    switch (kinds[c]) {
      case STRING:
        for (int i = 0; i < numRows; i++) {
          strings[i] = in.isNullAt(i) ? null : in.getUTF8String(i).toString();
        }
        unprotect(c, strings, numRows);
        for (int i = 0; i < numRows; i++) {
          if (strings[i] == null) {
            out.putNull(i);
          } else {
            byte[] bytes = strings[i].getBytes(java.nio.charset.StandardCharsets.UTF_8);
            out.putByteArray(i, bytes, 0, bytes.length);
            strings[i] = null;
          }
        }
        break;
      case BINARY:
        for (int i = 0; i < numRows; i++) {
          binaries[i] = in.isNullAt(i) ? null : in.getBinary(i);
        }
        unprotect(c, binaries, numRows);
        for (int i = 0; i < numRows; i++) {
          if (binaries[i] == null) {
            out.putNull(i);
          } else {
            out.putByteArray(i, binaries[i], 0, binaries[i].length);
            binaries[i] = null;
          }
        }
        break;
      case LONG:
      case INTEGER:
        boolean isInt = kinds[c] == Type.TypeID.INTEGER;
        int n = 0;
        for (int i = 0; i < numRows; i++) {
          if (in.isNullAt(i)) {
            out.putNull(i);
          } else {
            longs[n] = isInt ? in.getInt(i) : in.getLong(i);
            rowsOfLongs[n] = i;
            n += 1;
          }
        }
        unprotect(c, longs, n);
        for (int k = 0; k < n; k++) {
          if (isInt) {
            out.putInt(rowsOfLongs[k], Math.toIntExact(longs[k]));
          } else {
            out.putLong(rowsOfLongs[k], longs[k]);
          }
        }
        break;
      default:
        throw new IllegalStateException("Unexpected type " + kinds[c]);
    }
  }

  private void grow(int numRows) {
    if (strings.length < numRows) {
      strings = new String[numRows];
      binaries = new byte[numRows][];
      longs = new long[numRows];
      rowsOfLongs = new int[numRows];
    }
  }

  private WritableColumnVector output(int c, int numRows) {
    WritableColumnVector out = outputs[c];
    if (out != null && capacities[c] >= numRows) {
      out.reset();
      return out;
    }
    if (out != null) {
      out.close();
    }
    capacities[c] = Math.max(numRows, 1);
    out = new OnHeapColumnVector(capacities[c], sparkTypes[c]);
    outputs[c] = out;
    return out;
  }

  private ProtectorException failure(int c, RuntimeException e) {
    // the token itself is never quoted; a key server's refusal names principal, key and domain
    return new ProtectorException(
        String.format(
            "Cannot detokenize column '%s' of table %s (token domain '%s') for principal %s in"
                + " data file %s: %s",
            columns[c].path(),
            spec.tableName(),
            columns[c].domain(),
            spec.principal(),
            location,
            e.getMessage()),
        e);
  }

  @Override
  public void close() {
    try {
      keys.close();
    } finally {
      for (int c = 0; c < outputs.length; c++) {
        if (outputs[c] != null) {
          outputs[c].close();
          outputs[c] = null;
        }
      }
    }
  }
}
