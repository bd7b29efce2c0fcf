/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.spark.read;

import java.util.List;
import org.apache.iceberg.MetadataColumns;
import org.apache.iceberg.data.DeleteFilter;
import org.apache.iceberg.spark.data.vectorized.ColumnVectorWithFilter;
import org.apache.iceberg.spark.data.vectorized.ColumnarBatchUtil;
import org.apache.iceberg.spark.data.vectorized.UpdatableDeletedColumnVector;
import org.apache.iceberg.types.Types;
import org.apache.iceberg.util.Pair;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.vectorized.ColumnVector;
import org.apache.spark.sql.vectorized.ColumnarBatch;

/**
 * Applies a data file's row-level deletes to its columnar batches, as Iceberg's vectorized Spark
 * reader does (1.11.0 {@code BaseBatchReader.BatchDeleteFilter}, see FORKS.md): deleted rows are
 * hidden behind a row-id mapping over the unchanged vectors, or flagged in {@code _deleted} when
 * the scan asks for it. The batch's {@code _pos} vector gives each row's position in the file.
 */
final class BatchDeletes {
  private final DeleteFilter<InternalRow> deletes;
  private final boolean hasIsDeletedColumn;
  private final int positionIndex;

  BatchDeletes(DeleteFilter<InternalRow> deletes) {
    this.deletes = deletes;
    List<Types.NestedField> columns = deletes.requiredSchema().columns();
    int position = -1;
    boolean isDeleted = false;
    for (int i = 0; i < columns.size(); i++) {
      int id = columns.get(i).fieldId();
      if (id == MetadataColumns.ROW_POSITION.fieldId()) {
        position = i;
      } else if (id == MetadataColumns.IS_DELETED.fieldId()) {
        isDeleted = true;
      }
    }
    this.positionIndex = position;
    this.hasIsDeletedColumn = isDeleted;
  }

  ColumnarBatch apply(ColumnarBatch batch) {
    if (!hasIsDeletedColumn && !deletes.hasPosDeletes() && !deletes.hasEqDeletes()) {
      return batch;
    }
    ColumnVector[] vectors = new ColumnVector[batch.numCols()];
    for (int i = 0; i < vectors.length; i++) {
      vectors[i] = batch.column(i);
    }
    int liveRows = batch.numRows();
    long firstPosition =
        positionIndex < 0 || liveRows == 0 ? -1 : vectors[positionIndex].getLong(0);
    if (hasIsDeletedColumn) {
      boolean[] isDeleted =
          ColumnarBatchUtil.buildIsDeleted(vectors, deletes, firstPosition, liveRows);
      for (ColumnVector vector : vectors) {
        if (vector instanceof UpdatableDeletedColumnVector) {
          ((UpdatableDeletedColumnVector) vector).setValue(isDeleted);
        }
      }
    } else {
      Pair<int[], Integer> mapping =
          ColumnarBatchUtil.buildRowIdMapping(vectors, deletes, firstPosition, liveRows);
      if (mapping != null) {
        int[] rowIds = mapping.first();
        liveRows = mapping.second();
        for (int i = 0; i < vectors.length; i++) {
          vectors[i] = new ColumnVectorWithFilter(vectors[i], rowIds);
        }
      }
    }
    if (deletes.hasEqDeletes()) {
      vectors = ColumnarBatchUtil.removeExtraColumns(deletes, vectors);
    }
    ColumnarBatch output = new ColumnarBatch(vectors);
    output.setNumRows(liveRows);
    return output;
  }
}
