/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.spark;

import org.apache.spark.sql.SparkSessionExtensions;
import org.apache.spark.sql.catalyst.parser.ParserInterface;

/**
 * Spark 3.5 version: Spark 3.5 has no {@code CALL}; Iceberg's SQL extensions parse it, for
 * Iceberg's procedure names only, so {@link ProtectorSqlParser} lets our procedure names through.
 * (Spark 4.0 parses every {@code CALL} itself, and its version of this class adds nothing.)
 */
final class CallSyntax {
  private CallSyntax() {}

  static void register(SparkSessionExtensions extensions) {
    // CALL <catalog>.system.rewrite_protected(...), describe_protection(...)
    extensions.injectParser((session, parser) -> (ParserInterface) new ProtectorSqlParser(parser));
  }
}
