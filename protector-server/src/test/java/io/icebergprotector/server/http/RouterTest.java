/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.server.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.icebergprotector.server.audit.AuditLog;
import io.icebergprotector.server.audit.Metrics;
import io.icebergprotector.server.auth.CallerRateLimits;
import io.icebergprotector.server.auth.RuntimeAttestation;
import io.icebergprotector.server.auth.TokenAuthenticator;
import io.icebergprotector.server.config.ServerConfig;
import io.icebergprotector.server.policy.ServedPolicy;
import io.icebergprotector.testing.TestPolicy;
import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The router and the exchange without a network: what every route's answer goes through. */
class RouterTest {
  private static final String POLICY =
      TestPolicy.resource(RouterTest.class, "policies/RouterTest.conf");

  @TempDir Path dir;
  private AuditLog audit;
  private Metrics metrics;
  private Router router;
  private final List<String> tails = new ArrayList<>();

  /** One request as a transport hands it over. */
  private record Call(String method, String rawPath, Map<String, String> headers, byte[] content)
      implements HttpCall {
    @Override
    public String rawQuery() {
      return null;
    }

    @Override
    public String header(String name) {
      return headers.get(name);
    }

    @Override
    public String clientAddress() {
      return "192.0.2.7";
    }

    @Override
    public InputStream body() {
      return new ByteArrayInputStream(content);
    }
  }

  @BeforeEach
  void router() throws Exception {
    Path policy = Files.writeString(dir.resolve("policy.conf"), POLICY);
    audit = new AuditLog(dir.resolve("audit.log"), ServerConfig.AuditSync.FLUSH);
    metrics = new Metrics();
    Exchanges exchanges =
        new Exchanges(
            ServedPolicy.load(policy, Set.of()),
            new TokenAuthenticator(List.of(), null),
            RuntimeAttestation.none(),
            new CallerRateLimits(new ServerConfig.RateLimit(0, Duration.ofSeconds(1))),
            audit,
            metrics,
            1024,
            4096);
    router =
        new Router(exchanges)
            .exact("/ping", (x, tail) -> x.sendJson(200, Map.of("pong", true)))
            .under(
                "/v1/things/",
                "echo",
                (x, tail) -> {
                  tails.add(String.join("|", tail));
                  x.sendEmpty(204);
                })
            .under(
                "/v1/things/",
                "broken",
                (x, tail) -> {
                  throw new IllegalStateException("a bug naming /secret/path");
                })
            .under(
                "/v1/things/",
                "private",
                (x, tail) -> {
                  x.route("/v1/things/private");
                  x.op("read");
                  x.authenticate();
                });
  }

  @AfterEach
  void closeAudit() {
    audit.close();
  }

  private Reply get(String path) {
    return router.handle(new Call("get", path, Map.of(), new byte[0]));
  }

  private static String text(Reply reply) {
    return new String(reply.body(), StandardCharsets.UTF_8);
  }

  @Test
  void exactAndPrefixRoutesAnswerAndEverythingElseIsNotFound() {
    assertThat(text(get("/ping"))).isEqualTo("{\"pong\":true}");
    Reply echoed = get("/v1/things/echo/a%2Fb/c");
    assertThat(echoed.status()).isEqualTo(204);
    assertThat(tails).containsExactly("echo|a%2Fb|c"); // the raw path: %2F stays in its segment

    Reply missing = get("/v1/things/nothing");
    assertThat(missing.status()).isEqualTo(404);
    assertThat(text(missing)).isEqualTo("{\"errors\":[\"unsupported path\"]}");
    assertThat(missing.headers()).containsEntry("Cache-Control", "no-store");
    assertThat(metrics.render())
        .contains("{method=\"GET\",route=\"unmatched\",status=\"404\"} 1.0")
        .contains("{method=\"GET\",route=\"/ping\",status=\"200\"} 1.0");
  }

  @Test
  void aFailingRouteAnswers500WithoutItsCauseAndClosesTheConnection() {
    Reply reply = get("/v1/things/broken");
    assertThat(reply.status()).isEqualTo(500);
    assertThat(text(reply)).isEqualTo("{\"errors\":[\"internal error\"]}");
    assertThat(reply.headers()).containsEntry("Connection", "close");
  }

  @Test
  void aRefusedCallerIsAuditedBeforeTheAnswer() throws Exception {
    Reply reply =
        router.handle(
            new Call("GET", "/v1/things/private", Map.of("X-Vault-Token", "nope"), new byte[0]));
    assertThat(reply.status()).isEqualTo(401);
    assertThat(text(reply)).isEqualTo("{\"errors\":[\"authentication failed: unknown token\"]}");
    assertThat(reply.headers())
        .containsEntry("WWW-Authenticate", "Bearer realm=\"iceberg-protector\"");
    audit.flush();
    assertThat(Files.readString(dir.resolve("audit.log")))
        .contains("\"op\":\"read\"")
        .contains("\"decision\":\"deny\",\"reason\":\"authentication failed: unknown token\"")
        .contains("\"status\":401,\"client\":\"192.0.2.7\"");
  }
}
