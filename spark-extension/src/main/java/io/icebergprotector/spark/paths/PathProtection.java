/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.spark.paths;

import io.icebergprotector.policy.TablePolicy;
import io.icebergprotector.spark.compat.ScalaCollections;
import java.util.Optional;
import org.apache.hadoop.conf.Configuration;
import org.apache.parquet.crypto.keytools.KeyToolkit;
import org.apache.spark.SparkContext;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.SparkSessionExtensions;
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan;
import org.apache.spark.sql.execution.datasources.HadoopFsRelation;
import org.apache.spark.sql.execution.datasources.LogicalRelation;

/**
 * Protection of plain Parquet paths ({@code df.write.parquet}, {@code spark.read.parquet}, Parquet
 * tables) under the policy's {@code paths} prefixes, registered by {@code
 * ProtectorSparkSessionExtensions}:
 *
 * <ul>
 *   <li>{@link PathPolicyCryptoFactory} as Spark's {@code parquet.crypto.factory.class}: files
 *       under a prefix are written with the policy's column encryption and read with the key
 *       service;
 *   <li>{@link PathReadRule}: reads see the principal's view (clear, masked, NULL or refused);
 *   <li>{@link PathWriteRule}: only the prefix's writers write there, never partitioned by a
 *       protected column;
 *   <li>{@link PathPlanCheck}: refusals that depend on what the optimized query really reads.
 * </ul>
 *
 * The session settings are {@code spark.protector.*} ({@link PathScope#SETTINGS}).
 */
public final class PathProtection {
  /** Spark's (parquet-mr's) crypto factory setting. */
  public static final String FACTORY_PROPERTY = "parquet.crypto.factory.class";

  private PathProtection() {}

  public static void register(SparkSessionExtensions extensions) {
    // The parser builder runs while each session's state is built, before anything is read:
    // spark.read.parquet infers the schema from footers before any analyzer rule runs, and an
    // encrypted footer needs the factory already.
    extensions.injectParser(
        (session, parser) -> {
          installFactory(session.sparkContext());
          return parser;
        });
    extensions.injectResolutionRule(PathReadRule::new);
    extensions.injectPostHocResolutionRule(PathWriteRule::new);
    extensions.injectPlannerStrategy(PathPlanCheck::new);
  }

  /**
   * The policy entry that governs the files of a Parquet relation ({@code spark.read.parquet}, a
   * Parquet table), if any; empty for other plan nodes.
   */
  public static Optional<TablePolicy> governingEntry(
      LogicalPlan relation, PathScope scope, SparkSession session) {
    return PathReadRule.parquetRelation(relation) == null
        ? Optional.empty()
        : PathReadRule.governed((LogicalRelation) relation, scope, session)
            .map(governed -> governed.entry);
  }

  /**
   * Whether the analyzer put the principal's view ({@link PathProjection}) above this relation: it
   * carries a {@link PathViewMark} (only marks this JVM issued survive analysis).
   */
  public static boolean hasView(LogicalPlan relation) {
    HadoopFsRelation fs = PathReadRule.parquetRelation(relation);
    return fs != null && PathViewMark.in(ScalaCollections.asJava(fs.options())) != null;
  }

  /**
   * Makes {@link PathPolicyCryptoFactory} the application's Parquet crypto factory, unless the
   * application set one itself (then writes under a policy prefix are refused, and reads of them
   * fail to decrypt). Spark copies this Hadoop configuration into every job's, on the driver and
   * the executors. Without {@code spark.protector.*} settings the factory does nothing.
   */
  public static void installFactory(SparkContext context) {
    Configuration conf = context.hadoopConfiguration();
    synchronized (conf) {
      if (conf.get(FACTORY_PROPERTY) == null) {
        conf.set(FACTORY_PROPERTY, PathPolicyCryptoFactory.class.getName());
      }
    }
  }

  /**
   * Forgets this JVM's loaded settings and the unshaded Parquet key caches (tests that rotate or
   * destroy keys, or clear the key-service registry).
   */
  public static void forgetCachedKeys() {
    PathScope.forgetLoadedSettings();
    KeyToolkit.removeCacheEntriesForAllTokens();
  }
}
