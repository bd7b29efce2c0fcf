/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.icebergprotector.testing.LocalCatalog;
import io.icebergprotector.testing.SparkSubmit;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The shaded runtime jar installs the way Spark libraries install: deployed to a Maven-layout file
 * repository, {@code spark-submit --packages io.icebergprotector:<artifact>:<version>
 * --repositories file://...} resolves it (offline, from that repository only) in a child JVM that
 * has only Spark and iceberg-spark-runtime on its classpath, and a protected write and read works.
 *
 * <p>Runs in the {@code integration-test} phase, after {@code package} copied the runtime jar and
 * its dependency-reduced pom to {@code target/packages-it}.
 */
class PackagesIT {
  static final String ARTIFACT = "iceberg-protector-spark-runtime-3.5_2.13";
  static final String RELOCATED = "io/icebergprotector/shaded/";

  static SparkSubmit runtime;
  static Path jar;
  static Path pom;

  @TempDir static Path tmp;

  @BeforeAll
  static void artifacts() {
    runtime =
        SparkSubmit.of(
            ARTIFACT,
            System.getProperty("protector.version"),
            Path.of(System.getProperty("protector.packages.dir", "target/packages-it")));
    jar = runtime.jar();
    pom = runtime.pom();
  }

  @Test
  void pomHasNoDependenciesAndNoParent() throws IOException {
    String text = Files.readString(pom);
    assertThat(text)
        .contains("<artifactId>" + ARTIFACT + "</artifactId>")
        .doesNotContain("<dependency>")
        .doesNotContain("<parent>");
  }

  @Test
  void jarHoldsOnlyOurClassesWithThirdPartyRelocated() throws IOException {
    List<String> outside = new ArrayList<>();
    // every third-party package we bundle, as class files name it (slashes) and as reflective
    // lookups do (dots): each occurrence must be the relocated one
    List<String> bundled = List.of("com/typesafe/config", "com/github/benmanes/caffeine");
    Map<String, Integer> refs = new TreeMap<>();
    Map<String, Integer> relocatedRefs = new TreeMap<>();
    try (JarFile jf = new JarFile(jar.toFile())) {
      assertThat(jf.getEntry("io/icebergprotector/spark/ProtectingSparkCatalog.class")).isNotNull();
      assertThat(jf.getEntry("io/icebergprotector/policy/Policy.class")).isNotNull();
      assertThat(jf.getEntry("io/icebergprotector/kms/LocalKeyService.class")).isNotNull();
      assertThat(jf.getEntry(RELOCATED + "com/typesafe/config/ConfigFactory.class")).isNotNull();
      assertThat(jf.getEntry(RELOCATED + "com/github/benmanes/caffeine/cache/Caffeine.class"))
          .isNotNull();
      for (Enumeration<JarEntry> e = jf.entries(); e.hasMoreElements(); ) {
        JarEntry entry = e.nextElement();
        String name = entry.getName();
        if (!name.startsWith("io/icebergprotector/")
            && !name.startsWith("META-INF/")
            && !name.equals("io/")) {
          outside.add(name);
        }
        if (name.endsWith(".class")) {
          try (InputStream in = jf.getInputStream(entry)) {
            String bytes = new String(in.readAllBytes(), StandardCharsets.ISO_8859_1);
            for (String pkg : bundled) {
              for (String form : List.of(pkg, pkg.replace('/', '.'))) {
                String relocated = (RELOCATED + pkg).replace('/', form.contains("/") ? '/' : '.');
                refs.merge(form, count(bytes, form), Integer::sum);
                relocatedRefs.merge(form, count(bytes, relocated), Integer::sum);
              }
            }
          }
        }
      }
    }
    // No Spark, Iceberg, Hadoop or Scala classes, and no unrelocated third-party package.
    assertThat(outside).isEmpty();
    for (String pkg : bundled) {
      assertThat(refs.get(pkg)).as("references to %s", pkg).isPositive();
    }
    assertThat(refs)
        .as("references to bundled packages (all of them relocated)")
        .isEqualTo(relocatedRefs);
  }

  @Test
  void sparkSubmitPackagesResolvesAndProtects() {
    Path work = tmp.resolve("work");
    LocalCatalog catalog =
        LocalCatalog.create(work, SparkSubmit.smokePolicy("etl"), "packages-it passphrase");
    List<String> cmd =
        runtime.command(
            tmp, sparkClasspath(), catalog.sparkConf("prot", "etl"), PackagesSmokeMain.class);

    SparkSubmit.Child child = SparkSubmit.run(cmd, work, tmp.resolve("spark-submit"));
    String both = child.describe();
    assertThat(child.exitCode).as(both).isZero();

    // Resolution: exactly our artifact, from the file repository given with --repositories.
    List<String> found = SparkSubmit.resolvedLines(child.stderr);
    assertThat(found).as(both).containsExactly(runtime.resolvedLine());

    // For the surefire report: what the child printed.
    found.forEach(System.out::println);
    child.stdout.lines().filter(l -> l.startsWith("PACKAGES-SMOKE")).forEach(System.out::println);

    assertThat(child.stdout)
        .as(both)
        .contains("PACKAGES-SMOKE clear=123-45-6789 masked=*******6789 denied=null from=")
        .contains(runtime.resolvedJarName());
  }

  /** This test's classpath without any protector code (ours must come from --packages). */
  static String sparkClasspath() {
    List<String> kept = classpathWithoutProtector();
    assertThat(kept)
        .anyMatch(e -> e.contains("spark-core"))
        .anyMatch(e -> e.contains("iceberg-spark-runtime"));
    return String.join(File.pathSeparator, kept);
  }

  /** This test's classpath without any protector code and without any Iceberg jar. */
  static String sparkClasspathWithoutIceberg() {
    List<String> kept = classpathWithoutProtector();
    // nor the unrelocated copy of what the runtime jar bundles (Spark does not ship it either)
    kept.removeIf(
        e ->
            SparkSubmit.fileName(e).startsWith("iceberg-")
                || SparkSubmit.fileName(e).startsWith("caffeine-"));
    assertThat(kept)
        .anyMatch(e -> e.contains("spark-sql_"))
        .anyMatch(e -> e.contains("hadoop-client"))
        .anyMatch(e -> SparkSubmit.fileName(e).startsWith("parquet-hadoop-"))
        .noneMatch(e -> e.contains("iceberg"));
    return String.join(File.pathSeparator, kept);
  }

  private static List<String> classpathWithoutProtector() {
    // nor the unrelocated copies of what the runtime jar bundles, nor the CLI's own picocli
    return SparkSubmit.classpathWithoutProtector(
        e -> e.contains("/com/typesafe/config/") || e.contains("/info/picocli/"));
  }

  private static int count(String haystack, String needle) {
    int n = 0;
    for (int i = haystack.indexOf(needle); i >= 0; i = haystack.indexOf(needle, i + 1)) {
      n++;
    }
    return n;
  }
}
