/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The files of a protecting Hadoop catalog with the local keystore, in one directory: the policy,
 * the keystore (created on first use), its passphrase file and the warehouse; and the Spark
 * settings that point a catalog at them. A Spark session in the test JVM, a spark-submit child and
 * a cluster job all take the same settings.
 */
public final class LocalCatalog {
  /** The protecting catalog, by name (Spark loads it by name; this module has no Spark). */
  public static final String CATALOG_CLASS = "io.icebergprotector.spark.ProtectingSparkCatalog";

  /** Iceberg's SQL extensions, then ours, as {@code spark.sql.extensions} takes them. */
  public static final String EXTENSIONS =
      "org.apache.iceberg.spark.extensions.IcebergSparkSessionExtensions,"
          + "io.icebergprotector.spark.ProtectorSparkSessionExtensions";

  private final Path dir;
  private final Path warehouse;
  private final Path policyFile;
  private final Path keystore;
  private final Path passphraseFile;

  private LocalCatalog(Path dir) {
    this(dir, dir.resolve("warehouse"));
  }

  private LocalCatalog(Path dir, Path warehouse) {
    this.dir = dir;
    this.warehouse = warehouse;
    this.policyFile = dir.resolve("policy.conf");
    this.keystore = dir.resolve("keys.p12");
    this.passphraseFile = dir.resolve("passphrase");
  }

  /**
   * Writes {@code policy} and a passphrase into {@code dir} (created if missing); the keystore is
   * created by the first catalog that opens it ({@code create-missing-keys}).
   */
  public static LocalCatalog create(Path dir, String policy) {
    return create(dir, policy, "test-passphrase-" + System.nanoTime());
  }

  /** As {@link #create(Path, String)}, with this passphrase. */
  public static LocalCatalog create(Path dir, String policy, String passphrase) {
    LocalCatalog catalog = new LocalCatalog(dir);
    try {
      Files.createDirectories(dir);
      Files.writeString(catalog.passphraseFile, passphrase);
      Files.writeString(catalog.policyFile, policy);
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot write the catalog files in " + dir, e);
    }
    return catalog;
  }

  /** The same files with the tables in {@code warehouse} instead of {@code <dir>/warehouse}. */
  public LocalCatalog withWarehouse(Path warehouse) {
    return new LocalCatalog(dir, warehouse);
  }

  public Path dir() {
    return dir;
  }

  public Path warehouse() {
    return warehouse;
  }

  public Path policyFile() {
    return policyFile;
  }

  public Path keystore() {
    return keystore;
  }

  public Path passphraseFile() {
    return passphraseFile;
  }

  /**
   * The options of a catalog over these files acting as {@code user} (the keys without the {@code
   * spark.sql.catalog.<name>.} prefix).
   */
  public Map<String, String> options(String user) {
    Map<String, String> options = new LinkedHashMap<>();
    options.put("type", "hadoop");
    options.put("warehouse", warehouse.toUri().toString());
    options.put("protector.policy", policyFile.toString());
    options.put("protector.kms.keystore", keystore.toString());
    options.put("protector.kms.passphrase-file", passphraseFile.toString());
    options.put("protector.kms.create-missing-keys", "true");
    options.put("protector.user", user);
    return options;
  }

  /** The Spark settings of catalog {@code name}: the protecting catalog with {@link #options}. */
  public Map<String, String> sparkConf(String name, String user) {
    return catalogConf(name, CATALOG_CLASS, options(user));
  }

  /**
   * The session-wide settings of paths mode ({@code spark.protector.*}) over these files, acting as
   * {@code user}.
   */
  public Map<String, String> sessionConf(String user) {
    Map<String, String> conf = new LinkedHashMap<>();
    options(user)
        .forEach(
            (k, v) -> {
              if (k.startsWith("protector.")) {
                conf.put("spark." + k, v);
              }
            });
    return conf;
  }

  /** {@code spark.sql.catalog.<name> = catalogClass} and each option under that prefix. */
  public static Map<String, String> catalogConf(
      String name, String catalogClass, Map<String, String> options) {
    String prefix = "spark.sql.catalog." + name;
    Map<String, String> conf = new LinkedHashMap<>();
    conf.put(prefix, catalogClass);
    options.forEach((k, v) -> conf.put(prefix + "." + k, v));
    return conf;
  }

  @Override
  public String toString() {
    return "LocalCatalog[" + dir + "]";
  }
}
