/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.spark.paths;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * The plain Parquet paths page (docs/spark/paths.md) documents every {@code spark.protector.*}
 * session setting of plain Parquet paths.
 */
class PathSettingsReadmeTest {
  @Test
  void everySessionSettingIsDocumented() throws IOException {
    Path docs = Path.of("..", "docs");
    String readme = Files.readString(docs.resolve("spark").resolve("paths.md"));
    List<String> missing =
        PathScope.SETTINGS.stream()
            .filter(s -> !readme.contains("`" + s + "`"))
            .collect(Collectors.toList());
    assertThat(PathScope.SETTINGS).contains("spark.protector.policy", "spark.protector.user");
    assertThat(missing).as("spark.protector.* settings missing from docs/spark/paths.md").isEmpty();
    assertThat(readme).startsWith("# Plain Parquet paths");
    assertThat(Files.readString(docs.resolve("spark").resolve("deploy.md")))
        .contains("## REST catalogs: Polaris and Snowflake Open Catalog");
  }
}
