/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.it.harness;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** Where Maven put the server binaries and where the tests write logs and scratch data. */
public final class ItPaths {
  private ItPaths() {}

  /** {@code target/it-logs}: one log file per server process. */
  public static Path logsDir() {
    return dir("it.logs.dir", "target/it-logs");
  }

  /** {@code target/it-work/<name>}: scratch space (bucket contents, catalog database, keystore). */
  public static Path workDir(String name) {
    Path dir = dir("it.work.dir", "target/it-work").resolve(name);
    try {
      if (Files.exists(dir)) {
        deleteRecursively(dir);
      }
      return Files.createDirectories(dir);
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot create " + dir, e);
    }
  }

  /** s3proxy's jar-with-dependencies, copied by maven-dependency-plugin. */
  public static Path s3proxyJar() {
    return requiredFile("it.s3proxy.jar");
  }

  /** A file holding the REST catalog server's classpath, written by maven-antrun-plugin. */
  public static Path restCatalogClasspathFile() {
    return requiredFile("it.rest.classpath.file");
  }

  /** A file holding the key server's classpath, written by maven-dependency-plugin. */
  public static Path protectorServerClasspathFile() {
    return requiredFile("it.protector-server.classpath.file");
  }

  private static Path requiredFile(String property) {
    String value = System.getProperty(property);
    if (value == null || value.isBlank()) {
      throw new IllegalStateException(
          "System property "
              + property
              + " is not set: run the tests through Maven"
              + " (mvn -pl integration-tests verify), which prepares the server binaries");
    }
    Path file = Path.of(value);
    if (!Files.isRegularFile(file)) {
      throw new IllegalStateException(
          property
              + " = "
              + file
              + " does not exist: run `mvn -pl integration-tests"
              + " generate-test-resources` (without -o the first time) to fetch it");
    }
    return file;
  }

  private static Path dir(String property, String fallback) {
    Path dir = Path.of(System.getProperty(property, fallback)).toAbsolutePath();
    try {
      return Files.createDirectories(dir);
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot create " + dir, e);
    }
  }

  static void deleteRecursively(Path root) throws IOException {
    try (var paths = Files.walk(root)) {
      for (Path p : (Iterable<Path>) paths.sorted(java.util.Comparator.reverseOrder())::iterator) {
        Files.deleteIfExists(p);
      }
    }
  }
}
