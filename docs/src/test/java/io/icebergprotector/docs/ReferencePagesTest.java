/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.docs;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The committed reference pages ({@code docs/reference/*.md}) are what {@link ReferencePages}
 * writes from the code and {@code conf/} now: a changed option, policy field, server setting or
 * command fails here until the pages are generated again ({@value ReferencePages#REGENERATE}).
 */
class ReferencePagesTest {
  static final Path ROOT = Path.of("..").toAbsolutePath().normalize();

  /**
   * {@code -Ddocs.generate=true} (what {@code bin/docs generate} sets) writes the pages instead.
   */
  static final String GENERATE = "docs.generate";

  @Test
  void committedReferencePagesAreGeneratedFromTheCode() throws IOException {
    if (Boolean.getBoolean(GENERATE)) {
      ReferencePages.write(ROOT);
      return;
    }
    Map<String, String> generated = ReferencePages.pages(ROOT);
    Path dir = ROOT.resolve(ReferencePages.DIR);
    List<String> differ = new ArrayList<>();
    for (Map.Entry<String, String> page : generated.entrySet()) {
      Path file = dir.resolve(page.getKey());
      if (!Files.isRegularFile(file)
          || !Files.readString(file, StandardCharsets.UTF_8).equals(page.getValue())) {
        differ.add(ReferencePages.DIR + "/" + page.getKey());
      }
    }
    TreeSet<String> committed = new TreeSet<>();
    if (Files.isDirectory(dir)) {
      try (Stream<Path> files = Files.list(dir)) {
        files.forEach(p -> committed.add(p.getFileName().toString()));
      }
    }
    committed.removeAll(generated.keySet());
    committed.forEach(stale -> differ.add(ReferencePages.DIR + "/" + stale + " (not generated)"));
    assertThat(differ)
        .as(
            "reference pages that differ from what the code and conf/ say; run '%s' and commit"
                + " the result",
            ReferencePages.REGENERATE)
        .isEmpty();
  }
}
