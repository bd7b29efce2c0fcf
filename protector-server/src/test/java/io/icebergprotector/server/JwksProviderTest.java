/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.nimbusds.jose.JOSEObjectType;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.crypto.RSASSASigner;
import com.nimbusds.jose.jwk.JWK;
import com.nimbusds.jose.jwk.JWKSet;
import com.nimbusds.jose.jwk.RSAKey;
import com.nimbusds.jose.jwk.gen.RSAKeyGenerator;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;
import com.sun.net.httpserver.HttpServer;
import io.icebergprotector.kms.remote.KeyAuthenticationException;
import io.icebergprotector.kms.remote.RemoteKeyService;
import java.net.InetSocketAddress;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Date;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * JWT verification against an identity provider's JWKS URL: the provider (an HTTP endpoint on
 * loopback) rotates its signing key while clients keep calling the key server.
 */
class JwksProviderTest {
  private static final Duration CACHE_LIFETIME = Duration.ofSeconds(3);

  @TempDir static Path dir;
  static HttpServer provider;
  static final AtomicReference<String> published = new AtomicReference<>();
  static final AtomicInteger fetches = new AtomicInteger();
  static final AtomicBoolean providerDown = new AtomicBoolean();
  static ServerFixture fx;

  @BeforeAll
  static void start() throws Exception {
    provider = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    provider.createContext(
        "/.well-known/jwks.json",
        exchange -> {
          fetches.incrementAndGet();
          byte[] body = published.get().getBytes(StandardCharsets.UTF_8);
          int status = providerDown.get() ? 503 : 200;
          exchange.getResponseHeaders().add("Content-Type", "application/json");
          exchange.sendResponseHeaders(status, status == 200 ? body.length : -1);
          if (status == 200) {
            exchange.getResponseBody().write(body);
          }
          exchange.close();
        });
    provider.start();
    published.set(new JWKSet().toString());
    fx =
        ServerFixture.start(
            dir,
            String.join(
                "\n",
                "protector-server.auth.jwt {",
                "  jwks-url = \"http://127.0.0.1:"
                    + provider.getAddress().getPort()
                    + "/.well-known/jwks.json\"",
                "  jwks-cache-lifetime = " + CACHE_LIFETIME.toSeconds() + "s",
                "  jwks-min-refresh-interval = 0s",
                "}"));
  }

  @AfterAll
  static void stop() {
    fx.close();
    provider.stop(0);
  }

  private static void publish(RSAKey... keys) {
    List<JWK> publicKeys = new ArrayList<>();
    for (RSAKey key : keys) {
      publicKeys.add(key.toPublicJWK());
    }
    published.set(new JWKSet(publicKeys).toString());
  }

  private static String token(RSAKey key, String subject) throws Exception {
    SignedJWT jwt =
        new SignedJWT(
            new JWSHeader.Builder(JWSAlgorithm.RS256)
                .keyID(key.getKeyID())
                .type(JOSEObjectType.JWT)
                .build(),
            new JWTClaimsSet.Builder()
                .subject(subject)
                .issuer(ServerFixture.ISSUER)
                .audience(ServerFixture.AUDIENCE)
                .expirationTime(Date.from(Instant.now().plusSeconds(600)))
                .build());
    jwt.sign(new RSASSASigner(key));
    return jwt.serialize();
  }

  private static int whoamiStatus(String token) throws Exception {
    return fx.get("/v1/protector/whoami", token).statusCode();
  }

  @Test
  void rotatingTheProvidersSigningKeyWhileAJobRuns() throws Exception {
    RSAKey first = new RSAKeyGenerator(2048).keyID("idp-2026-11").generate();
    RSAKey second = new RSAKeyGenerator(2048).keyID("idp-2026-12").generate();
    publish(first);
    String firstToken = token(first, "alice");
    byte[] dek = "0123456789abcdef".getBytes(StandardCharsets.UTF_8);
    String wrapped;
    try (RemoteKeyService etl = fx.client("etl")) {
      wrapped = etl.wrapKey(dek, "fin");
    }

    // the "job": four clients unwrapping with a token signed by the first key, until told to stop
    AtomicBoolean running = new AtomicBoolean(true);
    AtomicInteger unwraps = new AtomicInteger();
    CountDownLatch warm = new CountDownLatch(4);
    ExecutorService job = Executors.newFixedThreadPool(4);
    List<Future<Throwable>> workers = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      workers.add(
          job.submit(
              () -> {
                try (RemoteKeyService alice = fx.clientBuilder(fx.url(), firstToken).build()) {
                  while (running.get()) {
                    assertThat(alice.unwrapKey(wrapped, "fin")).isEqualTo(dek);
                    unwraps.incrementAndGet();
                    warm.countDown();
                  }
                  return null;
                } catch (Throwable t) {
                  warm.countDown();
                  return t;
                }
              }));
    }
    assertThat(warm.await(60, TimeUnit.SECONDS)).isTrue();

