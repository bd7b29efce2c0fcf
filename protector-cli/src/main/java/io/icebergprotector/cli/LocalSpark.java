/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.cli;

import io.icebergprotector.kms.KmsOptions;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.spark.sql.SparkSession;

/**
 * The CLI's embedded Spark: {@code local[*]}, no UI, quiet logs, and catalog {@value #CATALOG}, a
 * protecting Hadoop catalog over the workspace's warehouse, policy and local keystore. It is also
 * the default catalog, so {@code db.customers} and {@code demo.db.customers} name the same table.
 */
final class LocalSpark {
  static final String CATALOG = "demo";
  static final String ICEBERG_EXTENSIONS =
      "org.apache.iceberg.spark.extensions.IcebergSparkSessionExtensions";
  static final String PROTECTOR_EXTENSIONS =
      "io.icebergprotector.spark.ProtectorSparkSessionExtensions";
  static final String CATALOG_CLASS = "io.icebergprotector.spark.ProtectingSparkCatalog";

  private LocalSpark() {}

  /** The Spark settings, for {@code SparkSession.builder().config(...)} and for documentation. */
  static Map<String, String> settings(Workspace ws, String user, String groups) {
    String prefix = "spark.sql.catalog." + CATALOG;
    Map<String, String> conf = new LinkedHashMap<>();
    conf.put("spark.ui.enabled", "false");
    conf.put("spark.ui.showConsoleProgress", "false");
    conf.put("spark.sql.shuffle.partitions", "4");
    conf.put("spark.driver.host", "127.0.0.1");
    conf.put("spark.driver.bindAddress", "127.0.0.1");
    conf.put(
        "spark.sql.warehouse.dir",
        absolute(ws.keystore.getParent().resolve("spark-warehouse")).toUri().toString());
    conf.put("spark.sql.extensions", ICEBERG_EXTENSIONS + "," + PROTECTOR_EXTENSIONS);
    conf.put(prefix, CATALOG_CLASS);
    conf.put(prefix + ".type", "hadoop");
    conf.put(prefix + ".warehouse", absolute(ws.warehouse).toUri().toString());
    conf.put(
        prefix + "." + io.icebergprotector.spark.core.CatalogOptions.POLICY.key(),
        absolute(ws.policy).toString());
    conf.put(prefix + "." + KmsOptions.KEYSTORE.key(), absolute(ws.keystore).toString());
    conf.put(
        prefix + "." + KmsOptions.PASSPHRASE_FILE.key(), absolute(ws.passphraseFile).toString());
    conf.put(prefix + "." + io.icebergprotector.spark.core.CatalogOptions.USER.key(), user);
    if (groups != null && !groups.isBlank()) {
      conf.put(prefix + "." + io.icebergprotector.spark.core.CatalogOptions.GROUPS.key(), groups);
    }
    conf.put("spark.sql.defaultCatalog", CATALOG);
    return conf;
  }

  /**
   * The settings for {@code catalog}: the demo's (as {@link #settings(Workspace, String, String)})
   * unless the user's settings define another catalog; the key server if {@code server} names one;
   * then the user's settings, which win, except the principal.
   */
  static Map<String, String> settings(
      Workspace ws, String user, String groups, CatalogOptions catalog) {
    Map<String, String> conf = settings(ws, user, groups);
    String prefix = "spark.sql.catalog." + catalog.catalog;
    if (!catalog.demoCatalog()) {
      conf.keySet().removeIf(k -> k.startsWith("spark.sql.catalog." + CATALOG));
      conf.put("spark.sql.defaultCatalog", catalog.catalog);
    }
    if (catalog.server.given()) {
      conf.remove(prefix + "." + KmsOptions.KEYSTORE.key());
      conf.remove(prefix + "." + KmsOptions.PASSPHRASE_FILE.key());
      Map<String, String> kms = new LinkedHashMap<>();
      catalog.server.addTo(kms);
      kms.forEach((k, v) -> conf.put(prefix + "." + k, v));
    }
    conf.putAll(catalog.sparkSettings());
    conf.put(prefix + "." + io.icebergprotector.spark.core.CatalogOptions.USER.key(), user);
    if (groups != null && !groups.isBlank()) {
      conf.put(prefix + "." + io.icebergprotector.spark.core.CatalogOptions.GROUPS.key(), groups);
    }
    return conf;
  }

  static SparkSession start(Workspace ws, String user, String groups, String appName) {
    return start(settings(ws, user, groups), appName);
  }

  static SparkSession start(Map<String, String> settings, String appName) {
    SparkSession.Builder builder = SparkSession.builder().master("local[*]").appName(appName);
    settings.forEach(builder::config);
    SparkSession spark = builder.getOrCreate();
    spark.sparkContext().setLogLevel("ERROR");
    return spark;
  }

  /**
   * Switches the principal of catalog {@value #CATALOG} for the following queries of this session.
   */
  static void actAs(SparkSession spark, String user, String groups) {
    String prefix = "spark.sql.catalog." + CATALOG + ".";
    spark.conf().set(prefix + io.icebergprotector.spark.core.CatalogOptions.USER.key(), user);
    // Empty, not unset: unset would fall back to the groups the catalog was configured with.
    spark
        .conf()
        .set(
            prefix + io.icebergprotector.spark.core.CatalogOptions.GROUPS.key(),
            groups == null ? "" : groups);
  }

  private static Path absolute(Path p) {
    return p.toAbsolutePath().normalize();
  }
}
