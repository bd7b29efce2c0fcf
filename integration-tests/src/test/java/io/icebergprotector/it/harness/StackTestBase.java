/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.it.harness;

import java.nio.file.Path;
import java.util.Map;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;

/**
 * Starts, once per test class, an S3 server and an Iceberg REST catalog server as separate
 * processes on loopback ports, and stops them after the class. Subclasses may swap the object store
 * ({@link #createObjectStore}), e.g. for MinIO in Docker.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
public abstract class StackTestBase {
  protected static final String BUCKET = "it-bucket";

  protected Path work;
  protected ObjectStore store;
  protected RestCatalogServer rest;
  protected SparkSession spark;

  @BeforeAll
  void startStack() {
    String name = getClass().getSimpleName();
    this.work = ItPaths.workDir(name);
    long start = System.nanoTime();
    this.store = createObjectStore(name, work);
    // Start the catalog server while the store's JVM boots: it needs S3 only on first table I/O.
    this.rest = RestCatalogServer.start(name + ".rest-catalog", work, store, true);
    startMoreServers();
    awaitObjectStore(store);
    rest.awaitReady();
    System.out.printf(
        "[it] %s: %s; REST catalog %s at %s, log %s (up in %d ms)%n",
        name,
        store.describe(),
        rest.process(),
        rest.uri(),
        rest.process().logFile(),
        (System.nanoTime() - start) / 1_000_000);
    this.spark = SharedSpark.newSession();
  }

  @AfterAll
  void stopStack() {
    if (rest != null) {
      rest.close();
    }
    if (store != null) {
      store.close();
    }
  }

  /**
   * Hook for subclasses to start further server processes while the store and catalog JVMs boot
   * ({@link #work} is set). Await them in the subclass's own {@code @BeforeAll}.
   */
  protected void startMoreServers() {}

  /** The object store; may return before it is ready ({@link #awaitObjectStore} waits). */
  protected ObjectStore createObjectStore(String name, Path workDir) {
    return S3ProxyServer.start(name + ".s3proxy", workDir, BUCKET);
  }

  protected void awaitObjectStore(ObjectStore objectStore) {
    if (objectStore instanceof S3ProxyServer) {
      ((S3ProxyServer) objectStore).awaitReady();
    }
  }

  /** Sets {@code spark.sql.catalog.<name>.*} in this class's session. */
  protected void configureCatalog(String name, String impl, Map<String, String> options) {
    String prefix = "spark.sql.catalog." + name;
    spark.conf().set(prefix, impl);
    options.forEach((k, v) -> spark.conf().set(prefix + "." + k, v));
  }

  /** Iceberg's REST catalog options for this stack, with client-side S3 keys. */
  protected Map<String, String> restCatalogOptions() {
    Map<String, String> options = new java.util.LinkedHashMap<>();
    options.put("type", "rest");
    options.put("uri", rest.uri());
    // Every read sees the latest commit, also when another session or catalog committed it.
    options.put("cache-enabled", "false");
    options.putAll(store.s3FileIoOptions());
    return options;
  }

  /** What a user sets for a protecting catalog on the REST catalog and a key server. */
  protected Map<String, String> remoteCatalogOptions(
      ProtectorServerProcess keyServer, Path tokenFile) {
    Map<String, String> options = new java.util.LinkedHashMap<>(restCatalogOptions());
    options.put("protector.kms.type", "remote");
    options.put("protector.kms.url", keyServer.url());
    options.put("protector.token-file", tokenFile.toString());
    options.put("protector.kms.trust-store", keyServer.certificate().toString());
    return options;
  }
}
