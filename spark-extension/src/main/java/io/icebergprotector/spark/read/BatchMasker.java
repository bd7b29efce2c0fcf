/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.spark.read;

import io.icebergprotector.spark.masks.ColumnMask;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.Schema;
import org.apache.iceberg.types.Types;
import org.apache.spark.sql.execution.vectorized.OnHeapColumnVector;
import org.apache.spark.sql.execution.vectorized.WritableColumnVector;
import org.apache.spark.sql.vectorized.ColumnVector;
import org.apache.spark.sql.vectorized.ColumnarBatch;

/**
 * Applies the vector kernels of column masks to the top-level columns of a batch: masked columns
 * are replaced by their masked copies, every other column (clear, constant NULL, metadata) passes
 * through as it is, with no copy. Each masked column is written into an on-heap vector that this
 * masker owns and reuses from batch to batch (Spark consumes a batch before asking for the next, as
 * Iceberg's own reused Arrow vectors assume). Not thread-safe: one per reader.
 */
final class BatchMasker implements AutoCloseable {
  private final int[] positions;
  private final ColumnMask[] masks;
  private final WritableColumnVector[] outputs;
  private final int[] capacities;

  private BatchMasker(int[] positions, ColumnMask[] masks) {
    this.positions = positions;
    this.masks = masks;
    this.outputs = new WritableColumnVector[masks.length];
    this.capacities = new int[masks.length];
  }

  /**
   * A masker for batches of {@code schema}'s columns, or null when none of them is masked.
   *
   * @param masks column masks by field id; only top-level fields are considered (batches are flat)
   */
  static BatchMasker compile(Schema schema, Map<Integer, ColumnMask> masks) {
    List<Types.NestedField> columns = schema.columns();
    int count = 0;
    for (Types.NestedField column : columns) {
      if (masks.containsKey(column.fieldId())) {
        count += 1;
      }
    }
    if (count == 0) {
      return null;
    }
    int[] positions = new int[count];
    ColumnMask[] selected = new ColumnMask[count];
    int next = 0;
    for (int pos = 0; pos < columns.size(); pos++) {
      ColumnMask mask = masks.get(columns.get(pos).fieldId());
      if (mask != null) {
        positions[next] = pos;
        selected[next] = mask;
        next += 1;
      }
    }
    return new BatchMasker(positions, selected);
  }

  /** A batch with the masked columns replaced; valid until the next call. */
  ColumnarBatch mask(ColumnarBatch batch) {
    int numRows = batch.numRows();
    ColumnVector[] vectors = new ColumnVector[batch.numCols()];
    for (int i = 0; i < vectors.length; i++) {
      vectors[i] = batch.column(i);
    }
    for (int i = 0; i < positions.length; i++) {
      int pos = positions[i];
      WritableColumnVector out = output(i, numRows);
      masks[i].fill(vectors[pos], numRows, out);
      vectors[pos] = out;
    }
    return new ColumnarBatch(vectors, numRows);
  }

  /** The reset output vector of mask {@code i}, grown to {@code numRows} if needed. */
  private WritableColumnVector output(int i, int numRows) {
    WritableColumnVector out = outputs[i];
    if (out != null && capacities[i] >= numRows) {
      out.reset();
      return out;
    }
    if (out != null) {
      out.close();
    }
    capacities[i] = Math.max(numRows, 1);
    out = new OnHeapColumnVector(capacities[i], masks[i].type().sparkType());
    outputs[i] = out;
    return out;
  }

  @Override
  public void close() {
    for (int i = 0; i < outputs.length; i++) {
      if (outputs[i] != null) {
        outputs[i].close();
        outputs[i] = null;
      }
    }
  }
}
