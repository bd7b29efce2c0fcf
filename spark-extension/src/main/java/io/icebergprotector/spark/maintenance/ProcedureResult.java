/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.spark.maintenance;

import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.types.StructType;

/**
 * What a guarded procedure call comes to: either the wrapped (Iceberg) procedure runs with {@link
 * #delegateArgs}, or the protector answered itself with {@link #rows} of {@link #schema}. Spark 3.5
 * procedures return rows and Spark 4.0 procedures return scans, so {@code SparkProcedures}
 * (src/main/spark-*) turns this into the version's result.
 */
public final class ProcedureResult {
  private final InternalRow delegateArgs;
  private final StructType schema;
  private final InternalRow[] rows;

  private ProcedureResult(InternalRow delegateArgs, StructType schema, InternalRow[] rows) {
    this.delegateArgs = delegateArgs;
    this.schema = schema;
    this.rows = rows;
  }

  /** Run the wrapped procedure with {@code args}. */
  public static ProcedureResult delegate(InternalRow args) {
    return new ProcedureResult(args, null, null);
  }

  /** The call's result is {@code rows}, of {@code schema}. */
  public static ProcedureResult rows(StructType schema, InternalRow[] rows) {
    return new ProcedureResult(null, schema, rows.clone());
  }

  public boolean runsDelegate() {
    return delegateArgs != null;
  }

  /** The arguments for the wrapped procedure; only when {@link #runsDelegate}. */
  public InternalRow delegateArgs() {
    return delegateArgs;
  }

  public StructType schema() {
    return schema;
  }

  public InternalRow[] rows() {
    return rows.clone();
  }
}
