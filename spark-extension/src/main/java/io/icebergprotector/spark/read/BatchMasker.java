package io.icebergprotector.spark.read;

import io.icebergprotector.spark.read.VectorMasks.VectorMask;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.Schema;
import org.apache.iceberg.types.Types;
import org.apache.spark.sql.vectorized.ColumnVector;
import org.apache.spark.sql.vectorized.ColumnarBatch;

/**
 * Applies vector masks to the top-level columns of a batch: masked columns are replaced by their
 * masked copies, every other column (clear, constant NULL, metadata) passes through as it is, with
 * no copy.
 */
final class BatchMasker implements AutoCloseable {
  private final int[] positions;
  private final VectorMask[] masks;

  private BatchMasker(int[] positions, VectorMask[] masks) {
    this.positions = positions;
    this.masks = masks;
  }

  /**
   * A masker for batches of {@code schema}'s columns, or null when none of them is masked.
   *
   * @param masks vector masks by field id; only top-level fields are considered (batches are flat)
   */
  static BatchMasker compile(Schema schema, Map<Integer, VectorMask> masks) {
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
    VectorMask[] selected = new VectorMask[count];
    int next = 0;
    for (int pos = 0; pos < columns.size(); pos++) {
      VectorMask mask = masks.get(columns.get(pos).fieldId());
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
      vectors[pos] = masks[i].apply(vectors[pos], numRows);
    }
    return new ColumnarBatch(vectors, numRows);
  }

  @Override
  public void close() {
    for (VectorMask mask : masks) {
      mask.close();
    }
  }
}
