/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.spark.procedures;

import io.icebergprotector.spark.maintenance.ProcedureParam;
import io.icebergprotector.spark.maintenance.ProcedureResult;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.connector.catalog.TableCatalog;
import org.apache.spark.sql.connector.catalog.procedures.BoundProcedure;
import org.apache.spark.sql.connector.catalog.procedures.ProcedureParameter;
import org.apache.spark.sql.connector.catalog.procedures.UnboundProcedure;
import org.apache.spark.sql.connector.read.LocalScan;
import org.apache.spark.sql.connector.read.Scan;
import org.apache.spark.sql.types.StructType;

/**
 * Spark 4.0 and 4.1 version: procedures as Spark's own {@link UnboundProcedure}, bound to the
 * call's argument types, whose call returns scans (here one {@link LocalScan} of rows, as Iceberg's
 * procedures do). The Spark 3.5 version goes through Iceberg's procedure API.
 */
public final class SparkProcedures {
  private SparkProcedures() {}

  /** Our own procedure. */
  public static UnboundProcedure own(CatalogProcedure procedure) {
    return new Own(procedure);
  }

  /** Iceberg's procedure {@code name} of {@code catalog}, behind {@link GuardedProcedure}. */
  public static UnboundProcedure guard(
      String name, UnboundProcedure delegate, TableCatalog catalog) {
    return new Guarded(name, delegate, catalog);
  }

  private static Iterator<Scan> rows(StructType schema, InternalRow[] rows) {
    return List.<Scan>of(new Rows(schema, rows)).iterator();
  }

  /** A procedure's result rows. */
  private static final class Rows implements LocalScan {
    private final StructType schema;
    private final InternalRow[] rows;

    Rows(StructType schema, InternalRow[] rows) {
      this.schema = schema;
      this.rows = rows.clone();
    }

    @Override
    public StructType readSchema() {
      return schema;
    }

    @Override
    public InternalRow[] rows() {
      return rows.clone();
    }
  }

  private static final class Own implements UnboundProcedure, BoundProcedure {
    private final CatalogProcedure procedure;

    Own(CatalogProcedure procedure) {
      this.procedure = procedure;
    }

    @Override
    public String name() {
      return procedure.name();
    }

    @Override
    public String description() {
      return procedure.description();
    }

    @Override
    public BoundProcedure bind(StructType inputType) {
      return this;
    }

    @Override
    public ProcedureParameter[] parameters() {
      return procedure.parameters().stream()
          .map(
              p ->
                  p.required()
                      ? ProcedureParameter.in(p.name(), p.type()).build()
                      : ProcedureParameter.in(p.name(), p.type()).defaultValue("NULL").build())
          .toArray(ProcedureParameter[]::new);
    }

    @Override
    public boolean isDeterministic() {
      return false;
    }

    @Override
    public Iterator<Scan> call(InternalRow args) {
      return rows(procedure.outputType(), procedure.call(args));
    }
  }

  private static final class Guarded implements UnboundProcedure {
    private final String name;
    private final UnboundProcedure delegate;
    private final TableCatalog catalog;

    Guarded(String name, UnboundProcedure delegate, TableCatalog catalog) {
      this.name = name;
      this.delegate = delegate;
      this.catalog = catalog;
    }

    @Override
    public String name() {
      return delegate.name();
    }

    @Override
    public String description() {
      return delegate.description();
    }

    @Override
    public BoundProcedure bind(StructType inputType) {
      BoundProcedure bound = delegate.bind(inputType);
      List<ProcedureParam> params = new ArrayList<>();
      for (ProcedureParameter p : bound.parameters()) {
        params.add(new ProcedureParam(p.name(), p.dataType(), p.defaultValue() == null));
      }
      return new GuardedBound(new GuardedProcedure(name, params, catalog), bound);
    }
  }

  private static final class GuardedBound implements BoundProcedure {
    private final GuardedProcedure guard;
    private final BoundProcedure delegate;

    GuardedBound(GuardedProcedure guard, BoundProcedure delegate) {
      this.guard = guard;
      this.delegate = delegate;
    }

    @Override
    public String name() {
      return delegate.name();
    }

    @Override
    public String description() {
      return delegate.description();
    }

    @Override
    public ProcedureParameter[] parameters() {
      return delegate.parameters();
    }

    @Override
    public boolean isDeterministic() {
      return delegate.isDeterministic();
    }

    @Override
    public Iterator<Scan> call(InternalRow args) {
      ProcedureResult result = guard.call(args);
      return result.runsDelegate()
          ? delegate.call(result.delegateArgs())
          : rows(result.schema(), result.rows());
    }
  }
}
