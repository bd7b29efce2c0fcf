/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.cli;

import java.io.IOException;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Properties;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * The catalog and key service of {@code sql} and {@code rewrite}: by default the demo's catalog
 * 'demo' over ./warehouse with the local keystore; otherwise any catalog, configured with the same
 * Spark settings a job would use ({@code --conf}, {@code --properties-file}), and the key server
 * ({@code --url}, {@code --token-file}, {@code --trust-cert}).
 */
final class CatalogOptions {
  @Option(
      names = "--conf",
      paramLabel = "<key=value>",
      description =
          "A Spark setting, e.g. spark.sql.catalog.prod.uri=https://rest:8181 (repeatable; applied last).")
  Map<String, String> conf = new LinkedHashMap<>();

  @Option(
      names = "--properties-file",
      paramLabel = "<file>",
      description = "Spark settings, one key=value a line, as spark-submit's --properties-file.")
  Path propertiesFile;

  @Option(
      names = "--catalog",
      defaultValue = LocalSpark.CATALOG,
      paramLabel = "<name>",
      description =
          "The protecting catalog to use and act in (default: ${DEFAULT-VALUE}, the demo's).")
  String catalog;

  @Mixin KeyBackendOptions.Server server;

  /** The user's Spark settings: the properties file, then --conf. */
  Map<String, String> sparkSettings() {
    Map<String, String> out = new LinkedHashMap<>();
    if (propertiesFile != null) {
      Properties p = new Properties();
      try (Reader in = Files.newBufferedReader(propertiesFile, StandardCharsets.UTF_8)) {
        p.load(in);
      } catch (NoSuchFileException e) {
        throw new IllegalArgumentException("Properties file " + propertiesFile + " not found", e);
      } catch (IOException e) {
        throw new UncheckedIOException(
            "cannot read properties file " + propertiesFile + ": " + e.getMessage(), e);
      }
      p.stringPropertyNames().stream().sorted().forEach(k -> out.put(k, p.getProperty(k).strip()));
    }
    out.putAll(conf);
    return out;
  }

  /** Whether the catalog is the demo's (catalog 'demo' not redefined by the user's settings). */
  boolean demoCatalog() {
    return catalog.equals(LocalSpark.CATALOG)
        && !sparkSettings().containsKey("spark.sql.catalog." + catalog);
  }

  /**
   * Whether keys come from the local keystore of the workspace (the check for its files applies).
   */
  boolean localKeystore() {
    String prefix = "spark.sql.catalog." + catalog + ".";
    Map<String, String> user = sparkSettings();
    return demoCatalog()
        && !server.given()
        && !user.containsKey(prefix + io.icebergprotector.kms.KmsOptions.TYPE.key());
  }
}
