/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import io.icebergprotector.testing.LocalCatalog;
import io.icebergprotector.testing.SparkSubmit;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The end-to-end set for one Spark target (the module's Spark, Scala and iceberg-spark-runtime):
 * its runtime jar, deployed with its pom to a Maven-layout file repository, is installed by {@code
 * SparkSubmit --packages} (offline, from that repository only) into a child JVM that holds only
 * that Spark and Iceberg, which writes a protected table, reads it as three principals, calls
 * {@code rewrite_protected} and reads again ({@link RuntimeSmokeMain}). Then the warehouse files
 * are searched for the protected value (never there in clear) and for an unprotected one (there).
 */
class RuntimeEndToEndIT {
  static final String SSN = "123-45-6789";
  static final String NAME = "Annabel";

  static SparkSubmit runtime;

  @TempDir static Path tmp;

  @BeforeAll
  static void artifacts() {
    runtime =
        SparkSubmit.of(
            System.getProperty("runtime.artifact"),
            System.getProperty("runtime.version"),
            Path.of(System.getProperty("runtime.dir")));
  }

  @Test
  void pomHasNoDependenciesAndNoParent() throws IOException {
    assertThat(Files.readString(runtime.pom()))
        .contains("<artifactId>" + runtime.artifact() + "</artifactId>")
        .doesNotContain("<dependency>")
        .doesNotContain("<parent>");
  }

  @Test
  void installsWithPackagesAndProtects() throws Exception {
    Path work = tmp.resolve("work");
    LocalCatalog catalog =
        LocalCatalog.create(work, SparkSubmit.smokePolicy("etl", "admin"), "runtime-it passphrase");
    List<String> cmd =
        runtime.command(
            tmp, sparkClasspath(), catalog.sparkConf("prot", "etl"), RuntimeSmokeMain.class);
    // kept under target/ for a look after a failure
    Path logs = runtime.jar().getParent().resolveSibling("runtime-it");
    SparkSubmit.Child child = SparkSubmit.run(cmd, work, logs);
    String out = child.stdout;
    String both = child.describe();
    assertThat(child.exitCode).as(both).isZero();

    // exactly our artifact, from the file repository
    assertThat(SparkSubmit.resolvedLines(child.stderr))
        .as(both)
        .containsExactly(runtime.resolvedLine());
    String reads = "clear=" + SSN + " masked=*******6789 denied=null";
    assertThat(out)
        .as(both)
        .contains("RUNTIME-SMOKE written " + reads)
        .containsPattern("RUNTIME-SMOKE rewrite rewritten=[1-9][0-9]* added=[1-9]")
        .contains("RUNTIME-SMOKE rewritten " + reads)
        .contains("RUNTIME-SMOKE from=")
        .contains(runtime.resolvedJarName());
    out.lines().filter(l -> l.startsWith("RUNTIME-SMOKE")).forEach(System.out::println);

    // canary search: every file of the warehouse, data and metadata
    List<Path> files;
    try (Stream<Path> walk = Files.walk(catalog.warehouse())) {
      files = walk.filter(Files::isRegularFile).collect(Collectors.toList());
    }
    List<Path> data =
        files.stream().filter(f -> f.toString().endsWith(".parquet")).collect(Collectors.toList());
    assertThat(data).as("data files of both snapshots").hasSizeGreaterThanOrEqualTo(2);
    List<Path> leaks = new ArrayList<>();
    for (Path f : files) {
      if (contains(f, SSN)) {
        leaks.add(f);
      }
    }
    assertThat(leaks).as("files holding the protected value %s in clear", SSN).isEmpty();
    // positive control: the unprotected column is stored in clear, so the search can see values
    assertThat(data)
        .as("data files holding the unprotected %s", NAME)
        .anyMatch(f -> contains(f, NAME));
  }

  private static boolean contains(Path file, String value) {
    try {
      return new String(Files.readAllBytes(file), StandardCharsets.ISO_8859_1).contains(value);
    } catch (IOException e) {
      throw new java.io.UncheckedIOException("Cannot read " + file, e);
    }
  }

  /** This test's classpath (the target's Spark and Iceberg) without any protector code. */
  static String sparkClasspath() {
    List<String> kept = SparkSubmit.classpathWithoutProtector(e -> false);
    String scala = "_" + System.getProperty("runtime.scala.binary.version");
    assertThat(kept)
        .anyMatch(
            e ->
                e.contains(
                    "spark-core" + scala + "-" + System.getProperty("runtime.spark.version")))
        .anyMatch(e -> e.contains("iceberg-spark-runtime-") && e.contains(scala))
        .noneMatch(e -> e.contains("spark-core_") && !e.contains("spark-core" + scala));
    return String.join(File.pathSeparator, kept);
  }
}
