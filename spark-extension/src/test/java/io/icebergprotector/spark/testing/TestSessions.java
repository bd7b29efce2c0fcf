/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.spark.testing;

import io.icebergprotector.spark.crypto.KeyServiceRegistry;
import io.icebergprotector.spark.crypto.ProtectorCrypto;
import io.icebergprotector.spark.paths.PathProtection;
import io.icebergprotector.testing.LocalCatalog;
import java.util.Map;
import org.apache.spark.sql.SparkSession;

/**
 * The local SparkSession of a test class: one per class (started in {@code @BeforeAll}, stopped by
 * {@link #stop} in {@code @AfterAll}), so that the suite's run time stays within the CI budget.
 * Lives in spark-extension's test tree, which every Spark target compiles, because it needs Spark;
 * the settings themselves (catalog files, options) come from the Spark-free test-support module.
 *
 * <pre>{@code
 * catalog = LocalCatalog.create(dir, policy);
 * spark = TestSessions.withCatalog(TestSessions.protector("my-test"), "prot", catalog, "etl")
 *     .getOrCreate();
 * }</pre>
 */
public final class TestSessions {
  private TestSessions() {}

  /**
   * A builder of a plain local session: {@code local[2]}, no UI. Forgets the keys and key services
   * that an earlier test class left cached in this JVM.
   */
  public static SparkSession.Builder local(String appName) {
    forgetCachedKeys();
    return SparkSession.builder()
        .master("local[2]")
        .appName(appName)
        .config("spark.ui.enabled", "false");
  }

  /** {@link #local} with two shuffle partitions and Iceberg's SQL extensions followed by ours. */
  public static SparkSession.Builder protector(String appName) {
    return local(appName)
        .config("spark.sql.shuffle.partitions", "2")
        .config("spark.sql.extensions", LocalCatalog.EXTENSIONS);
  }

  /**
   * Adds the protecting catalog {@code name} over {@code catalog}'s files, acting as {@code user}.
   */
  public static SparkSession.Builder withCatalog(
      SparkSession.Builder builder, String name, LocalCatalog catalog, String user) {
    return config(builder, catalog.sparkConf(name, user));
  }

  /** Adds every setting of {@code conf} to {@code builder}. */
  public static SparkSession.Builder config(
      SparkSession.Builder builder, Map<String, String> conf) {
    conf.forEach(builder::config);
    return builder;
  }

  /**
   * Stops {@code spark} (if started), clears the active and default sessions so the next class
   * builds its own, and forgets the keys cached for this one.
   */
  public static void stop(SparkSession spark) {
    if (spark != null) {
      spark.stop();
    }
    SparkSession.clearActiveSession();
    SparkSession.clearDefaultSession();
    forgetCachedKeys();
  }

  /** Forgets the key services, the unwrapped keys and the path keys cached in this JVM. */
  public static void forgetCachedKeys() {
    KeyServiceRegistry.clear();
    ProtectorCrypto.forgetAllCachedKeys();
    PathProtection.forgetCachedKeys();
  }
}
