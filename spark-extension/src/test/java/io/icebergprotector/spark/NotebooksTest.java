/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.spark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.icebergprotector.spark.core.ProtectorContext;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The notebooks in {@code notebooks/} are valid nbformat 4 JSON, and every catalog option ({@code
 * spark.sql.catalog.<c>.protector.*}) and every {@code io.icebergprotector} class they mention
 * exists, as does every page of the documentation site they name ({@code docs/...md}), so a renamed
 * option, class or page cannot leave them stale. The runtime version they load (or the version the
 * Python package's helper pins) is the one being built. {@code PySparkIT} runs them top to bottom.
 */
class NotebooksTest {
  private static final Path NOTEBOOKS = Path.of("..", "notebooks");
  // ".protector.kms.keystore" in f"{C}.protector.kms.keystore",
  // "spark.sql.catalog.prot.protector.user", ...
  private static final Pattern OPTION =
      Pattern.compile("(?<=[.\"'])protector\\.[a-z][a-z0-9-]*(?:\\.[a-z][a-z0-9-]*)*");
  private static final Pattern CLASS =
      Pattern.compile("io\\.icebergprotector(?:\\.[a-z][a-z0-9_]*)*\\.[A-Z][A-Za-z0-9_$]*");
  private static final Pattern DOCS_PAGE = Pattern.compile("docs/[a-z0-9/_-]+\\.md");
  private static final Pattern RUNTIME_COORDINATE =
      Pattern.compile(
          "io\\.icebergprotector:iceberg-protector-spark-runtime-(?:3\\.5_2\\.1[23]|4\\.0_2\\.13):([0-9A-Za-z.\\-]+)");

  @ParameterizedTest
  @ValueSource(strings = {"pyspark-quickstart.ipynb", "spark-sql.ipynb"})
  void notebookIsValidAndUsesExistingNames(String name) throws IOException {
    Path file = NOTEBOOKS.resolve(name);
    JsonNode nb = new ObjectMapper().readTree(file.toFile());

    // nbformat 4: the fields every reader needs.
    assertThat(nb.path("nbformat").asInt()).isEqualTo(4);
    assertThat(nb.path("nbformat_minor").isInt()).isTrue();
    assertThat(nb.path("metadata").isObject()).isTrue();
    assertThat(nb.path("cells").isArray()).isTrue();
    assertThat(nb.path("cells").size()).isGreaterThan(3);
    Set<String> ids = new HashSet<>();
    StringBuilder code = new StringBuilder();
    StringBuilder all = new StringBuilder();
    for (JsonNode cell : nb.path("cells")) {
      String type = cell.path("cell_type").asText();
      assertThat(type).isIn("markdown", "code", "raw");
      assertThat(cell.path("metadata").isObject()).as("cell metadata").isTrue();
      if (nb.path("nbformat_minor").asInt() >= 5) {
        assertThat(cell.path("id").asText()).matches("[a-zA-Z0-9_-]{1,64}");
        assertThat(ids.add(cell.path("id").asText())).as("unique cell id").isTrue();
      }
      String source = source(cell.path("source"));
      all.append(source).append('\n');
      if (type.equals("code")) {
        assertThat(cell.path("outputs").isArray()).as("code cell outputs").isTrue();
        assertThat(cell.has("execution_count")).isTrue();
        code.append(source).append('\n');
      }
    }

    Set<String> options = matches(OPTION, code);
    assertThat(options).as("catalog options used in " + name).isNotEmpty();
    assertThat(options)
        .as("options not in ProtectorContext.OPTIONS")
        .isSubsetOf(ProtectorContext.OPTIONS);

    Set<String> classes = matches(CLASS, all);
    boolean helper = all.indexOf("configure_spark_with_protector(") >= 0;
    if (helper) {
      // the helper adds the session extensions: the classes it names must exist too
      classes.addAll(matches(CLASS, pythonSparkModule()));
    }
    assertThat(classes)
        .as("classes named in " + name)
        .contains(
            ProtectingSparkCatalog.class.getName(),
            ProtectorSparkSessionExtensions.class.getName());
    for (String className : classes) {
      assertThatCode(() -> Class.forName(className, false, getClass().getClassLoader()))
          .as("class %s named in %s", className, name)
          .doesNotThrowAnyException();
    }

    // Pages of the documentation site they point to exist.
    for (String page : matches(DOCS_PAGE, all)) {
      assertThat(Path.of("..", page)).as("page %s named in %s", page, name).isRegularFile();
    }

    // spark.jars.packages names the runtime artifact at the version being built.
    Set<String> versions = new TreeSet<>();
    Matcher m = RUNTIME_COORDINATE.matcher(all);
    while (m.find()) {
      versions.add(m.group(1));
    }
    Matcher versionVariable = Pattern.compile("VERSION = \"([^\"]+)\"").matcher(all);
    while (versionVariable.find()) {
      versions.add(versionVariable.group(1));
    }
    if (helper) {
      // the Python package names the coordinates: its pinned version of the JVM artifacts
      versions.add(pythonPackagePin());
    }
    assertThat(versions).as("runtime versions in " + name).containsExactly(runtimeVersion());
  }

  private static String source(JsonNode source) {
    if (source.isTextual()) {
      return source.asText();
    }
    StringBuilder sb = new StringBuilder();
    source.forEach(line -> sb.append(line.asText()));
    return sb.toString();
  }

  private static Set<String> matches(Pattern pattern, CharSequence text) {
    Set<String> found = new TreeSet<>();
    Matcher m = pattern.matcher(text);
    while (m.find()) {
      found.add(m.group());
    }
    return found;
  }

  /**
   * The version of the default target's runtime jar: spark/3.5_2.13/runtime/pom.xml inherits it
   * from its parent, whose version it names.
   */
  private static String runtimeVersion() throws IOException {
    Path pom = Path.of("..", "spark", "3.5_2.13", "runtime", "pom.xml");
    Matcher m =
        Pattern.compile(
                "<artifactId>iceberg-protector-spark-runtime-parent</artifactId>\\s*<version>([^<]+)</version>")
            .matcher(Files.readString(pom));
    assertThat(m.find()).as("parent version in " + pom).isTrue();
    return m.group(1);
  }

  /** The Python package's PySpark helpers, {@code iceberg_protector/spark.py}. */
  private static String pythonSparkModule() throws IOException {
    return Files.readString(Path.of("..", "python", "src", "iceberg_protector", "spark.py"));
  }

  /** {@code PROTECTOR_VERSION} of the Python package's PySpark helpers. */
  private static String pythonPackagePin() throws IOException {
    String module = pythonSparkModule();
    Matcher m = Pattern.compile("(?m)^PROTECTOR_VERSION = \"([^\"]+)\"").matcher(module);
    assertThat(m.find()).as("PROTECTOR_VERSION in python/src/iceberg_protector/spark.py").isTrue();
    return m.group(1);
  }

  @Test
  void everyNotebookIsChecked() throws IOException {
    List<String> names = new ArrayList<>();
    try (Stream<Path> s = Files.list(NOTEBOOKS)) {
      s.filter(p -> p.toString().endsWith(".ipynb"))
          .forEach(p -> names.add(p.getFileName().toString()));
    }
    assertThat(names).containsExactlyInAnyOrder("pyspark-quickstart.ipynb", "spark-sql.ipynb");
  }
}
