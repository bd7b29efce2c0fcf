/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.spark.rowlevel;

import static io.icebergprotector.policy.Preconditions.checkArgument;

import io.icebergprotector.spark.compat.BranchWriteConf;
import io.icebergprotector.spark.compat.RowLevelCompat;
import io.icebergprotector.spark.core.ProtectionSpec;
import io.icebergprotector.spark.core.RecordedColumns;
import io.icebergprotector.spark.read.ProtectedScan;
import io.icebergprotector.spark.write.MetadataRowLineage;
import io.icebergprotector.spark.write.ProtectedWrite;
import io.icebergprotector.spark.write.ProtectedWriteBuilder;
import org.apache.iceberg.IsolationLevel;
import org.apache.iceberg.MetadataColumns;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableUtil;
import org.apache.iceberg.spark.SparkSchemaUtil;
import org.apache.iceberg.spark.SparkUtil;
import org.apache.iceberg.types.TypeUtil;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.connector.write.DeltaWrite;
import org.apache.spark.sql.connector.write.DeltaWriteBuilder;
import org.apache.spark.sql.connector.write.LogicalWriteInfo;
import org.apache.spark.sql.connector.write.RowLevelOperation.Command;
import org.apache.spark.sql.types.StructType;

/**
 * Builds the write of a merge-on-read operation (Iceberg 1.11.0's {@code
 * SparkPositionDeltaWriteBuilder}): validates the row id and metadata columns Spark passes, and,
 * when the operation writes rows (UPDATE, MERGE with updates or inserts), runs every check of a
 * protected data write before any task starts.
 */
final class ProtectedPositionDeltaWriteBuilder implements DeltaWriteBuilder {
  private static final Schema ROW_ID_SCHEMA =
      new Schema(MetadataColumns.FILE_PATH, MetadataColumns.ROW_POSITION);

  private final SparkSession spark;
  private final RowLevelTable protectedTable;
  private final Table table;
  private final Command command;
  private final ProtectedScan scan;
  private final IsolationLevel isolationLevel;
  private final BranchWriteConf writeConf;
  private final LogicalWriteInfo info;

  ProtectedPositionDeltaWriteBuilder(
      SparkSession spark,
      RowLevelTable protectedTable,
      Command command,
      ProtectedScan scan,
      IsolationLevel isolationLevel,
      LogicalWriteInfo info) {
    this.spark = spark;
    this.protectedTable = protectedTable;
    this.table = protectedTable.table();
    this.command = command;
    this.scan = scan;
    this.isolationLevel = isolationLevel;
    this.writeConf = new BranchWriteConf(spark, table, protectedTable.branch(), info.options());
    this.info = info;
  }

  @Override
  public DeltaWrite build() {
    validateRowIdSchema();
    validateMetadataSchema();
    SparkUtil.validatePartitionTransforms(table.spec());
    ProtectionSpec spec = protectedTable.protectionFor(spark);
    RowLevelAccess.requireWriter(spec, command.name());
    Schema dataSchema = dataSchema();
    if (dataSchema != null) {
      ProtectedWriteBuilder.checkDataWrite(table, spec, info.schema());
      RecordedColumns.record(table, spec);
      spec = spec.withWriteGeneration(ProtectedWrite.keyGeneration(spec));
    }
    return new ProtectedPositionDeltaWrite(
        spark, table, command, scan, isolationLevel, writeConf, info, dataSchema, spec);
  }

  private Schema dataSchema() {
    StructType type = info.schema();
    if (type == null || type.isEmpty()) {
      return null;
    }
    // Spark 3.5 passes row lineage in the rows, Spark 4.0 in the metadata rows
    boolean lineageInRows = MetadataRowLineage.hasRowId(type);
    Schema writeSchema =
        TableUtil.supportsRowLineage(table) && lineageInRows
            ? MetadataColumns.schemaWithRowLineage(table.schema())
            : table.schema();
    Schema dataSchema = SparkSchemaUtil.convert(writeSchema, type);
    validate("data", writeSchema, dataSchema);
    if (!lineageInRows && MetadataRowLineage.hasRowId(info.metadataSchema().get())) {
      dataSchema = MetadataColumns.schemaWithRowLineage(dataSchema);
    }
    return dataSchema;
  }

  private void validateRowIdSchema() {
    checkArgument(!info.rowIdSchema().isEmpty(), "Row ID schema must be set");
    Schema rowIdSchema = SparkSchemaUtil.convert(ROW_ID_SCHEMA, info.rowIdSchema().get());
    validate("row ID", ROW_ID_SCHEMA, rowIdSchema);
  }

  private void validateMetadataSchema() {
    checkArgument(!info.metadataSchema().isEmpty(), "Metadata schema must be set");
    Schema expected =
        new Schema(
            RowLevelCompat.deltaSpecIdColumn(),
            MetadataColumns.metadataColumn(table, MetadataColumns.PARTITION_COLUMN_NAME));
    if (TableUtil.supportsRowLineage(table)) {
      expected = MetadataColumns.schemaWithRowLineage(expected);
    }
    Schema actual = SparkSchemaUtil.convert(expected, info.metadataSchema().get());
    validate("metadata", expected, actual);
  }

  private void validate(String context, Schema expected, Schema actual) {
    TypeUtil.validateSchema(
        context, expected, actual, writeConf.checkNullability(), writeConf.checkOrdering());
  }
}
