/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.spark;

import org.apache.spark.sql.SparkSessionExtensions;

/**
 * Spark 4.0 and 4.1 version: Spark 4.0 parses {@code CALL <catalog>.system.<name>(...)} for every
 * name and resolves it through the catalog's {@code loadProcedure} (Iceberg's SQL extensions no
 * longer parse CALL), so our procedures need no parser. The Spark 3.5 version injects one.
 */
final class CallSyntax {
  private CallSyntax() {}

  static void register(SparkSessionExtensions extensions) {
    // nothing to add: see the class comment
  }
}
