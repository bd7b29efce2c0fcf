/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.spark.flow;

import static org.assertj.core.api.Assertions.assertThat;

import io.icebergprotector.spark.core.CatalogOptions;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** The data-flow page of the security model documents the guard and how to declassify. */
class DataFlowReadmeTest {
  @Test
  void dataFlowPageDocumentsTheGuard() throws IOException {
    String section = Files.readString(Path.of("..", "docs", "security", "data-flow.md"));
    assertThat(section)
        .contains(
            "`" + CatalogOptions.DECLASSIFY.key() + "=true`",
            "`" + DeclassificationGate.LOGGER + "`")
        .contains("`count(DISTINCT col)`", "not a flow", "`declassify = [...]`");
  }
}
