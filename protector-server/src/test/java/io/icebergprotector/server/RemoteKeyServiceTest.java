/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.icebergprotector.kms.KeyAccessDeniedException;
import io.icebergprotector.kms.KeyIntegrityException;
import io.icebergprotector.kms.KeyServiceUnavailableException;
import io.icebergprotector.kms.SecretRef;
import io.icebergprotector.kms.remote.RemoteKeyService;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.cert.CertificateFactory;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Transport behaviour of the client: retries, timeouts, cache, TLS trust, secrecy of the token. */
class RemoteKeyServiceTest {
  @TempDir static Path dir;
  static ServerFixture fx;
  static final byte[] DEK = "0123456789abcdef".getBytes(StandardCharsets.UTF_8);

  private HttpServer stub;
  private final AtomicInteger requests = new AtomicInteger();
  private final AtomicInteger decrypts = new AtomicInteger();

  @BeforeAll
  static void start() throws Exception {
    fx = ServerFixture.start(dir);
  }

  @AfterAll
  static void stop() {
    fx.close();
  }

  @AfterEach
  void stopStub() {
    if (stub != null) {
      stub.stop(0);
    }
  }

  /**
   * Plain-HTTP stub on loopback: the first {@code failures} requests get {@code failStatus}, the
   * rest are forwarded.
   */
  private URI stub(int failures, int failStatus, long delayMillis) throws IOException {
    stub = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 16);
    stub.createContext(
        "/",
        exchange -> {
          int n = requests.incrementAndGet();
          if (exchange.getRequestURI().getPath().contains("/decrypt/")) {
            decrypts.incrementAndGet();
          }
          try {
            if (delayMillis > 0) {
              Thread.sleep(delayMillis);
            }
            if (n <= failures) {
              byte[] body = "{\"errors\":[\"try later\"]}".getBytes(StandardCharsets.UTF_8);
              exchange.sendResponseHeaders(failStatus, body.length);
              exchange.getResponseBody().write(body);
            } else {
              forward(exchange);
            }
          } catch (Exception e) {
            exchange.sendResponseHeaders(502, -1);
          } finally {
            exchange.close();
          }
        });
    stub.setExecutor(java.util.concurrent.Executors.newCachedThreadPool());
    stub.start();
    return URI.create("http://127.0.0.1:" + stub.getAddress().getPort());
  }

  private static void forward(HttpExchange exchange) throws Exception {
    byte[] body;
    try (InputStream in = exchange.getRequestBody()) {
      body = in.readAllBytes();
    }
    HttpRequest.Builder b =
        HttpRequest.newBuilder(URI.create(fx.url() + exchange.getRequestURI().toString()))
            .method(exchange.getRequestMethod(), HttpRequest.BodyPublishers.ofByteArray(body));
    String token = exchange.getRequestHeaders().getFirst("X-Vault-Token");
    if (token != null) {
      b.header("X-Vault-Token", token);
    }
    HttpResponse<byte[]> r = fx.http.send(b.build(), HttpResponse.BodyHandlers.ofByteArray());
    exchange.sendResponseHeaders(r.statusCode(), r.body().length == 0 ? -1 : r.body().length);
    exchange.getResponseBody().write(r.body());
  }

  private RemoteKeyService.Builder via(URI url, String user) {
    return fx.clientBuilder(url, fx.token(user));
  }

  @Test
  void retriesServerErrorsThenSucceeds() throws Exception {
    URI url = stub(2, 503, 0);
    String wrapped;
    try (RemoteKeyService etl = fx.client("etl")) {
      wrapped = etl.wrapKey(DEK, "pii");
    }
    try (RemoteKeyService alice = via(url, "alice").maxAttempts(4).build()) {
      assertThat(alice.unwrapKey(wrapped, "pii")).isEqualTo(DEK);
    }
    assertThat(requests.get()).isEqualTo(3);
  }

  @Test
  void givesUpAfterMaxAttemptsNamingTheUrl() throws Exception {
    URI url = stub(Integer.MAX_VALUE, 503, 0);
    try (RemoteKeyService alice = via(url, "alice").maxAttempts(3).build()) {
      assertThatThrownBy(() -> alice.unwrapKey("vault:v1:AAAA", "pii"))
          .isInstanceOf(KeyServiceUnavailableException.class)
          .hasMessageContaining(url.toString())
          .hasMessageContaining("HTTP 503")
          .hasMessageNotContaining(fx.token("alice"));
    }
    assertThat(requests.get()).isEqualTo(3);
  }

  @Test
  void doesNotRetryClientErrors() throws Exception {
    URI url = stub(0, 0, 0);
    try (RemoteKeyService bob = via(url, "bob").maxAttempts(5).build()) {
      assertThatThrownBy(() -> bob.unwrapKey("vault:v1:AAAA", "fin"))
          .isInstanceOf(KeyAccessDeniedException.class)
          .hasMessageContaining("principal 'bob' is not allowed to unwrap with key 'fin'");
    }
    assertThat(requests.get()).isEqualTo(1);
    try (RemoteKeyService alice = via(url, "alice").maxAttempts(5).build()) {
      assertThatThrownBy(() -> alice.unwrapKey("vault:v1:QUFB", "pii"))
          .isInstanceOf(KeyIntegrityException.class)
          .hasMessageContaining(
              "cannot unwrap for key 'pii': ciphertext failed the integrity check");
    }
    assertThat(requests.get()).isEqualTo(2);
  }

  @Test
  void rotateIsNotRetriedOnServerErrors() throws Exception {
    URI url = stub(1, 500, 0);
    try (RemoteKeyService ops = via(url, "ops").maxAttempts(5).build()) {
      assertThatThrownBy(() -> ops.rotateKey("other"))
          .isInstanceOf(KeyServiceUnavailableException.class)
          .hasMessageContaining("is unavailable (rotate key 'other'): HTTP 500");
    }
    assertThat(requests.get()).isEqualTo(1); // a lost answer must not rotate twice
  }

  @Test
  void requestTimeoutsAreRetriedAndReported() throws Exception {
    URI url = stub(0, 0, 1500);
    long start = System.nanoTime();
    try (RemoteKeyService alice =
        via(url, "alice").maxAttempts(2).requestTimeout(Duration.ofMillis(200)).build()) {
      assertThatThrownBy(() -> alice.unwrapKey("vault:v1:AAAA", "pii"))
          .isInstanceOf(KeyServiceUnavailableException.class)
          .hasMessageContaining(url.toString())
          .hasMessageContaining("Timeout");
    }
    assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(3));
    assertThat(requests.get()).isEqualTo(2);
  }

  @Test
  void unreachableServerIsUnavailable() throws Exception {
    int port;
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      port = s.getLocalPort();
    }
    URI url = URI.create("https://127.0.0.1:" + port);
    try (RemoteKeyService alice = via(url, "alice").maxAttempts(3).build()) {
      assertThatThrownBy(() -> alice.unwrapKey("vault:v1:AAAA", "pii"))
          .isInstanceOf(KeyServiceUnavailableException.class)
          .hasMessageContaining("key service at https://127.0.0.1:" + port + " is unavailable")
          .hasMessageContaining("ConnectException");
    }
  }

  @Test
  void cacheServesRepeatedUnwrapsAndCanBeDisabled() throws Exception {
    URI url = stub(0, 0, 0);
    String wrapped;
    try (RemoteKeyService etl = fx.client("etl")) {
      wrapped = etl.wrapKey(DEK, "pii");
    }
    try (RemoteKeyService alice = via(url, "alice").build()) {
      for (int i = 0; i < 5; i++) {
        assertThat(alice.unwrapKey(wrapped, "pii")).isEqualTo(DEK);
      }
    }
    assertThat(decrypts.get()).isEqualTo(1);
    try (RemoteKeyService alice = via(url, "alice").cacheTtl(Duration.ZERO).build()) {
      alice.unwrapKey(wrapped, "pii");
      alice.unwrapKey(wrapped, "pii");
    }
    assertThat(decrypts.get()).isEqualTo(3);
  }

  @Test
  void untrustedServerCertificateFailsFastWithTlsMessage() {
    try (RemoteKeyService alice =
        RemoteKeyService.builder()
            .url(fx.url())
            .token(fx.token("alice"))
            .maxAttempts(4)
            .build()) { // JDK default trust: the self-signed cert is unknown
      long start = System.nanoTime();
      assertThatThrownBy(() -> alice.unwrapKey("vault:v1:AAAA", "pii"))
          .isInstanceOf(KeyServiceUnavailableException.class)
          .hasMessageContaining("TLS connection to key service at " + fx.url());
      assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(2));
    }
  }

  @Test
  void trustStoreFileWorks() throws Exception {
    Path trust = dir.resolve("trust.p12");
    KeyStore ks = KeyStore.getInstance("PKCS12");
    ks.load(null, null);
    try (InputStream in = Files.newInputStream(fx.certificate)) {
      ks.setCertificateEntry(
          "server", CertificateFactory.getInstance("X.509").generateCertificate(in));
    }
    try (var out = Files.newOutputStream(trust)) {
      ks.store(out, "trustpass".toCharArray());
    }
    try (RemoteKeyService etl =
        RemoteKeyService.builder()
            .url(fx.url().toString())
            .token(fx.token("etl"))
            .trustStore(trust, "trustpass".toCharArray())
            .build()) {
      assertThat(etl.wrapKey(DEK, "pii")).startsWith("vault:v1:");
    }
  }

  @Test
  void tokenNeverAppearsInToStringOrMessages() throws Exception {
    Path tokenFile = dir.resolve("token");
    Files.writeString(tokenFile, fx.token("bob") + "\n");
    try (RemoteKeyService bob =
        RemoteKeyService.builder()
            .url(fx.url())
            .token(SecretRef.ofFile(tokenFile.toString()).read())
            .trustedCertificate(fx.certificate)
            .build()) {
      assertThat(bob.toString()).isEqualTo("RemoteKeyService{url=" + fx.url() + ", mount=transit}");
      assertThatThrownBy(() -> bob.unwrapKey("vault:v1:AAAA", "fin"))
          .isInstanceOf(KeyAccessDeniedException.class)
          .hasMessageNotContaining(fx.token("bob"))
          .hasMessageContaining("principal 'bob' is not allowed to unwrap with key 'fin'");
      assertThat(bob.whoami().principal()).isEqualTo("bob");
    }
    assertThatThrownBy(() -> RemoteKeyService.builder().token("bad token with spaces"))
        .hasMessageNotContaining("spaces")
        .hasMessageContaining("Token contains a character not allowed in an HTTP header");
    assertThatThrownBy(() -> RemoteKeyService.builder().url("ftp://x").token("t").build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("Key service url must be https:// (or http:// on loopback): ftp://x");
    assertThatThrownBy(
            () -> RemoteKeyService.builder().url("https://user:pw@host").token("t").build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageNotContaining("pw")
        .hasMessageContaining("Key service url must not carry credentials");
  }

  @Test
  void closedClientRefusesWork() {
    RemoteKeyService alice = fx.client("alice");
    alice.close();
    assertThatThrownBy(() -> alice.unwrapKey("vault:v1:AAAA", "pii"))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("RemoteKeyService is closed");
  }
}
