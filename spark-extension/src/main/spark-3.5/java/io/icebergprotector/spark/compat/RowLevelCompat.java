/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.spark.compat;

import org.apache.iceberg.MetadataColumns;
import org.apache.iceberg.types.Types;
import org.apache.spark.sql.types.Metadata;
import org.apache.spark.sql.types.MetadataBuilder;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

/**
 * Spark 3.5 version of what differs in row-level operations between Spark 3.5 and 4.0 (the Spark
 * 4.0 version, in src/main/spark-4.0, has the same methods; as Iceberg 1.11.0's {@code spark/v3.5}
 * and {@code spark/v4.0}). On 3.5 a copy-on-write scan reports the row lineage columns as data
 * columns so Spark carries them into the rewritten rows, and {@code _spec_id} of a position delta
 * write's metadata is required.
 */
public final class RowLevelCompat {
  private static final String METADATA_COL = "__metadata_col";

  private RowLevelCompat() {}

  /** The read schema of a copy-on-write scan: row lineage columns as data columns. */
  public static StructType copyOnWriteReadSchema(StructType schema) {
    StructField[] fields = schema.fields().clone();
    for (int i = 0; i < fields.length; i++) {
      StructField field = fields[i];
      boolean lineage =
          field.name().equals(MetadataColumns.ROW_ID.name())
              || field.name().equals(MetadataColumns.LAST_UPDATED_SEQUENCE_NUMBER.name());
      if (lineage && field.metadata().contains(METADATA_COL)) {
        Metadata metadata =
            new MetadataBuilder().withMetadata(field.metadata()).remove(METADATA_COL).build();
        fields[i] = field.copy(field.name(), field.dataType(), field.nullable(), metadata);
      }
    }
    return new StructType(fields);
  }

  /** {@code _spec_id} as a position delta write's metadata schema must have it. */
  public static Types.NestedField deltaSpecIdColumn() {
    return MetadataColumns.SPEC_ID;
  }
}
