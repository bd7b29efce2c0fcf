/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.spark;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Each target's versions are said in four places that users read or run: its poms (through the root
 * pom's version properties), the Python package's {@code TARGETS} (which jars {@code
 * configure_spark_with_protector} loads for an installed {@code pyspark}), the compatibility table
 * of {@code docs/spark/index.md} and the PySpark page's {@code pip install} line. A new Spark patch
 * or Iceberg release changed in one place only fails here, naming the place.
 */
class TargetVersionsTest {
  private static final Path ROOT = Path.of("..");
  private static final Pattern PROPERTY = Pattern.compile("<([\\w.-]+)>([^<$]*)</\\1>");
  private static final Pattern REFERENCE = Pattern.compile("\\$\\{([\\w.-]+)}");
  // "4.1": ("4.1_2.13", "1.12.0"),
  private static final Pattern PYTHON_TARGET =
      Pattern.compile("\"(\\d+\\.\\d+)\": \\(\"([\\d.]+_[\\d.]+)\", \"([\\d.]+)\"\\)");

  /** One target: its folder name, Spark and Scala, Iceberg and pyspark (or null). */
  private record Target(String name, String spark, String iceberg, String pyspark) {}

  @Test
  void pythonTargetsAreThePomsTargets() throws IOException {
    Map<String, Target> targets = targets();
    assertThat(targets).containsKeys("3.5_2.13", "3.5_2.12", "4.0_2.13", "4.1_2.13");
    Map<String, String[]> python = new TreeMap<>();
    Matcher m =
        PYTHON_TARGET.matcher(
            Files.readString(ROOT.resolve("python/src/iceberg_protector/spark.py")));
    while (m.find()) {
      python.put(m.group(1), new String[] {m.group(2), m.group(3)});
    }
    Map<String, String[]> expected = new TreeMap<>();
    for (Target t : targets.values()) {
      if (t.pyspark() != null) {
        expected.put(
            t.name().substring(0, t.name().indexOf('_')), new String[] {t.name(), t.iceberg()});
      }
    }
    assertThat(python)
        .as(
            "TARGETS in python/src/iceberg_protector/spark.py: every target a pyspark wheel bundles")
        .containsOnlyKeys(expected.keySet());
    expected.forEach(
        (line, target) ->
            assertThat(python.get(line))
                .as("TARGETS[\"%s\"] in python/src/iceberg_protector/spark.py", line)
                .containsExactly(target));
  }

  @Test
  void theCompatibilityTableNamesEachTargetsVersions() throws IOException {
    String page = Files.readString(ROOT.resolve("docs/spark/index.md"));
    String pyspark = Files.readString(ROOT.resolve("docs/python/pyspark.md"));
    for (Target t : targets().values()) {
      String[] sparkScala = t.name().split("_");
      String row =
          page.lines()
              .filter(l -> l.startsWith("| " + sparkScala[0] + " | " + sparkScala[1] + " |"))
              .findFirst()
              .orElse(null);
      assertThat(row).as("row of %s in docs/spark/index.md", t.name()).isNotNull();
      assertThat(row)
          .as("row of %s in docs/spark/index.md", t.name())
          .contains("| " + t.iceberg() + " |")
          .contains("iceberg-protector-spark-runtime-" + t.name())
          .contains("Spark " + t.spark() + ":");
      assertThat(page)
          .as("spark-submit line of %s in docs/spark/index.md", t.name())
          .contains("iceberg-spark-runtime-" + t.name() + ":" + t.iceberg() + ",");
      if (t.pyspark() != null) {
        assertThat(row).as("row of %s", t.name()).contains("`pyspark==" + t.pyspark() + "`");
        assertThat(pyspark)
            .as("pip install line of docs/python/pyspark.md")
            .contains("pyspark==" + t.pyspark());
      }
    }
  }

  /** The targets of {@code spark/}, with the versions their poms resolve to. */
  private static Map<String, Target> targets() throws IOException {
    Map<String, String> root = properties(Files.readString(ROOT.resolve("pom.xml")));
    Map<String, Target> out = new TreeMap<>();
    try (Stream<Path> dirs = Files.list(ROOT.resolve("spark"))) {
      for (Path dir : dirs.sorted().toList()) {
        Map<String, String> props = new TreeMap<>(root);
        props.putAll(properties(Files.readString(dir.resolve("runtime-tests/pom.xml"))));
        String name = dir.getFileName().toString();
        out.put(
            name,
            new Target(
                name,
                resolve(props, "spark.version"),
                resolve(props, "iceberg.version"),
                props.containsKey("pyspark.version") ? resolve(props, "pyspark.version") : null));
      }
    }
    return out;
  }

  private static Map<String, String> properties(String pom) {
    Map<String, String> props = new TreeMap<>();
    String section = pom.substring(pom.indexOf("<properties>"), pom.indexOf("</properties>"));
    Matcher m = PROPERTY.matcher(section.replaceAll("(?s)<!--.*?-->", ""));
    while (m.find()) {
      props.put(m.group(1), m.group(2).strip());
    }
    Matcher refs =
        Pattern.compile("<([\\w.-]+)>(\\$\\{[\\w.-]+})</\\1>")
            .matcher(section.replaceAll("(?s)<!--.*?-->", ""));
    while (refs.find()) {
      props.put(refs.group(1), refs.group(2));
    }
    return props;
  }

  private static String resolve(Map<String, String> props, String name) {
    String value = props.get(name);
    assertThat(value).as("property %s", name).isNotNull();
    for (int depth = 0; depth < 5; depth++) {
      Matcher m = REFERENCE.matcher(value);
      if (!m.find()) {
        return value;
      }
      String referenced = props.get(m.group(1));
      assertThat(referenced).as("property %s", m.group(1)).isNotNull();
      value = m.replaceFirst(Matcher.quoteReplacement(referenced));
    }
    return value;
  }
}
