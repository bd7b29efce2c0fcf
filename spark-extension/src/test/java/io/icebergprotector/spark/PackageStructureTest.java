/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.spark;

import static com.tngtech.archunit.library.Architectures.layeredArchitecture;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.library.Architectures.LayeredArchitecture;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The package graph of the extension is the layer table of docs/architecture.md ("Inside
 * spark-extension"): the layered-architecture rule is built from that table, row by row, so the
 * page and the build cannot disagree.
 */
class PackageStructureTest {
  private static final String ROOT = "io.icebergprotector.spark";
  private static final String SECTION = "## Inside `spark-extension`";
  private static final Pattern PACKAGE = Pattern.compile("`([a-z][a-z0-9.]*)`");

  private static JavaClasses classes;
  private static List<Layer> layers;

  /** One row of the table: its packages, relative to {@link #ROOT} ({@code ""} is the root). */
  private record Layer(String name, List<String> packages) {
    String[] identifiers() {
      // the root is the package itself; every other layer its package and any below it
      return packages.stream()
          .map(p -> p.isEmpty() ? ROOT : ROOT + "." + p + "..")
          .toArray(String[]::new);
    }
  }

  @BeforeAll
  static void importClasses() throws IOException {
    classes =
        new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages(ROOT);
    layers = readLayerTable(Files.readString(Path.of("..", "docs", "architecture.md")));
  }

  /** The rows of the table under {@link #SECTION}, top row first. */
  private static List<Layer> readLayerTable(String page) {
    int start = page.indexOf(SECTION);
    assertThat(start).as("docs/architecture.md has the section %s", SECTION).isNotNegative();
    List<Layer> rows = new ArrayList<>();
    boolean inTable = false;
    for (String line : page.substring(start + SECTION.length()).split("\n", -1)) {
      if (!line.startsWith("|")) {
        if (inTable) {
          break; // the first line after the table ends it
        }
        continue;
      }
      inTable = true;
      String firstCell = line.split("\\|", -1)[1].trim();
      List<String> packages = new ArrayList<>();
      Matcher m = PACKAGE.matcher(firstCell);
      while (m.find()) {
        String name = m.group(1);
        packages.add(name.equals(ROOT) ? "" : name);
      }
      if (!packages.isEmpty()) { // the header and the separator name no package
        rows.add(new Layer(firstCell.replace("`", ""), List.copyOf(packages)));
      }
    }
    return rows;
  }

  @Test
  void theLayerTableIsRead() {
    assertThat(layers).as("rows of the layer table").hasSizeGreaterThan(10);
    assertThat(layers.get(0).packages())
        .as("the top row is the root package, the entry points")
        .containsExactly("");
    List<String> named = new ArrayList<>();
    layers.forEach(l -> named.addAll(l.packages()));
    assertThat(named).as("each package in one row").doesNotHaveDuplicates();
  }

  @Test
  void eachLayerIsImportedOnlyByTheLayersAboveIt() {
    LayeredArchitecture rule = layeredArchitecture().consideringOnlyDependenciesInLayers();
    for (Layer layer : layers) {
      rule = rule.layer(layer.name()).definedBy(layer.identifiers());
    }
    rule = rule.whereLayer(layers.get(0).name()).mayNotBeAccessedByAnyLayer();
    for (int i = 1; i < layers.size(); i++) {
      String[] above = layers.subList(0, i).stream().map(Layer::name).toArray(String[]::new);
      rule = rule.whereLayer(layers.get(i).name()).mayOnlyBeAccessedByLayers(above);
    }
    rule.because(
            "a package imports only the packages of the rows below its own in the layer table"
                + " of docs/architecture.md (Inside spark-extension)")
        .check(classes);
  }

  @Test
  void packagesOfOneRowHaveNoCycles() {
    // the layer rule lets the packages of one row (e.g. flow and actions) import each other
    slices()
        .matching(ROOT + ".(*)..")
        .should()
        .beFreeOfCycles()
        .because("packages of one row of the layer table may import each other, never in a cycle")
        .check(classes);
  }

  @Test
  void theLayerTableNamesEveryPackage() {
    Set<String> packages = new TreeSet<>();
    for (JavaClass c : classes) {
      String name = c.getPackageName();
      if (name.startsWith(ROOT + ".")) {
        packages.add(name.substring(ROOT.length() + 1).split("\\.")[0]);
      }
    }
    Set<String> inTable = new TreeSet<>();
    layers.forEach(l -> inTable.addAll(l.packages()));
    List<String> missing = new ArrayList<>();
    for (String p : packages) {
      if (!inTable.contains(p)) {
        missing.add(p);
      }
    }
    assertThat(packages).contains("core", "read", "write");
    assertThat(missing)
        .as("packages missing from the layer table of docs/architecture.md")
        .isEmpty();
  }
}
