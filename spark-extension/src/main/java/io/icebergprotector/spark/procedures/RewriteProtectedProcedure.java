/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.spark.procedures;

import io.icebergprotector.spark.actions.RewriteProtected;
import io.icebergprotector.spark.maintenance.ProcedureParam;
import io.icebergprotector.spark.table.ProtectingCatalog;
import java.util.List;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.Metadata;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

/**
 * {@code CALL <catalog>.system.rewrite_protected(table => 'db.t', min_key_version => 3, decrypt =>
 * false, force => false)}: the {@link RewriteProtected} action as a Spark procedure.
 */
public final class RewriteProtectedProcedure extends CatalogProcedure {
  public static final String NAME = "rewrite_protected";

  private static final List<ProcedureParam> PARAMETERS =
      List.of(
          ProcedureParam.required("table", DataTypes.StringType),
          ProcedureParam.optional("min_key_version", DataTypes.IntegerType),
          ProcedureParam.optional("decrypt", DataTypes.BooleanType),
          ProcedureParam.optional("force", DataTypes.BooleanType));

  private static final StructType OUTPUT =
      new StructType(
          new StructField[] {
            new StructField(
                "rewritten_data_files_count", DataTypes.IntegerType, false, Metadata.empty()),
            new StructField("rewritten_bytes_count", DataTypes.LongType, false, Metadata.empty()),
            new StructField(
                "added_data_files_count", DataTypes.IntegerType, false, Metadata.empty()),
            new StructField("added_bytes_count", DataTypes.LongType, false, Metadata.empty())
          });

  public RewriteProtectedProcedure(ProtectingCatalog catalog) {
    super(
        catalog,
        NAME,
        PARAMETERS,
        OUTPUT,
        "Rewrites the files of a protected table whose encryption is out of date");
  }

  @Override
  InternalRow[] call(InternalRow args) {
    String table = args.getUTF8String(0).toString();
    String qualified =
        table
                .toLowerCase(java.util.Locale.ROOT)
                .startsWith(catalog.catalogName().toLowerCase(java.util.Locale.ROOT) + ".")
            ? table
            : catalog.catalogName() + "." + table;
    RewriteProtected action =
        RewriteProtected.of(SparkSession.active(), qualified)
            .minKeyVersion(args.isNullAt(1) ? 0 : args.getInt(1))
            .decrypt(!args.isNullAt(2) && args.getBoolean(2))
            .force(!args.isNullAt(3) && args.getBoolean(3));
    RewriteProtected.Result result = action.execute();
    return new InternalRow[] {
      new GenericInternalRow(
          new Object[] {
            result.rewrittenFiles(),
            result.rewrittenBytes(),
            result.addedFiles(),
            result.addedBytes()
          })
    };
  }
}
