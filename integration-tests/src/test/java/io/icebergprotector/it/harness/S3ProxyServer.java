/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.it.harness;

import io.icebergprotector.testing.FreePorts;
import io.icebergprotector.testing.ManagedProcess;
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
import java.util.List;

/**
 * s3proxy ({@code org.gaul:s3proxy}, jar-with-dependencies) with its filesystem backend, on a
 * loopback port, as a separate JVM:
 *
 * <pre>
 * java -Xmx256m -jar target/servers/s3proxy.jar --properties s3proxy.conf
 * </pre>
 */
public final class S3ProxyServer implements ObjectStore {
  public static final String ACCESS_KEY = "it-access-key";
  public static final String SECRET_KEY = "it-secret-key-0123456789";
  private static final Duration STARTUP_TIMEOUT = Duration.ofSeconds(90);

  private final String bucket;
  private final int port;
  private final Path dataDir;
  private final ManagedProcess process;

  private S3ProxyServer(String name, Path workDir, String bucket) {
    this.bucket = bucket;
    this.port = FreePorts.next();
    this.dataDir = workDir.resolve("s3-data");
    Path config = workDir.resolve("s3proxy.conf");
    try {
      Files.createDirectories(dataDir);
      Files.writeString(
          config,
          String.join(
              "\n",
              "s3proxy.endpoint=" + endpoint(),
              "s3proxy.authorization=aws-v2-or-v4",
              "s3proxy.identity=" + ACCESS_KEY,
              "s3proxy.credential=" + SECRET_KEY,
              // AWS SDK >= 2.30 sends x-amz-checksum-crc32 on DeleteObjects (bulk delete);
              // s3proxy 2.6 does not know the header and would refuse the request.
              "s3proxy.ignore-unknown-headers=true",
              "jclouds.provider=filesystem",
              "jclouds.filesystem.basedir=" + dataDir,
              ""),
          StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot write " + config, e);
    }
    this.process =
        ManagedProcess.builder(name)
            .command(
                List.of(
                    ManagedProcess.javaExecutable(),
                    "-Xmx256m",
                    "-XX:TieredStopAtLevel=1",
                    "-jar",
                    ItPaths.s3proxyJar().toString(),
                    "--properties",
                    config.toString()))
            .workDir(workDir)
            .logFile(ItPaths.logsDir().resolve(name + ".log"))
            .build();
  }

  /** Starts the process; {@link #awaitReady()} waits for it and creates the bucket. */
  public static S3ProxyServer start(String name, Path workDir, String bucket) {
    S3ProxyServer server = new S3ProxyServer(name, workDir, bucket);
    server.process.start();
    return server;
  }

  public S3ProxyServer awaitReady() {
    HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    HttpRequest ping =
        HttpRequest.newBuilder(URI.create(endpoint() + "/")).timeout(Duration.ofSeconds(5)).build();
    // Any HTTP answer (403 for an anonymous request) means the S3 front end is up.
    process.awaitHealthy(
        STARTUP_TIMEOUT,
        () -> http.send(ping, HttpResponse.BodyHandlers.discarding()).statusCode() > 0);
    createBucket();
    return this;
  }

  public ManagedProcess process() {
    return process;
  }

  /** The bucket's directory in s3proxy's filesystem backend. */
  public Path bucketDir() {
    return dataDir.resolve(bucket);
  }

  @Override
  public String endpoint() {
    return "http://127.0.0.1:" + port;
  }

  @Override
  public String accessKey() {
    return ACCESS_KEY;
  }

  @Override
  public String secretKey() {
    return SECRET_KEY;
  }

  @Override
  public String bucket() {
    return bucket;
  }

  @Override
  public String describe() {
    return "s3proxy " + process + " at " + endpoint() + ", log " + process.logFile();
  }

  @Override
  public void close() {
    process.stop();
  }
}
