/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.spark;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The test vectors that the Java side and the Python package both check ({@code
 * testdata/protection-vectors.json}, found from the working directory up).
 */
public final class SharedVectors {
  private SharedVectors() {}

  public static JsonNode load() {
    Path dir = Path.of("").toAbsolutePath();
    while (dir != null && !Files.isRegularFile(dir.resolve("testdata/protection-vectors.json"))) {
      dir = dir.getParent();
    }
    assertThat(dir).as("a parent directory holding testdata/protection-vectors.json").isNotNull();
    Path file = dir.resolve("testdata/protection-vectors.json");
    try {
      return new ObjectMapper().readTree(Files.readString(file));
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read " + file, e);
    }
  }
}
