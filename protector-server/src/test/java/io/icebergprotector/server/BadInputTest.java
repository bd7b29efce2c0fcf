/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.icebergprotector.kms.remote.RemoteKeyService;
import io.icebergprotector.kms.wire.JsonCodec;
import io.icebergprotector.testing.SelfSignedTls;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Base64;
import java.util.List;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Hostile and broken requests: each gets a 4xx with a Vault-style error, and the server keeps
 * serving.
 */
class BadInputTest {
  @TempDir static Path dir;
  static ServerFixture fx;
  static String alice;
  static String etl;

  @BeforeAll
  static void start() throws Exception {
    fx = ServerFixture.start(dir);
    alice = fx.token("alice");
    etl = fx.token("etl");
  }

  @AfterAll
  static void stop() {
    fx.close();
  }

  @AfterEach
  void serverStillServes() throws Exception {
    assertThat(fx.get("/health", null).statusCode()).isEqualTo(200);
    try (RemoteKeyService e = fx.client("etl");
        RemoteKeyService a = fx.client("alice")) {
      byte[] dek = "0123456789abcdef".getBytes(StandardCharsets.UTF_8);
      assertThat(a.unwrapKey(e.wrapKey(dek, "pii"), "pii")).isEqualTo(dek);
    }
  }

  private static void assertVaultError(HttpResponse<String> r, int status, String fragment) {
    assertThat(r.statusCode()).as(r.body()).isEqualTo(status);
    assertThat(r.headers().firstValue("Content-Type")).hasValue("application/json");
    Object errors = JsonCodec.parseObject(r.body()).get("errors");
    assertThat(errors).isInstanceOf(List.class);
    assertThat((List<?>) errors).hasSize(1);
    assertThat((String) ((List<?>) errors).get(0)).contains(fragment);
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "{\"plaintext\":",
        "{plaintext: \"AAAA\"}",
        "[\"AAAA\"]",
        "\"AAAA\"",
        "{\"plaintext\":\"AAAA\",\"plaintext\":\"BBBB\"}",
        "{\"plaintext\":\"AAAA\"} trailing",
        "{\"plaintext\":\"AAAA\\u00\"}",
        "nul"
      })
  void malformedJson(String body) throws Exception {
    assertVaultError(fx.post("/v1/transit/encrypt/pii", etl, body), 400, "JSON");
  }

  @Test
  void deeplyNestedJsonIsRefusedNotAStackOverflow() throws Exception {
    String body = "[".repeat(1500) + "]".repeat(1500);
    assertVaultError(fx.post("/v1/transit/encrypt/pii", etl, body), 400, "nesting");
  }

  @Test
  void invalidUtf8Body() throws Exception {
    HttpRequest r =
        HttpRequest.newBuilder(URI.create(fx.url() + "/v1/transit/encrypt/pii"))
            .header("X-Vault-Token", etl)
            .POST(
                HttpRequest.BodyPublishers.ofByteArray(
                    new byte[] {'{', '"', (byte) 0xC3, (byte) 0x28, '"', '}'}))
            .build();
    assertVaultError(fx.http.send(r, HttpResponse.BodyHandlers.ofString()), 400, "UTF-8");
  }

  @Test
  void emptyBodyAndWrongFieldTypes() throws Exception {
    assertVaultError(fx.post("/v1/transit/encrypt/pii", etl, ""), 400, "empty");
    assertVaultError(fx.post("/v1/transit/encrypt/pii", etl, "{}"), 400, "plaintext");
    assertVaultError(
        fx.post("/v1/transit/encrypt/pii", etl, "{\"plaintext\":5}"), 400, "plaintext");
    assertVaultError(
        fx.post("/v1/transit/encrypt/pii", etl, "{\"plaintext\":\"\"}"), 400, "plaintext");
    assertVaultError(
        fx.post("/v1/transit/decrypt/pii", alice, "{\"ciphertext\":null}"), 400, "ciphertext");
    assertVaultError(
        fx.post("/v1/transit/encrypt/pii", etl, "{\"batch_input\":[]}"), 400, "batch_input");
  }

  @Test
  void oversizeBodies() throws Exception {
    String big = "{\"plaintext\":\"" + "A".repeat(5000) + "\"}";
    assertVaultError(fx.post("/v1/transit/encrypt/pii", etl, big), 413, "larger than");
    // chunked (no Content-Length): the limit applies while reading
    HttpRequest chunked =
        HttpRequest.newBuilder(URI.create(fx.url() + "/v1/transit/encrypt/pii"))
            .header("X-Vault-Token", etl)
            .POST(
                HttpRequest.BodyPublishers.ofInputStream(
                    () -> new java.io.ByteArrayInputStream(big.getBytes(StandardCharsets.UTF_8))))
            .build();
    assertVaultError(
        fx.http.send(chunked, HttpResponse.BodyHandlers.ofString()), 413, "larger than");
    // a huge declared body: refused before reading; the client may see the connection close
    // mid-send
    try {
      HttpResponse<String> r =
          fx.post(
              "/v1/transit/encrypt/pii", etl, "{\"plaintext\":\"" + "A".repeat(2_000_000) + "\"}");
      assertThat(r.statusCode()).isEqualTo(413);
    } catch (java.io.IOException acceptable) {
      // broken pipe while still sending is a correct outcome of an early 413
    }
  }

  @Test
  void badBase64() throws Exception {
    assertVaultError(
        fx.post("/v1/transit/encrypt/pii", etl, "{\"plaintext\":\"not base64!\"}"), 400, "base64");
    assertVaultError(fx.post("/v1/transit/hmac/pii", alice, "{\"input\":\"%%%\"}"), 400, "base64");
    assertVaultError(
        fx.post("/v1/transit/decrypt/pii", alice, "{\"ciphertext\":\"vault:v1:not base64\"}"),
        400,
        "invalid ciphertext");
    assertVaultError(
        fx.post("/v1/transit/decrypt/pii", alice, "{\"ciphertext\":\"vault:v1:QUFB\"}"),
        400,
        "integrity");
    assertVaultError(
        fx.post("/v1/transit/decrypt/pii", alice, "{\"ciphertext\":\"plain text\"}"),
        400,
        "invalid ciphertext");
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "..%2f..%2fetc%2fpasswd",
        "..%2F",
        "%2e%2e",
        "..",
        ".",
        "../keys/pii",
        "pii%00",
        "p%C3%AFi",
        "%E2%80%AE",
        "",
        "a/b",
        "pii;x",
        "pii%20"
      })
  void oddKeyNames(String name) throws Exception {
    HttpResponse<String> r =
        fx.post("/v1/transit/encrypt/" + name, etl, "{\"plaintext\":\"AAAA\"}");
    assertThat(r.statusCode()).as(name + " -> " + r.body()).isBetween(400, 499);
    assertThat(JsonCodec.parseObject(r.body())).containsKey("errors");
  }

  @Test
  void overlongKeyName() throws Exception {
    assertVaultError(
        fx.post(
            "/v1/transit/decrypt/" + "k".repeat(129), alice, "{\"ciphertext\":\"vault:v1:AAAA\"}"),
        400,
        "invalid key name");
  }

  @Test
  void rawUnicodeAndTraversalOnTheWire() throws Exception {
    // Bytes the HTTP client would refuse or normalise: write the request line by hand.
    for (String target :
        List.of(
            "/v1/transit/encrypt/p\u00efi",
            "/v1/transit/encrypt/../../etc/passwd",
            "/v1/transit/encrypt/%",
            "/v1/transit/encrypt/\u202epii")) {
      String status =
          rawRequest(
              "POST "
                  + target
                  + " HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Vault-Token: "
                  + etl
                  + "\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}");
      assertThat(status).as(target).matches("HTTP/1\\.1 4\\d\\d .*");
    }
  }

  @Test
  void unknownVersionsAreClientErrors() throws Exception {
    String wrapped;
    try (RemoteKeyService e = fx.client("etl")) {
      wrapped = e.wrapKey("0123456789abcdef".getBytes(StandardCharsets.UTF_8), "pii");
    }
    String v99 = wrapped.replaceFirst("^vault:v1:", "vault:v99:");
    assertVaultError(
        fx.post(
            "/v1/transit/decrypt/pii", alice, JsonCodec.write(JsonCodec.object("ciphertext", v99))),
        400,
        "unknown key version 99");
    assertVaultError(
        fx.post("/v1/transit/decrypt/pii", alice, "{\"ciphertext\":\"vault:v0:AAAA\"}"),
        400,
        "invalid ciphertext");
    assertVaultError(
        fx.post("/v1/transit/decrypt/pii", alice, "{\"ciphertext\":\"vault:v99999999999:AAAA\"}"),
        400,
        "invalid ciphertext");
    assertVaultError(
        fx.post("/v1/transit/hmac/pii", alice, "{\"input\":\"AAAA\",\"key_version\":7}"),
        400,
        "unknown key version 7");
    assertVaultError(
        fx.post("/v1/transit/hmac/pii", alice, "{\"input\":\"AAAA\",\"key_version\":\"x\"}"),
        400,
        "key_version");
    assertVaultError(
        fx.post("/v1/transit/hmac/pii/sha2-512", alice, "{\"input\":\"AAAA\"}"), 400, "sha2-256");
    assertVaultError(
        fx.post("/v1/transit/hmac/pii", alice, "{\"input\":\"AAAA\",\"algorithm\":7}"),
        400,
        "Field 'algorithm' must be a string");
  }

  @Test
  void replayedCiphertextOfAnotherKeyFailsIntegrity() throws Exception {
    byte[] dek = "0123456789abcdef".getBytes(StandardCharsets.UTF_8);
    String pii;
    try (RemoteKeyService e = fx.client("etl")) {
      pii = e.wrapKey(dek, "pii");
    }
    // alice may unwrap both keys; a pii blob presented as fin must not decrypt
    HttpResponse<String> r =
        fx.post(
            "/v1/transit/decrypt/fin", alice, JsonCodec.write(JsonCodec.object("ciphertext", pii)));
    assertVaultError(r, 400, "integrity");
    assertThat(r.body()).doesNotContain(Base64.getEncoder().encodeToString(dek));
    // tampering with one byte of the blob
    byte[] blob = Base64.getDecoder().decode(pii.substring("vault:v1:".length()));
    blob[blob.length - 1] ^= 1;
    String tampered = "vault:v1:" + Base64.getEncoder().encodeToString(blob);
    assertVaultError(
        fx.post(
            "/v1/transit/decrypt/pii",
            alice,
            JsonCodec.write(JsonCodec.object("ciphertext", tampered))),
        400,
        "integrity");
  }

  @Test
  void wrongMethodsAndPaths() throws Exception {
    assertVaultError(fx.get("/v1/transit/encrypt/pii", etl), 405, "not allowed");
    assertVaultError(fx.request("PUT", "/v1/transit/keys/pii", etl, "{}"), 405, "not allowed");
    assertVaultError(fx.post("/health", null, "{}"), 405, "not allowed");
    assertVaultError(fx.get("/v1/transit/export/encryption-key/pii", etl), 404, "unsupported path");
    assertVaultError(fx.get("/v1/sys/mounts", etl), 404, "unsupported path");
    assertVaultError(fx.get("/", null), 404, "unsupported path");
  }

  @Test
  void badKeyTypeOnCreate() throws Exception {
    assertVaultError(
        fx.post("/v1/transit/keys/newrsa", fx.token("ops"), "{\"type\":\"rsa-4096\"}"),
        400,
        "unsupported key type");
  }

  @Test
  void garbageTokens() throws Exception {
    for (String token :
        List.of("a.b.c", "eyJhbGciOiJub25lIn0.eyJzdWIiOiJhbGljZSJ9.", "x".repeat(9000), "ipt_")) {
      HttpResponse<String> r =
          fx.post("/v1/transit/decrypt/pii", token, "{\"ciphertext\":\"vault:v1:AAAA\"}");
      assertThat(r.statusCode())
          .as(token.substring(0, Math.min(20, token.length())))
          .isEqualTo(401);
      assertThat(r.body()).doesNotContain(token);
    }
  }

  @Test
  void earlyRefusalsDoNotWedgeKeepAliveConnections() throws Exception {
    // Refused before the body is read (403, 400 on the name, 405): the next request on the same
    // pooled connection must still be answered promptly.
    for (int i = 0; i < 40; i++) {
      assertThat(fx.post("/v1/transit/encrypt/other", etl, "{\"plaintext\":\"AAAA\"}").statusCode())
          .isEqualTo(403);
      assertThat(fx.post("/v1/transit/encrypt/a%2Fb", etl, "{\"plaintext\":\"AAAA\"}").statusCode())
          .isEqualTo(400);
      assertThat(fx.request("PUT", "/v1/transit/encrypt/pii", etl, "{}").statusCode())
          .isEqualTo(405);
      assertThat(fx.post("/v1/transit/keys/pii/rotate", etl, "{}").statusCode()).isEqualTo(403);
      assertThat(fx.get("/health", null).statusCode()).isEqualTo(200);
    }
  }

  private static String rawRequest(String request) throws Exception {
    javax.net.ssl.SSLContext ctx = SelfSignedTls.trusting(fx.certificate);
    try (SSLSocket socket =
        (SSLSocket) ctx.getSocketFactory().createSocket("127.0.0.1", fx.url().getPort())) {
      socket.setSoTimeout(5000);
      OutputStream out = socket.getOutputStream();
      out.write(request.getBytes(StandardCharsets.UTF_8));
      out.flush();
      InputStream in = socket.getInputStream();
      StringBuilder line = new StringBuilder();
      int c;
      while ((c = in.read()) != -1 && c != '\n') {
        line.append((char) c);
      }
      return line.toString().trim();
    }
  }
}
