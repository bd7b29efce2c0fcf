/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.spark.write;

import io.icebergprotector.policy.Preconditions;
import org.apache.iceberg.MetadataColumns;
import org.apache.iceberg.Schema;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.ProjectingInternalRow;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.catalyst.expressions.JoinedRow;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;

/**
 * Row lineage ({@code _row_id}, {@code _last_updated_sequence_number}) of rows whose lineage Spark
 * passes in the metadata row rather than in the row (Spark 4.0's {@code DataWriter.write(metadata,
 * row)} and {@code DeltaWriter.reinsert}; Iceberg 1.11.0's {@code ExtractRowLineage}): appended to
 * the row, null for a row without metadata (a new row). On Spark 3.5 the rows carry their lineage
 * and {@link #decorate} returns them as they are. One instance per task writer (it reuses rows).
 */
public final class MetadataRowLineage {
  private final boolean fromMetadata;
  private final StructType metadataType;
  private final GenericInternalRow lineage = new GenericInternalRow(2);
  private final JoinedRow joined = new JoinedRow();
  private int rowIdOrdinal = -1;
  private int sequenceOrdinal = -1;

  /**
   * @param writeSchema the schema of the files written
   * @param rowType the rows as Spark passes them
   * @param metadataType the metadata rows, or null to read it from each {@code
   *     ProjectingInternalRow}
   */
  public MetadataRowLineage(Schema writeSchema, StructType rowType, StructType metadataType) {
    this.fromMetadata = fromMetadata(writeSchema, rowType);
    this.metadataType = metadataType;
  }

  /**
   * Whether files of {@code writeSchema} keep lineage that rows of {@code rowType} do not carry.
   */
  public static boolean fromMetadata(Schema writeSchema, StructType rowType) {
    return writeSchema != null
        && rowType != null
        && writeSchema.findField(MetadataColumns.ROW_ID.fieldId()) != null
        && !hasRowId(rowType);
  }

  /** {@code rowType} with the lineage columns appended when they come from the metadata rows. */
  public static StructType rowType(Schema writeSchema, StructType rowType) {
    if (!fromMetadata(writeSchema, rowType)) {
      return rowType;
    }
    return rowType
        .add(MetadataColumns.ROW_ID.name(), DataTypes.LongType)
        .add(MetadataColumns.LAST_UPDATED_SEQUENCE_NUMBER.name(), DataTypes.LongType);
  }

  /** Whether {@code type} has a {@code _row_id} column. */
  public static boolean hasRowId(StructType type) {
    return type.exists(f -> f.name().equals(MetadataColumns.ROW_ID.name()));
  }

  /** {@code row}, with the lineage of {@code metadata} appended if the files keep it. */
  public InternalRow decorate(InternalRow metadata, InternalRow row) {
    if (!fromMetadata) {
      return row;
    }
    if (metadata == null) {
      lineage.setNullAt(0);
      lineage.setNullAt(1);
    } else {
      if (rowIdOrdinal < 0) {
        findOrdinals(metadata);
      }
      copy(metadata, rowIdOrdinal, 0);
      copy(metadata, sequenceOrdinal, 1);
    }
    return joined.apply(row, lineage);
  }

  private void copy(InternalRow metadata, int from, int to) {
    if (metadata.isNullAt(from)) {
      lineage.setNullAt(to);
    } else {
      lineage.setLong(to, metadata.getLong(from));
    }
  }

  private void findOrdinals(InternalRow metadata) {
    StructType type = metadataType;
    if (type == null && metadata instanceof ProjectingInternalRow) {
      type = ((ProjectingInternalRow) metadata).schema();
    }
    Preconditions.checkArgument(
        type != null, "Cannot read row lineage: unknown metadata row %s", metadata.getClass());
    String[] names = type.fieldNames();
    for (int i = 0; i < names.length; i++) {
      if (names[i].equals(MetadataColumns.ROW_ID.name())) {
        rowIdOrdinal = i;
      } else if (names[i].equals(MetadataColumns.LAST_UPDATED_SEQUENCE_NUMBER.name())) {
        sequenceOrdinal = i;
      }
    }
    Preconditions.checkArgument(
        rowIdOrdinal >= 0 && sequenceOrdinal >= 0,
        "Cannot read row lineage: metadata row has no %s and %s: %s",
        MetadataColumns.ROW_ID.name(),
        MetadataColumns.LAST_UPDATED_SEQUENCE_NUMBER.name(),
        type);
  }
}
