/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.spark;

import io.icebergprotector.spark.logs.PlanLogRedaction;
import io.icebergprotector.spark.paths.PathProtection;
import java.util.function.Consumer;
import org.apache.spark.sql.SparkSessionExtensions;
import scala.Function1;
import scala.runtime.BoxedUnit;

/**
 * Session extension, configured next to Iceberg's: {@code spark.sql.extensions=
 * org.apache.iceberg.spark.extensions.IcebergSparkSessionExtensions,
 * io.icebergprotector.spark.ProtectorSparkSessionExtensions}, or alone for plain Parquet paths.
 *
 * <p>Two parts, so that a Spark classpath without Iceberg can use the paths mode:
 *
 * <ul>
 *   <li>plain Parquet paths ({@link PathProtection}), which link only Spark, Hadoop and Spark's own
 *       parquet-mr, always;
 *   <li>protected Iceberg tables ({@link IcebergRules}: the {@code CALL rewrite_protected} parser,
 *       partition checks, cache checks), only when Iceberg's {@value #ICEBERG_PROBE} is on the
 *       classpath. That class is loaded by name, so this one never links Iceberg.
 * </ul>
 *
 * A new rule that references Iceberg classes (or the catalogs and protected tables, which do)
 * belongs in {@link IcebergRules#accept}; one that needs Spark only may go here.
 */
public class ProtectorSparkSessionExtensions
    implements Function1<SparkSessionExtensions, BoxedUnit> {
  /** A class of iceberg-spark-runtime whose presence enables the Iceberg rules. */
  static final String ICEBERG_PROBE = "org.apache.iceberg.spark.SparkCatalog";

  private static final String ICEBERG_RULES = "io.icebergprotector.spark.IcebergRules";

  @Override
  public BoxedUnit apply(SparkSessionExtensions extensions) {
    if (icebergAvailable()) {
      registerIcebergRules(extensions);
    }
    // What protected reads may store: no views as data, no declassification by accident.
    extensions.injectCheckRule(io.icebergprotector.spark.flow.DataFlowCheck::forSession);
    // Plain Parquet paths under the policy's `paths` prefixes (spark.protector.* settings).
    PathProtection.register(extensions);
    // Spark logs a scan's filters at INFO: the literals of queries over protected data are
    // registered when analyzed and redacted from the Spark and Iceberg log lines that print them.
    extensions.injectCheckRule(io.icebergprotector.spark.flow.SensitiveLiteralCheck::forSession);
    PlanLogRedaction.install();
    return BoxedUnit.UNIT;
  }

  static boolean icebergAvailable() {
    try {
      Class.forName(ICEBERG_PROBE, false, loader());
      return true;
    } catch (ClassNotFoundException | LinkageError e) {
      return false;
    }
  }

  @SuppressWarnings("unchecked")
  private static void registerIcebergRules(SparkSessionExtensions extensions) {
    Consumer<SparkSessionExtensions> rules;
    try {
      rules =
          (Consumer<SparkSessionExtensions>)
              Class.forName(ICEBERG_RULES, true, loader()).getDeclaredConstructor().newInstance();
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException(
          "Cannot load the protector's Iceberg rules (" + ICEBERG_RULES + ")", e);
    }
    rules.accept(extensions);
  }

  // The loader that links our classes: Iceberg must be visible to it, not just to some child.
  private static ClassLoader loader() {
    return ProtectorSparkSessionExtensions.class.getClassLoader();
  }
}
