/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.icebergprotector.kms.KeyServiceUnavailableException;
import io.icebergprotector.kms.remote.RemoteKeyService;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Per-caller request limits: a caller over its limit gets a 429 naming it, others go on. */
class RateLimitTest {
  @TempDir Path dir;

  @Test
  void aCallerOverItsLimitGetsA429AndOthersAreNotHeldBack() throws Exception {
    try (ServerFixture fx =
        ServerFixture.start(dir, "protector-server.limits.rate { requests = 3, period = 60s }")) {
      for (int i = 0; i < 3; i++) {
        assertThat(fx.get("/v1/protector/whoami", fx.token("etl")).statusCode()).isEqualTo(200);
      }
      HttpResponse<String> refused = fx.get("/v1/protector/whoami", fx.token("etl"));
      assertThat(refused.statusCode()).isEqualTo(429);
      assertThat(refused.body())
          .isEqualTo(
              "{\"errors\":[\"rate limit exceeded for principal 'etl': at most 3 requests per"
                  + " 60s\"]}");
      assertThat(refused.headers().firstValue("Retry-After")).hasValue("60");

      // another principal has its own budget; health probes are not counted
      assertThat(fx.get("/v1/protector/whoami", fx.token("alice")).statusCode()).isEqualTo(200);
      assertThat(fx.get("/health", null).statusCode()).isEqualTo(200);

      // an unauthenticated flood is a 401, never charged to the principal it names
      assertThat(fx.get("/v1/protector/whoami", "not-a-token").statusCode()).isEqualTo(401);

      assertThat(fx.auditLines())
          .anyMatch(
              l ->
                  l.contains("\"principal\":\"etl\"")
                      && l.contains("\"status\":429")
                      && l.contains("\"decision\":\"deny\""));
      assertThat(fx.get("/metrics", null).body()).contains("protector_rate_limited_total 1.0");

      // the client retries after Retry-After, then names the limit when it gives up
      try (RemoteKeyService etl =
          fx.clientBuilder(fx.url(), fx.token("etl")).maxAttempts(1).build()) {
        assertThatThrownBy(() -> etl.wrapKey(new byte[16], "pii"))
            .isInstanceOf(KeyServiceUnavailableException.class)
            .hasMessageContaining("wrap key 'pii'")
            .hasMessageContaining("HTTP 429: rate limit exceeded for principal 'etl'");
      }
    }
  }

  @Test
  void theClientWaitsForTheNextPeriodInsteadOfFailing() throws Exception {
    try (ServerFixture fx =
        ServerFixture.start(dir, "protector-server.limits.rate { requests = 1, period = 2s }")) {
      try (RemoteKeyService etl = fx.client("etl")) {
        String wrapped = etl.wrapKey(new byte[16], "pii");
        // the second call in the same period is refused once, then sent again after Retry-After
        assertThat(etl.wrapKey(new byte[16], "pii")).isNotEqualTo(wrapped);
      }
      assertThat(fx.auditLines())
          .anyMatch(l -> l.contains("\"principal\":\"etl\"") && l.contains("\"status\":429"));
    }
  }

  @Test
  void badLimitsNameTheSetting() {
    assertThatThrownBy(() -> ServerFixture.start(dir, "protector-server.limits.rate.requests = -1"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("limits.rate.requests must be >= 0 (0: no limit), got -1");
  }
}
