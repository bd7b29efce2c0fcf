/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.server.routes;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.icebergprotector.policy.Policy;
import io.icebergprotector.testing.TestPolicy;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HexFormat;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The mask vectors of {@code testdata/protection-vectors.json} as server token mode applies them to
 * the values it decodes for a masked reader: the same results as the Spark readers' ({@code
 * MaskVectorsTest}) for every mask and type a tokenized column can have.
 */
class TokenColumnViewVectorsTest {
  @Test
  void masks() throws IOException {
    JsonNode vectors = new ObjectMapper().readTree(Files.readString(vectorFile()));
    byte[] key = HexFormat.of().parseHex(vectors.get("mask_hash_key").asText());
    int checked = 0;
    for (JsonNode c : vectors.get("masks")) {
      String type = c.get("type").asText();
      if (!Set.of("string", "long", "int").contains(type)) {
        continue; // types a tokenized column cannot have
      }
      Policy policy =
          Policy.parse(
              TestPolicy.builder()
                  .role("analyst", "bob")
                  .role("etl", "etl")
                  .keys("k", "f")
                  .table(
                      "db.t",
                      t ->
                          t.footerKey("f")
                              .writers("etl")
                              .column(
                                  "c",
                                  col ->
                                      col.key("k")
                                          .method(
                                              type.equals("string")
                                                  ? "deterministic"
                                                  : "fpe(width = 12)")
                                          .domain("d")
                                          .masked("analyst", c.get("mask").asText())))
                  .render(),
              "mask vector " + c);
      TokenColumnView view =
          TokenColumnView.of(policy, Set.of("analyst"), "k", "d", "db.t", "c", type.equals("int"))
              .orElseThrow();
      Object[] values = {type.equals("string") ? c.get("value").asText() : c.get("value").asLong()};
      view.apply(values, false, key::clone);
      JsonNode expected = c.get("masked");
      Object want =
          expected.isNull() ? null : expected.isTextual() ? expected.asText() : expected.asLong();
      assertThat(values[0]).as(c.toString()).isEqualTo(want);
      checked++;
    }
    assertThat(checked).isGreaterThan(10);
  }

  private static Path vectorFile() {
    Path d = Path.of("").toAbsolutePath();
    while (d != null && !Files.isRegularFile(d.resolve("testdata/protection-vectors.json"))) {
      d = d.getParent();
    }
    assertThat(d).as("a parent directory holding testdata/protection-vectors.json").isNotNull();
    return d.resolve("testdata/protection-vectors.json");
  }
}
