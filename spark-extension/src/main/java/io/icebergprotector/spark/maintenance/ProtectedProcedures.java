/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.spark.maintenance;

import static io.icebergprotector.policy.Preconditions.checkState;

import io.icebergprotector.spark.table.ProtectedTable;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.apache.iceberg.StatisticsFile;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.catalyst.util.ArrayData;
import org.apache.spark.sql.connector.catalog.Identifier;
import org.apache.spark.sql.connector.catalog.TableCatalog;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.Metadata;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * Iceberg's procedures on a protected table, once the guard let them through (the principal is a
 * writer of the table for every procedure that changes it):
 *
 * <ul>
 *   <li>{@code rewrite_data_files}: Iceberg's procedure and action, prepared by {@link
 *       ProtectedCompaction} (access, orderings, the {@code where} condition), reading and writing
 *       through the protected paths.
 *   <li>{@code compute_table_stats}: {@link ProtectedTableStats}, for unprotected columns only.
 *   <li>every other procedure: Iceberg's own. The guard refuses those that import plaintext ({@code
 *       add_files}, {@code migrate}, {@code snapshot}) and {@code create_changelog_view}.
 * </ul>
 */
public final class ProtectedProcedures {
  /** The result of Iceberg's {@code compute_table_stats} (1.11.0). */
  private static final StructType STATS_OUTPUT =
      new StructType(
          new StructField[] {
            new StructField("statistics_file", DataTypes.StringType, true, Metadata.empty())
          });

  private ProtectedProcedures() {}

  /**
   * Whether {@link #call} checks who may run procedure {@code name} itself (writer role and column
   * access in one refusal that names both), instead of the guard's writer check.
   */
  public static boolean checksAccess(String name) {
    return name.equalsIgnoreCase("rewrite_data_files");
  }

  /**
   * Calls procedure {@code name} of {@code catalogName} whose {@code table} argument is the
   * protected table {@code table}, loaded through {@code catalog} as {@code ident}; {@code
   * parameters} are those of Iceberg's procedure.
   */
  public static ProcedureResult call(
      String name,
      List<ProcedureParam> parameters,
      InternalRow args,
      SparkSession spark,
      String catalogName,
      TableCatalog catalog,
      Identifier ident,
      ProtectedTable table,
      String displayName) {
    String operation = "CALL " + catalogName + ".system." + name;
    switch (name.toLowerCase(Locale.ROOT)) {
      case "rewrite_data_files":
        {
          Arguments arguments = new Arguments(parameters, args);
          String where =
              ProtectedCompaction.prepare(
                  spark,
                  table,
                  displayName,
                  operation,
                  arguments.string("strategy"),
                  arguments.string("sort_order"),
                  arguments.string("where"));
          return ProcedureResult.delegate(arguments.withString("where", where));
        }
      case "compute_table_stats":
        {
          Arguments arguments = new Arguments(parameters, args);
          ProtectedTableStats stats =
              new ProtectedTableStats(spark, table, catalog, ident, displayName);
          Long snapshotId = arguments.longValue("snapshot_id");
          if (snapshotId != null) {
            stats.snapshot(snapshotId);
          }
          List<String> columns = arguments.strings("columns");
          if (columns != null) {
            stats.columns(columns);
          }
          StatisticsFile file = stats.execute();
          return ProcedureResult.rows(
              STATS_OUTPUT,
              file == null
                  ? new InternalRow[0]
                  : new InternalRow[] {
                    new GenericInternalRow(new Object[] {UTF8String.fromString(file.path())})
                  });
        }
      default:
        return ProcedureResult.delegate(args);
    }
  }

  /** A procedure's arguments by parameter name. */
  private static final class Arguments {
    private final List<ProcedureParam> parameters;
    private final InternalRow row;

    Arguments(List<ProcedureParam> parameters, InternalRow row) {
      this.parameters = parameters;
      this.row = row;
    }

    private int index(String name) {
      int i = ProcedureParam.indexOf(parameters, name);
      checkState(i >= 0, "Procedure has no parameter %s", name);
      return i;
    }

    String string(String name) {
      int i = index(name);
      return row.isNullAt(i) ? null : row.getUTF8String(i).toString();
    }

    Long longValue(String name) {
      int i = index(name);
      return row.isNullAt(i) ? null : row.getLong(i);
    }

    List<String> strings(String name) {
      int i = index(name);
      if (row.isNullAt(i)) {
        return null;
      }
      ArrayData array = row.getArray(i);
      List<String> values = new ArrayList<>();
      for (int k = 0; k < array.numElements(); k++) {
        values.add(array.isNullAt(k) ? null : array.getUTF8String(k).toString());
      }
      return values;
    }

    /** A copy of the arguments with {@code name} set to {@code value} (null: not given). */
    InternalRow withString(String name, String value) {
      Object[] values = new Object[parameters.size()];
      for (int i = 0; i < values.length; i++) {
        values[i] = row.isNullAt(i) ? null : row.get(i, parameters.get(i).type());
      }
      values[index(name)] = value == null ? null : UTF8String.fromString(value);
      return new GenericInternalRow(values);
    }
  }
}
