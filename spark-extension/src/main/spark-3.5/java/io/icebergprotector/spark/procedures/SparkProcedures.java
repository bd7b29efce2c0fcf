/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.spark.procedures;

import io.icebergprotector.spark.maintenance.ProcedureParam;
import io.icebergprotector.spark.maintenance.ProcedureResult;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.connector.catalog.TableCatalog;
import org.apache.spark.sql.connector.iceberg.catalog.Procedure;
import org.apache.spark.sql.connector.iceberg.catalog.ProcedureParameter;
import org.apache.spark.sql.types.StructType;

/**
 * Spark 3.5 version: procedures as Iceberg's {@code
 * org.apache.spark.sql.connector.iceberg.catalog.Procedure}, which Iceberg's SQL extensions parse
 * ({@code CALL}) and run; a call returns rows. Spark 4.0 has its own procedure API (see the Spark
 * 4.0 version of this class).
 */
public final class SparkProcedures {
  private SparkProcedures() {}

  /** Our own procedure. */
  public static Procedure own(CatalogProcedure procedure) {
    return new Own(procedure);
  }

  /** Iceberg's procedure {@code name} of {@code catalog}, behind {@link GuardedProcedure}. */
  public static Procedure guard(String name, Procedure delegate, TableCatalog catalog) {
    List<ProcedureParam> params = new ArrayList<>();
    for (ProcedureParameter p : delegate.parameters()) {
      params.add(new ProcedureParam(p.name(), p.dataType(), p.required()));
    }
    return new Guarded(new GuardedProcedure(name, params, catalog), delegate);
  }

  private static final class Own implements Procedure {
    private final CatalogProcedure procedure;

    Own(CatalogProcedure procedure) {
      this.procedure = procedure;
    }

    @Override
    public ProcedureParameter[] parameters() {
      return procedure.parameters().stream()
          .map(
              p ->
                  p.required()
                      ? ProcedureParameter.required(p.name(), p.type())
                      : ProcedureParameter.optional(p.name(), p.type()))
          .toArray(ProcedureParameter[]::new);
    }

    @Override
    public StructType outputType() {
      return procedure.outputType();
    }

    @Override
    public String description() {
      return procedure.description();
    }

    @Override
    public InternalRow[] call(InternalRow args) {
      return procedure.call(args);
    }
  }

  private static final class Guarded implements Procedure {
    private final GuardedProcedure guard;
    private final Procedure delegate;

    Guarded(GuardedProcedure guard, Procedure delegate) {
      this.guard = guard;
      this.delegate = delegate;
    }

    @Override
    public ProcedureParameter[] parameters() {
      return delegate.parameters();
    }

    @Override
    public StructType outputType() {
      return delegate.outputType();
    }

    @Override
    public String description() {
      return delegate.description();
    }

    @Override
    public InternalRow[] call(InternalRow args) {
      ProcedureResult result = guard.call(args);
      return result.runsDelegate() ? delegate.call(result.delegateArgs()) : result.rows();
    }
  }
}
