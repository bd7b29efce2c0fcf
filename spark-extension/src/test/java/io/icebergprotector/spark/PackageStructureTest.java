package io.icebergprotector.spark;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The package graph of the extension, as the README describes it: acyclic, entry points on top. */
class PackageStructureTest {
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
        .because("a package imports only the layers below it (README, Inside spark-extension)")
        .check(classes);
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
