/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.spark.compat;

import org.apache.iceberg.MetadataColumns;
import org.apache.iceberg.types.Types;
import org.apache.spark.sql.types.StructType;

/**
 * Spark 4.0 and 4.1 version of what differs in row-level operations between Spark 3.5 and 4.0 (the
 * Spark 3.5 version, in src/main/spark-3.5, has the same methods; as Iceberg 1.11.0's {@code
 * spark/v3.5} and {@code spark/v4.0}). Spark 4.0 passes the row lineage of a rewritten row in its
 * metadata row ({@code DataWriter.write(metadata, row)}, {@code DeltaWriter.reinsert}), so a
 * copy-on-write scan keeps the lineage columns as metadata columns; and it makes the metadata
 * columns of a position delta write nullable, {@code _spec_id} included.
 */
public final class RowLevelCompat {
  private RowLevelCompat() {}

  /** The read schema of a copy-on-write scan: unchanged (row lineage stays metadata). */
  public static StructType copyOnWriteReadSchema(StructType schema) {
    return schema;
  }

  /** {@code _spec_id} as a position delta write's metadata schema must have it: optional. */
  public static Types.NestedField deltaSpecIdColumn() {
    return Types.NestedField.optional(
        MetadataColumns.SPEC_ID_COLUMN_ID,
        MetadataColumns.SPEC_ID.name(),
        Types.IntegerType.get(),
        MetadataColumns.SPEC_ID_COLUMN_DOC);
  }
}
