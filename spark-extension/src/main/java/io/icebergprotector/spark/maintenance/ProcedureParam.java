/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.spark.maintenance;

import java.util.List;
import org.apache.spark.sql.types.DataType;

/**
 * A procedure parameter, as the shared code sees it. Spark 3.5 (Iceberg's {@code
 * org.apache.spark.sql.connector.iceberg.catalog.ProcedureParameter}) and Spark 4.0 (Spark's own
 * {@code org.apache.spark.sql.connector.catalog.procedures.ProcedureParameter}) declare parameters
 * through different interfaces; {@code SparkProcedures} (src/main/spark-*) converts.
 */
public record ProcedureParam(String name, DataType type, boolean required) {
  public static ProcedureParam required(String name, DataType type) {
    return new ProcedureParam(name, type, true);
  }

  public static ProcedureParam optional(String name, DataType type) {
    return new ProcedureParam(name, type, false);
  }

  /** The position of parameter {@code name} (case-insensitive) in {@code parameters}, or -1. */
  public static int indexOf(List<ProcedureParam> parameters, String name) {
    for (int i = 0; i < parameters.size(); i++) {
      if (parameters.get(i).name().equalsIgnoreCase(name)) {
        return i;
      }
    }
    return -1;
  }
}
