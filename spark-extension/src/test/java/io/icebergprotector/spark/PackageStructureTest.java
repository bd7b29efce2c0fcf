package io.icebergprotector.spark;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The package graph of the extension, as the layer table of docs/architecture.md ("Inside
 * spark-extension") describes it: acyclic, entry points on top, and every package in the table.
 */
class PackageStructureTest {
  private static final String ROOT = "io.icebergprotector.spark";
  private static JavaClasses classes;

  @BeforeAll
  static void importClasses() {
    classes =
        new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("io.icebergprotector.spark");
  }

  @Test
  void subpackagesHaveNoCycles() {
    slices()
        .matching("io.icebergprotector.spark.(*)..")
        .should()
        .beFreeOfCycles()
        .because(
            "a package imports only the layers below it (docs/architecture.md, Inside"
                + " spark-extension)")
        .check(classes);
  }

  @Test
  void theLayerTableNamesEveryPackage() throws IOException {
    String page = Files.readString(Path.of("..", "docs", "architecture.md"));
    String table = page.substring(page.indexOf("## Inside `spark-extension`"));
    Set<String> packages = new TreeSet<>();
    for (JavaClass c : classes) {
      String name = c.getPackageName();
      if (name.startsWith(ROOT + ".")) {
        packages.add(name.substring(ROOT.length() + 1).split("\\.")[0]);
      }
    }
    List<String> missing = new ArrayList<>();
    for (String p : packages) {
      if (!table.contains("`" + p + "`")) {
        missing.add(p);
      }
    }
    assertThat(packages).contains("core", "read", "write");
    assertThat(missing)
        .as("packages missing from the layer table of docs/architecture.md")
        .isEmpty();
  }

  @Test
  void onlyTheEntryPointsImportTheEntryPoints() {
    noClasses()
        .that()
        .resideInAPackage("io.icebergprotector.spark.*..")
        .should()
        .dependOnClassesThat()
        .resideInAPackage("io.icebergprotector.spark")
        .because("the entry points users configure are the top layer")
        .check(classes);
  }

  @Test
  void readAndWritePathsAreLayered() {
    noClasses()
        .that()
        .resideInAnyPackage("..spark.read..", "..spark.core..", "..spark.crypto..")
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage(
            "..spark.write..", "..spark.rowlevel..", "..spark.table..", "..spark.streaming..")
        .check(classes);
  }
}
