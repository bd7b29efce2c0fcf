/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.spark.paths;

import static org.assertj.core.api.Assertions.assertThat;

import io.icebergprotector.spark.ProtectorSparkSessionExtensions;
import io.icebergprotector.spark.crypto.ProtectorUnshadedKmsClient;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.URL;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.spi.ToolProvider;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The paths mode runs on a Spark classpath without Iceberg, so no class it can load may link an
 * Iceberg class. {@code jdeps} lists every class each compiled class of this module references
 * (constant pool, descriptors, lambda bodies); from the classes the paths mode starts at, every
 * reachable class of ours must reference only classes that Iceberg does not provide. {@code
 * PathsWithoutIcebergIT} (protector-cli) proves the same at run time in a JVM without Iceberg.
 */
class IcebergFreeLinkageTest {
  private static final String OURS = "io.icebergprotector.";

  /** class -> the classes it references, for every class of this module. */
  private static Map<String, Set<String>> references;

  @BeforeAll
  static void readDependencies() throws Exception {
    Path classes =
        Path.of(
            ProtectorSparkSessionExtensions.class
                .getProtectionDomain()
                .getCodeSource()
                .getLocation()
                .toURI());
    ToolProvider jdeps =
        ToolProvider.findFirst("jdeps")
            .orElseThrow(() -> new AssertionError("no jdeps in this JDK"));
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int rc =
        jdeps.run(
            new PrintWriter(out),
            new PrintWriter(err),
            "-verbose:class",
            "-filter:none",
            "--ignore-missing-deps",
            "--multi-release",
            "17",
            classes.toString());
    assertThat(rc).as("jdeps on %s: %s", classes, err).isZero();
    references = new TreeMap<>();
    for (String line : out.toString().split("\n")) {
      // "   io.icebergprotector.X -> org.apache.spark.Y   spark-sql.jar"
      String[] parts = line.trim().split("\\s+");
      if (parts.length >= 3 && parts[1].equals("->") && parts[0].startsWith(OURS)) {
        references.computeIfAbsent(parts[0], k -> new TreeSet<>()).add(parts[2]);
      }
    }
    assertThat(references)
        .as("jdeps output of %s", classes)
        .containsKey(ProtectorSparkSessionExtensions.class.getName());
  }

  @Test
  void pathsModeLinksNoIcebergClass() {
    List<String> roots = new ArrayList<>();
    roots.add(ProtectorSparkSessionExtensions.class.getName());
    roots.add(ProtectorUnshadedKmsClient.class.getName());
    references.keySet().stream()
        .filter(c -> c.startsWith(PathProtection.class.getPackageName() + "."))
        .filter(c -> !c.contains("Test"))
        .forEach(roots::add);

    Map<String, String> reachedFrom = reachable(roots);
    assertThat(reachedFrom)
        .as("the paths mode reaches the path factory, KMS client, masks and key tools")
        .containsKeys(
            PathPolicyCryptoFactory.class.getName(),
            "io.icebergprotector.spark.crypto.KeyTools",
            "io.icebergprotector.spark.crypto.KeyServiceRegistry",
            "io.icebergprotector.spark.crypto.HashMaskKeys",
            "io.icebergprotector.spark.masks.MaskEngine",
            "io.icebergprotector.spark.masks.ColumnMask",
            "io.icebergprotector.spark.masks.SharedHash",
            "io.icebergprotector.policy.masks.HashKernel",
            "io.icebergprotector.spark.core.ProtectorContext",
            "io.icebergprotector.spark.core.ProtectorException")
        .doesNotContainKey("io.icebergprotector.spark.IcebergRules");
    assertThat(icebergLinks(reachedFrom))
        .as(
            "Iceberg classes linked by classes the paths mode loads (class <- how it is reached:"
                + " referenced Iceberg classes); move them behind IcebergRules")
        .isEmpty();
  }

  @Test
  void maskEngineLinksNoIcebergClass() {
    // the paths mode shares the whole mask package with the Iceberg read path
    List<String> roots =
        references.keySet().stream()
            .filter(c -> c.startsWith("io.icebergprotector.spark.masks."))
            .collect(Collectors.toList());
    assertThat(roots).contains("io.icebergprotector.spark.masks.MaskEngine");
    Map<String, String> reachedFrom = reachable(roots);
    assertThat(reachedFrom).doesNotContainKey("io.icebergprotector.spark.read.IcebergMaskTypes");
    assertThat(icebergLinks(reachedFrom))
        .as(
            "Iceberg classes linked by the mask engine (class <- how it is reached: referenced"
                + " Iceberg classes); map Iceberg types outside it, in IcebergMaskTypes")
        .isEmpty();
  }

  @Test
  void icebergRulesDoLinkIceberg() {
    // The detector finds what it must: the Iceberg part references Iceberg's SQL plans.
    Map<String, String> reached = reachable(List.of("io.icebergprotector.spark.IcebergRules"));
    assertThat(icebergLinks(reached).values().stream().flatMap(List::stream))
        .contains(
            "org.apache.spark.sql.catalyst.plans.logical.AddPartitionField",
            "org.apache.spark.sql.catalyst.plans.logical.SetWriteDistributionAndOrdering");
  }

  /** Our classes reachable from {@code roots}, each with the class it was first reached from. */
  private static Map<String, String> reachable(List<String> roots) {
    Map<String, String> from = new LinkedHashMap<>();
    Deque<String> todo = new ArrayDeque<>();
    for (String root : roots) {
      from.put(root, null);
      todo.add(root);
    }
    while (!todo.isEmpty()) {
      String c = todo.poll();
      for (String ref : references.getOrDefault(c, Set.of())) {
        if (ref.startsWith(OURS) && !from.containsKey(ref)) {
          from.put(ref, c);
          todo.add(ref);
        }
      }
    }
    return from;
  }

  /** "class <- chain" to the Iceberg-provided classes it references. */
  private static Map<String, List<String>> icebergLinks(Map<String, String> reachedFrom) {
    Map<String, List<String>> links = new TreeMap<>();
    for (String c : reachedFrom.keySet()) {
      List<String> iceberg =
          references.getOrDefault(c, Set.of()).stream()
              .filter(IcebergFreeLinkageTest::providedByIceberg)
              .collect(Collectors.toList());
      if (!iceberg.isEmpty()) {
        links.put(chain(c, reachedFrom), iceberg);
      }
    }
    return links;
  }

  private static String chain(String c, Map<String, String> reachedFrom) {
    List<String> path = new ArrayList<>();
    for (String at = c; at != null; at = reachedFrom.get(at)) {
      path.add(at.substring(OURS.length()));
    }
    return String.join(" <- ", path);
  }

  /**
   * Whether Iceberg brings this class: its package, or a class file served by an Iceberg jar
   * (iceberg-spark-runtime also adds Spark-package classes such as {@code CallStatement}).
   */
  static boolean providedByIceberg(String className) {
    if (className.startsWith("org.apache.iceberg.")) {
      return true;
    }
    if (className.startsWith("java") || className.startsWith(OURS)) {
      return false;
    }
    URL resource =
        IcebergFreeLinkageTest.class
            .getClassLoader()
            .getResource(className.replace('.', '/') + ".class");
    return resource != null && resource.toString().contains("/iceberg-");
  }
}
