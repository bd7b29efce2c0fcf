/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.server;

import io.icebergprotector.testing.ManagedProcess;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.regex.Pattern;

/** The key server as a separate JVM, as bin/protector runs it: started, waited for, stopped. */
final class ServerProcess implements AutoCloseable {
  private static final Pattern LISTENING =
      Pattern.compile(
          "(?m)^" + Pattern.quote(ProtectorServer.LISTENING) + "(https://127\\.0\\.0\\.1:\\d+)$");

  private final ManagedProcess process;
  private final URI url;

  private ServerProcess(ManagedProcess process, URI url) {
    this.process = process;
    this.url = url;
  }

  /** The command line of a server JVM on this test's classpath. */
  static List<String> command(Path config) {
    return List.of(
        ManagedProcess.javaExecutable(),
        "-Xmx128m",
        "-cp",
        ManagedProcess.testClasspath(),
        ProtectorServer.class.getName(),
        "--config",
        config.toString());
  }

  /**
   * Starts {@code pb} (a server JVM: its command, environment and directory) and waits for its
   * listening line; its output goes to {@code log}.
   */
  static ServerProcess start(ProcessBuilder pb, Path log) {
    Path workDir = pb.directory() != null ? pb.directory().toPath() : Path.of("").toAbsolutePath();
    ManagedProcess process =
        ManagedProcess.builder("protector-server")
            .command(pb.command())
            .env(pb.environment())
            .workDir(workDir)
            .logFile(log)
            .build()
            .start();
    String listening = process.awaitLine(Duration.ofSeconds(60), LISTENING).group(1);
    return new ServerProcess(process, URI.create(listening));
  }

  URI url() {
    return url;
  }

  /** The server JVM's total CPU time so far (user + system). */
  Duration cpuTime() {
    return ProcessHandle.of(process.pid())
        .flatMap(p -> p.info().totalCpuDuration())
        .orElseThrow(() -> new IllegalStateException("Cannot read the CPU time of " + process));
  }

  /**
   * Stops the server the way a service manager does (SIGTERM: the shutdown hook closes audit and
   * keys).
   */
  @Override
  public void close() {
    process.stop();
  }
}
