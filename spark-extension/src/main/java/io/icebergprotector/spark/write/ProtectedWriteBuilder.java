/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.spark.write;

import static io.icebergprotector.policy.Preconditions.checkArgument;
import static io.icebergprotector.policy.Preconditions.checkState;

import io.icebergprotector.spark.compat.BranchWriteConf;
import io.icebergprotector.spark.core.ExpressionRedactor;
import io.icebergprotector.spark.core.ProtectedLayout;
import io.icebergprotector.spark.core.ProtectionSpec;
import io.icebergprotector.spark.core.RecordedColumns;
import io.icebergprotector.spark.read.ProtectedCopyOnWriteScan;
import java.util.function.Function;
import org.apache.iceberg.IsolationLevel;
import org.apache.iceberg.MetadataColumns;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableUtil;
import org.apache.iceberg.UpdateSchema;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.spark.SparkSchemaUtil;
import org.apache.iceberg.spark.SparkV2Filters;
import org.apache.iceberg.spark.SparkWriteRequirements;
import org.apache.iceberg.types.TypeUtil;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.connector.expressions.filter.Predicate;
import org.apache.spark.sql.connector.write.LogicalWriteInfo;
import org.apache.spark.sql.connector.write.RowLevelOperation.Command;
import org.apache.spark.sql.connector.write.SupportsDynamicOverwrite;
import org.apache.spark.sql.connector.write.SupportsOverwriteV2;
import org.apache.spark.sql.connector.write.Write;
import org.apache.spark.sql.connector.write.WriteBuilder;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;

/**
 * Write builder of a protected table. It supports what Iceberg's batch writes support (append,
 * overwrite by filter, truncate, dynamic partition overwrite, schema merge, and the file
 * replacement of copy-on-write DELETE, UPDATE and MERGE) and always writes through the protected
 * Parquet path.
 */
