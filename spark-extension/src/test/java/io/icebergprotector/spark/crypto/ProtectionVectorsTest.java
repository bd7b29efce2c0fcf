/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.spark.crypto;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.icebergprotector.policy.Access;
import io.icebergprotector.policy.ColumnPolicy;
import io.icebergprotector.policy.Policy;
import io.icebergprotector.spark.SharedVectors;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashSet;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The shared test vectors ({@code testdata/protection-vectors.json}), which the Python package's
 * {@code tests/test_vectors.py} checks too: both sides decide each principal's view and bind each
 * file alike.
 */
class ProtectionVectorsTest {
  private static JsonNode vectors;
  private static Policy policy;

  @BeforeAll
  static void load() {
    vectors = SharedVectors.load();
    policy = Policy.parse(vectors.get("policy").asText(), "protection-vectors.json");
  }

  @Test
  void decisions() {
    assertThat(vectors.get("decisions").size()).isGreaterThan(10);
    for (JsonNode c : vectors.get("decisions")) {
      ColumnPolicy column =
          policy.table(c.get("table").asText()).orElseThrow().columns().stream()
              .filter(p -> p.path().equalsIgnoreCase(c.get("column").asText()))
              .findFirst()
              .orElseThrow();
      Set<String> roles = new LinkedHashSet<>();
      c.get("roles").forEach(r -> roles.add(r.asText()));
      Access access = column.accessFor(roles);
      String what = c.toString();
      assertThat(access.level().name().toLowerCase()).as(what).isEqualTo(c.get("level").asText());
      if (c.has("mask")) {
        assertThat(access.mask().spec()).as(what).isEqualTo(c.get("mask").asText());
      }
      if (c.has("on_denied")) {
        assertThat(access.onDenied().name().toLowerCase())
            .as(what)
            .isEqualTo(c.get("on_denied").asText());
      }
    }
  }

  @Test
  void bindings() {
    for (JsonNode b : vectors.get("bindings")) {
      byte[] prefix =
          FileBinding.of(UUID.fromString(b.get("table_uuid").asText()))
              .aadPrefix(b.get("location").asText());
      assertThat(new String(prefix, StandardCharsets.UTF_8))
          .as(b.toString())
          .isEqualTo(b.get("aad_prefix").asText());
    }
  }
}
