/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.spark;

import io.icebergprotector.spark.analysis.IcebergCommandCheck;
import io.icebergprotector.spark.analysis.NonIcebergTables;
import io.icebergprotector.spark.analysis.ProtectedCacheCheck;
import io.icebergprotector.spark.tokens.TokenFunctions;
import java.util.function.Consumer;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.SparkSessionExtensions;
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan;
import scala.Function1;
import scala.runtime.BoxedUnit;

/**
 * The session extension's parts for protected Iceberg tables: every parser, rule and check that
 * links Iceberg classes (Iceberg's SQL plans such as {@code CallStatement} or {@code
 * AddPartitionField}, the protecting catalogs, protected tables and scans). {@link
 * ProtectorSparkSessionExtensions} loads this class by name, and only when Iceberg is on the
 * classpath, so a paths-only setup never links them. Rules that touch Iceberg go in {@link
 * #accept}.
 */
final class IcebergRules implements Consumer<SparkSessionExtensions> {
  /** Instantiated by name by {@link ProtectorSparkSessionExtensions}. */
  IcebergRules() {}

  @Override
  public void accept(SparkSessionExtensions extensions) {
    // CALL <catalog>.system.rewrite_protected(...): a parser on Spark 3.5, nothing on 4.0
    CallSyntax.register(extensions);
    // What bypasses the catalog: Iceberg's table commands (writer role, no partitioning or
    // ordering by protected columns) and Spark's V1 commands on non-Iceberg tables the policy
    // lists.
    extensions.injectCheckRule(
        session -> (Function1<LogicalPlan, BoxedUnit>) plan -> checkPlan(session, plan));
    // Cached data of protected tables never answers another principal.
    extensions.injectOptimizerRule(ProtectedCacheCheck::new);
    // protect(value, domain) and unprotect(token, domain): tokens outside protected tables
    TokenFunctions.register(extensions);
  }

  private static BoxedUnit checkPlan(SparkSession session, LogicalPlan plan) {
    IcebergCommandCheck.checkPlan(session, plan);
    NonIcebergTables.checkPlan(session, plan);
    return BoxedUnit.UNIT;
  }
}
