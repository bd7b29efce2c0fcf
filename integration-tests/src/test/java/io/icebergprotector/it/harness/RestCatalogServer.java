/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.it.harness;

import io.icebergprotector.testing.FreePorts;
import io.icebergprotector.testing.ManagedProcess;
import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Iceberg's REST catalog server (the {@code RESTCatalogServer} of iceberg-open-api's test fixtures,
 * with iceberg-core's tests jar) in its own JVM: a JDBC catalog on a SQLite file behind it,
 * S3FileIO on the object store. Configured the way the fixture reads it, from {@code CATALOG_*}
 * environment variables ({@code CATALOG_FOO__BAR_BAZ} becomes {@code foo-bar.baz}).
 */
public final class RestCatalogServer implements AutoCloseable {
  private static final Duration STARTUP_TIMEOUT = Duration.ofSeconds(90);

  private final int port;
  private final ManagedProcess process;
  private final Map<String, String> env;

  private RestCatalogServer(String name, Path workDir, ObjectStore store, boolean vendCredentials) {
    this.port = FreePorts.next();
    this.env = new LinkedHashMap<>();
    env.put("CATALOG_CATALOG__IMPL", "org.apache.iceberg.jdbc.JdbcCatalog");
    env.put("CATALOG_URI", "jdbc:sqlite:file:" + workDir.resolve("catalog.db"));
    env.put("CATALOG_JDBC_SCHEMA__VERSION", "V1");
    // One connection: SQLite serializes writers anyway; a pool would only add SQLITE_BUSY.
    env.put("CATALOG_CLIENTS", "1");
    env.put("CATALOG_WAREHOUSE", "s3://" + store.bucket() + "/warehouse");
    env.put("CATALOG_IO__IMPL", "org.apache.iceberg.aws.s3.S3FileIO");
    env.put("CATALOG_S3_ENDPOINT", store.endpoint());
    env.put("CATALOG_S3_PATH__STYLE__ACCESS", "true");
    env.put("CATALOG_CLIENT_REGION", store.region());
    env.put("CATALOG_REST_PORT", Integer.toString(port));
    if (vendCredentials) {
      // The fixture hands these to clients in each LoadTableResponse (credential vending).
      env.put("CATALOG_S3_ACCESS__KEY__ID", store.accessKey());
      env.put("CATALOG_S3_SECRET__ACCESS__KEY", store.secretKey());
      env.put("CATALOG_INCLUDE__CREDENTIALS", "true");
    }
    env.put("AWS_ACCESS_KEY_ID", store.accessKey());
    env.put("AWS_SECRET_ACCESS_KEY", store.secretKey());
    env.put("AWS_REGION", store.region());
    // Never reach for EC2 instance metadata (a non-loopback address) for credentials or region.
    env.put("AWS_EC2_METADATA_DISABLED", "true");
    // AWS SDK >= 2.30 sends CRC checksums with aws-chunked uploads by default; s3proxy rejects
    // them ("x-amz-content-sha256 ... does not match"). Checksums only where S3 requires them.
    env.put("AWS_REQUEST_CHECKSUM_CALCULATION", "WHEN_REQUIRED");
    env.put("AWS_RESPONSE_CHECKSUM_VALIDATION", "WHEN_REQUIRED");

    String classpath = readClasspath() + File.pathSeparator + launcherClasspath();
    this.process =
        ManagedProcess.builder(name)
            .command(
                List.of(
                    ManagedProcess.javaExecutable(),
                    "-Xmx384m",
                    "-XX:TieredStopAtLevel=1",
                    "-Dorg.slf4j.simpleLogger.showDateTime=true",
                    "-Dorg.slf4j.simpleLogger.dateTimeFormat=HH:mm:ss.SSS",
                    "-Daws.disableEc2Metadata=true",
                    "-cp",
                    classpath,
                    "io.icebergprotector.it.launch.LoopbackRestCatalogServer"))
            .env(env)
            .workDir(workDir)
            .logFile(ItPaths.logsDir().resolve(name + ".log"))
            .build();
  }

  /** Starts the process; {@link #awaitReady()} waits until {@code GET /v1/config} answers 200. */
  public static RestCatalogServer start(
      String name, Path workDir, ObjectStore store, boolean vendCredentials) {
    RestCatalogServer server = new RestCatalogServer(name, workDir, store, vendCredentials);
    server.process.start();
    return server;
  }

  public RestCatalogServer awaitReady() {
    HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    HttpRequest config =
        HttpRequest.newBuilder(URI.create(uri() + "/v1/config"))
            .timeout(Duration.ofSeconds(5))
            .build();
    process.awaitHealthy(
        STARTUP_TIMEOUT,
        () -> http.send(config, HttpResponse.BodyHandlers.discarding()).statusCode() == 200);
    return this;
  }

  public String uri() {
    return "http://127.0.0.1:" + port;
  }

  public ManagedProcess process() {
    return process;
  }

  /** The environment the server runs with (no secrets but the test store's fixed test keys). */
  public Map<String, String> env() {
    return Map.copyOf(env);
  }

  @Override
  public void close() {
    process.stop();
  }

  private static String readClasspath() {
    Path file = ItPaths.restCatalogClasspathFile();
    try {
      return Files.readString(file, StandardCharsets.UTF_8).trim();
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read " + file, e);
    }
  }

  /** The directory or jar holding {@code LoopbackRestCatalogServer} (the test classes). */
  private static String launcherClasspath() {
    try {
      return Path.of(
              io.icebergprotector.it.launch.LoopbackRestCatalogServer.class
                  .getProtectionDomain()
                  .getCodeSource()
                  .getLocation()
                  .toURI())
          .toString();
    } catch (java.net.URISyntaxException e) {
      throw new IllegalStateException(e);
    }
  }
}