    // the provider rotates: both keys published, new tokens signed by the second one; the key
    // server fetches the set on the first token whose key id it lacks, not at the cache's end
    publish(first, second);
    int fetchesBefore = fetches.get();
    String secondToken = token(second, "bob");
    assertThat(whoamiStatus(secondToken)).isEqualTo(200);
    assertThat(fetches.get()).isGreaterThan(fetchesBefore);

    int duringRotation = unwraps.get();
    running.set(false);
    for (Future<Throwable> worker : workers) {
      assertThat(worker.get(60, TimeUnit.SECONDS)).as("no job call failed").isNull();
    }
    job.shutdown();
    System.out.printf(
        "[jwks] %d unwraps by the job across the rotation, %d provider fetches%n",
        unwraps.get(), fetches.get());
    assertThat(unwraps.get()).isGreaterThanOrEqualTo(duringRotation);

    // the provider withdraws the first key: its tokens stop verifying once the cache expires
    publish(second);
    long withdrawn = System.nanoTime();
    long deadline = withdrawn + CACHE_LIFETIME.multipliedBy(5).toNanos();
    int status = whoamiStatus(firstToken);
    while (status == 200 && System.nanoTime() < deadline) {
      status = whoamiStatus(firstToken);
    }
    Duration refusedAfter = Duration.ofNanos(System.nanoTime() - withdrawn);
    System.out.printf("[jwks] withdrawn key refused after %d ms%n", refusedAfter.toMillis());
    assertThat(status).isEqualTo(401);
    assertThat(refusedAfter).isLessThanOrEqualTo(CACHE_LIFETIME.multipliedBy(2));
    try (RemoteKeyService alice = fx.clientBuilder(fx.url(), firstToken).build()) {
      assertThatThrownBy(() -> alice.unwrapKey(wrapped, "fin"))
          .isInstanceOf(KeyAuthenticationException.class)
          .hasMessageContaining("invalid token signature");
    }
    assertThat(whoamiStatus(secondToken)).isEqualTo(200);
  }

  @Test
  void aProviderThatIsDownIsNamedForTokensItsCacheCannotVerify() throws Exception {
    RSAKey unknown = new RSAKeyGenerator(2048).keyID("never-cached").generate();
    providerDown.set(true);
    try {
      HttpResponse<String> r = fx.get("/v1/protector/whoami", token(unknown, "alice"));
      assertThat(r.statusCode()).isEqualTo(401);
      assertThat(r.body())
          .isEqualTo("{\"errors\":[\"authentication failed: token signing keys unavailable\"]}");
    } finally {
      providerDown.set(false);
    }
  }

  @Test
  void tokensOfKeysTheProviderNeverPublishedAreRefused() throws Exception {
    RSAKey published = new RSAKeyGenerator(2048).keyID("idp-live").generate();
    RSAKey impostor = new RSAKeyGenerator(2048).keyID("idp-live").generate();
    publish(published);
    HttpResponse<String> r = fx.get("/v1/protector/whoami", token(impostor, "alice"));
    assertThat(r.statusCode()).isEqualTo(401);
    assertThat(r.body())
        .isEqualTo("{\"errors\":[\"authentication failed: invalid token signature\"]}");
    // static tokens and the configured keys never wait for the provider
    providerDown.set(true);
    try {
      assertThat(whoamiStatus(fx.token("alice"))).isEqualTo(200);
      assertThat(whoamiStatus(fx.jwt(JWSAlgorithm.ES256, "bob", null))).isEqualTo(200);
    } finally {
      providerDown.set(false);
    }
  }
}
