/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The runtime jar carries the licenses of what it bundles: its own LICENSE and NOTICE (not a
 * bundled library's), and a NOTICE entry for every third-party library relocated into it, so a new
 * shaded dependency without a notice fails here.
 */
class RuntimeJarLicenseIT {
  private static final String SHADED = "io/icebergprotector/shaded/";

  /** Relocated package prefix, under {@link #SHADED}, to the component name the NOTICE uses. */
  private static final Map<String, String> COMPONENTS =
      Map.of(
          "com/typesafe/config/", "Typesafe Config",
          "com/github/benmanes/caffeine/", "Caffeine",
          "com/fasterxml/jackson/", "Jackson",
          "com/google/crypto/tink/", "Tink",
          "org/bouncycastle/", "Bouncy Castle");

  private static Path jar;

  @BeforeAll
  static void runtimeJar() {
    jar =
        Path.of(System.getProperty("runtime.dir"))
            .resolve(
                System.getProperty("runtime.artifact")
                    + "-"
                    + System.getProperty("runtime.version")
                    + ".jar");
    assertThat(jar).as("the runtime jar, copied at package; run 'mvn verify'").isRegularFile();
  }

  @Test
  void licenseAndNoticeAreTheProtectorsOwn() throws IOException {
    try (JarFile file = new JarFile(jar.toFile())) {
      assertThat(text(file, "META-INF/LICENSE"))
          .startsWith("\n                                 Apache License")
          .contains("Bouncy Castle", "MIT License");
      assertThat(text(file, "META-INF/NOTICE")).startsWith("Iceberg Protector Spark runtime");
      List<String> foreign = new ArrayList<>();
      file.stream()
          .map(JarEntry::getName)
          .filter(n -> n.matches("META-INF/(LICENSE|NOTICE|DEPENDENCIES).+"))
          .forEach(foreign::add);
      assertThat(foreign).as("bundled libraries' own license files, merged into ours").isEmpty();
    }
  }

  @Test
  void everyBundledLibraryHasANoticeEntry() throws IOException {
    try (JarFile file = new JarFile(jar.toFile())) {
      String notice = text(file, "META-INF/NOTICE");
      TreeSet<String> unknown = new TreeSet<>();
      TreeSet<String> bundled = new TreeSet<>();
      file.stream()
          .map(JarEntry::getName)
          .filter(n -> n.startsWith(SHADED) && n.endsWith(".class"))
          .map(n -> n.substring(SHADED.length()))
          .forEach(
              n ->
                  COMPONENTS.keySet().stream()
                      .filter(n::startsWith)
                      .findFirst()
                      .ifPresentOrElse(bundled::add, () -> unknown.add(packageOf(n))));
      assertThat(unknown)
          .as("relocated packages with no NOTICE entry (add one to spark-runtime/NOTICE)")
          .isEmpty();
      assertThat(bundled).isNotEmpty();
      for (String prefix : bundled) {
        assertThat(notice).as("NOTICE entry for " + prefix).contains(COMPONENTS.get(prefix));
      }
    }
  }

  private static String packageOf(String classEntry) {
    return classEntry.substring(0, Math.max(0, classEntry.lastIndexOf('/')));
  }

  private static String text(JarFile file, String name) throws IOException {
    JarEntry entry = file.getJarEntry(name);
    assertThat(entry).as(name + " in " + jar.getFileName()).isNotNull();
    try (InputStream in = file.getInputStream(entry)) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }
}