public class ProtectedWriteBuilder
    implements WriteBuilder, SupportsDynamicOverwrite, SupportsOverwriteV2 {
  private final SparkSession spark;
  private final Table table;
  private final String branch;
  private final LogicalWriteInfo info;
  private final BranchWriteConf writeConf;
  private final Function<Schema, ProtectionSpec> resolver;
  private Expression overwriteExpr;
  private boolean overwriteDynamic;
  private boolean overwriteFiles;
  private ProtectedCopyOnWriteScan copyOnWriteScan;
  private Command copyOnWriteCommand;
  private IsolationLevel copyOnWriteIsolationLevel;

  public ProtectedWriteBuilder(
      SparkSession spark,
      Table table,
      String branch,
      LogicalWriteInfo info,
      Function<Schema, ProtectionSpec> resolver) {
    this.spark = spark;
    this.table = table;
    this.branch = branch;
    this.info = info;
    this.writeConf = new BranchWriteConf(spark, table, branch, info.options());
    this.resolver = resolver;
  }

  /**
   * The write of a copy-on-write DELETE, UPDATE or MERGE: the rows written replace the files {@code
   * scan} read (Iceberg's {@code SparkWriteBuilder.overwriteFiles}).
   *
   * @param scan the operation's scan, or null when Spark replaced it with an empty relation
   */
  public WriteBuilder overwriteFiles(
      ProtectedCopyOnWriteScan scan, Command command, IsolationLevel isolationLevel) {
    checkState(
        overwriteExpr == null && !overwriteDynamic,
        "Cannot overwrite individual files and by filter or dynamically");
    this.overwriteFiles = true;
    this.copyOnWriteScan = scan;
    this.copyOnWriteCommand = command;
    this.copyOnWriteIsolationLevel = isolationLevel;
    return this;
  }

  @Override
  public WriteBuilder overwriteDynamicPartitions() {
    checkState(!overwriteFiles, "Cannot overwrite individual files and dynamically");
    if (overwriteExpr != null) {
      throw new IllegalStateException(
          "Cannot overwrite dynamically and by filter: " + redact(overwriteExpr));
    }
    this.overwriteDynamic = true;
    return this;
  }

  @Override
  public WriteBuilder overwrite(Predicate[] predicates) {
    checkState(!overwriteFiles, "Cannot overwrite individual files and using filters");
    Expression expr = SparkV2Filters.convert(predicates);
    if (expr == null) {
      // names the columns only: a predicate's text holds its literals
      throw new IllegalArgumentException(
          "Cannot overwrite "
              + table.name()
              + ": the filter on column(s) "
              + java.util.Arrays.stream(predicates)
                  .flatMap(p -> java.util.Arrays.stream(p.references()))
                  .map(org.apache.spark.sql.connector.expressions.NamedReference::describe)
                  .distinct()
                  .collect(java.util.stream.Collectors.toList())
              + " cannot be converted to an Iceberg expression");
    }
    if (expr == Expressions.alwaysTrue() && "dynamic".equals(writeConf.overwriteMode())) {
      this.overwriteDynamic = true;
    } else {
      if (overwriteDynamic) {
        throw new IllegalStateException(
            "Cannot overwrite dynamically and by filter: " + redact(expr));
      }
      this.overwriteExpr = expr;
    }
    return this;
  }

  private String redact(Expression expr) {
    return ExpressionRedactor.forSpec(resolver.apply(table.schema()), table.schema()).redact(expr);
  }

  @Override
  public Write build() {
    StructType dsSchema = info.schema();
    RewriteRequest rewrite = RewriteRequest.fromOptions(info.options());
    // copy-on-write keeps the row lineage of the rows it copies (as Iceberg's SparkWriteBuilder)
    boolean rowLineage = overwriteFiles && TableUtil.supportsRowLineage(table);
    StructType writeType = rowLineage ? withRowLineage(dsSchema) : dsSchema;
    Schema writeSchema = validateOrMergeWriteSchema(writeType, rowLineage);
    ProtectionSpec spec = resolver.apply(table.schema());
    if (rewrite != null && rewrite.decrypt()) {
      spec = spec.withoutRetired();
    }
    checkDataWrite(table, spec, dsSchema);
    if (rewrite == null || !rewrite.decrypt()) {
      // Every write that encrypts records what it protects, a rewrite of plaintext files too; a
      // decrypt-rewrite records after its commit, once the retired columns are really gone.
      RecordedColumns.record(table, spec);
    }
    ProtectedWrite.Mode mode;
    if (rewrite != null) {
      checkArgument(
          overwriteExpr == null && !overwriteDynamic && !overwriteFiles,
          "A protected rewrite must be written as an append");
      mode = ProtectedWrite.Mode.REWRITE;
    } else if (overwriteFiles) {
      mode = ProtectedWrite.Mode.COPY_ON_WRITE;
    } else {
      mode =
          overwriteExpr != null
              ? ProtectedWrite.Mode.OVERWRITE_BY_FILTER
              : overwriteDynamic
                  ? ProtectedWrite.Mode.DYNAMIC_OVERWRITE
                  : ProtectedWrite.Mode.APPEND;
    }
    SparkWriteRequirements requirements =
        overwriteFiles
            ? writeConf.copyOnWriteRequirements(copyOnWriteCommand)
            : writeConf.writeRequirements();
    return new ProtectedWrite(
        spark,
        table,
        writeConf,
        info,
        writeSchema,
        dsSchema,
        spec,
        mode,
        overwriteExpr,
        rewrite,
        requirements,
        new ProtectedWrite.CopyOnWrite(copyOnWriteScan, copyOnWriteIsolationLevel));
  }

  /**
   * The checks of every write of protected data files, on the driver before any task runs: the
   * policy's columns exist and none is retired, a strict entry decided about every column, no
   * protected column partitions or orders rows, and the principal may wrap every key the files
   * need.
   *
   * @param dsSchema the rows written (row lineage and other metadata columns are not checked)
   */
  public static void checkDataWrite(Table table, ProtectionSpec spec, StructType dsSchema) {
    spec.checkWritable(table.schema());
    spec.checkStrict(withoutMetadataColumns(dsSchema));
    spec.checkPartitioning(table.spec(), table.schema());
    // a sort order set through another engine or the Java API: rows would show their rank order
    ProtectedLayout.checkSortOrder(spec, table.sortOrder(), table.schema(), table.name());
    ProtectedWrite.checkWriter(spec);
  }

  private static StructType withoutMetadataColumns(StructType schema) {
    return new StructType(
        java.util.Arrays.stream(schema.fields())
            .filter(f -> !MetadataColumns.isMetadataColumn(f.name()))
            .toArray(org.apache.spark.sql.types.StructField[]::new));
  }

  private static StructType withRowLineage(StructType dsSchema) {
    if (dsSchema.exists(f -> f.name().equals(MetadataColumns.ROW_ID.name()))) {
      return dsSchema;
    }
    return dsSchema
        .add(MetadataColumns.ROW_ID.name(), DataTypes.LongType)
        .add(MetadataColumns.LAST_UPDATED_SEQUENCE_NUMBER.name(), DataTypes.LongType);
  }

  private Schema validateOrMergeWriteSchema(StructType dsSchema, boolean rowLineage) {
    boolean caseSensitive = writeConf.caseSensitive();
    if (writeConf.mergeSchema()) {
      Schema incoming =
          SparkSchemaUtil.convertWithFreshIds(table.schema(), dsSchema, caseSensitive);
      UpdateSchema update =
          table.updateSchema().caseSensitive(caseSensitive).unionByNameWith(incoming);
      Schema merged = update.apply();
      if (rowLineage) {
        merged = TypeUtil.join(merged, MetadataColumns.schemaWithRowLineage(table.schema()));
      }
      Schema writeSchema = SparkSchemaUtil.convert(merged, dsSchema, caseSensitive);
      TypeUtil.validateWriteSchema(
          merged, writeSchema, writeConf.checkNullability(), writeConf.checkOrdering());
      update.commit();
      return writeSchema;
    }
    Schema tableSchema =
        rowLineage ? MetadataColumns.schemaWithRowLineage(table.schema()) : table.schema();
    Schema writeSchema = SparkSchemaUtil.convert(tableSchema, dsSchema, caseSensitive);
    TypeUtil.validateWriteSchema(
        table.schema(), writeSchema, writeConf.checkNullability(), writeConf.checkOrdering());
    return writeSchema;
  }
}
