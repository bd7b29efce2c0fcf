/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.spark.procedures;

import io.icebergprotector.spark.maintenance.ProcedureParam;
import io.icebergprotector.spark.table.ProtectingCatalog;
import java.util.List;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.types.StructType;

/**
 * A procedure the protecting catalog serves itself: its signature, and the catalog it runs in.
 * {@code SparkProcedures} (src/main/spark-*) presents it through the Spark version's procedure
 * interface.
 */
public abstract class CatalogProcedure {
  private final String name;
  private final List<ProcedureParam> parameters;
  private final StructType output;
  private final String description;
  final ProtectingCatalog catalog;

  CatalogProcedure(
      ProtectingCatalog catalog,
      String name,
      List<ProcedureParam> parameters,
      StructType output,
      String description) {
    this.catalog = catalog;
    this.name = name;
    this.parameters = List.copyOf(parameters);
    this.output = output;
    this.description = description;
  }

  String name() {
    return name;
  }

  List<ProcedureParam> parameters() {
    return parameters;
  }

  StructType outputType() {
    return output;
  }

  String description() {
    return description;
  }

  /** Runs the procedure with {@code args} (one value per parameter, null when not given). */
  abstract InternalRow[] call(InternalRow args);
}
