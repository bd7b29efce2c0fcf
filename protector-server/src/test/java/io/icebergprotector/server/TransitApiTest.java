/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.icebergprotector.kms.KeyAccessDeniedException;
import io.icebergprotector.kms.KeyAlreadyExistsException;
import io.icebergprotector.kms.KeyDestroyedException;
import io.icebergprotector.kms.KeyInfo;
import io.icebergprotector.kms.KeyNotFoundException;
import io.icebergprotector.kms.KeyServiceException;
import io.icebergprotector.kms.KeyVersionRetiredException;
import io.icebergprotector.kms.remote.KeyAuthenticationException;
import io.icebergprotector.kms.remote.RemoteKeyService;
import io.icebergprotector.kms.remote.WhoAmI;
import io.icebergprotector.kms.wire.JsonCodec;
import io.icebergprotector.policy.Digests;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TransitApiTest {
  @TempDir static Path dir;
  static ServerFixture fx;

  @BeforeAll
  static void start() throws Exception {
    fx = ServerFixture.start(dir);
  }

  @AfterAll
  static void stop() {
    fx.close();
  }

  private static byte[] dataKey() {
    byte[] k = new byte[16];
    new SecureRandom().nextBytes(k);
    return k;
  }

  @Test
  void writerWrapsAndReadersWithAccessUnwrap() {
    byte[] dek = dataKey();
    try (RemoteKeyService etl = fx.client("etl");
        RemoteKeyService alice = fx.client("alice");
        RemoteKeyService bob = fx.client("bob")) {
      String wrapped = etl.wrapKey(dek, "pii");
      assertThat(wrapped).startsWith("vault:v1:");
      assertThat(alice.unwrapKey(wrapped, "pii")).isEqualTo(dek);
      assertThat(bob.unwrapKey(wrapped, "pii")).isEqualTo(dek); // masked access still needs the key

      String salary = etl.wrapKey(dek, "fin");
      assertThat(alice.unwrapKey(salary, "fin")).isEqualTo(dek);
      assertThatThrownBy(() -> bob.unwrapKey(salary, "fin"))
          .isInstanceOf(KeyAccessDeniedException.class)
          .hasMessageContaining("bob")
          .hasMessageContaining("fin")
          .hasMessageContaining("unwrap");
      // every reader gets the footer key; only writers wrap
      String footer = etl.wrapKey(dek, "footer");
      assertThat(bob.unwrapKey(footer, "footer")).isEqualTo(dek);
      assertThatThrownBy(() -> alice.wrapKey(dek, "pii"))
          .isInstanceOf(KeyAccessDeniedException.class)
          .hasMessageContaining("principal 'alice' is not allowed to wrap with key 'pii'");
      assertThatThrownBy(() -> etl.unwrapKey(wrapped, "pii"))
          .isInstanceOf(KeyAccessDeniedException.class)
          .hasMessageContaining("principal 'etl' is not allowed to unwrap with key 'pii'");
    }
  }

  @Test
  void unwrappedKeysAreCachedAsCopies() {
    byte[] dek = dataKey();
    try (RemoteKeyService etl = fx.client("etl");
        RemoteKeyService alice = fx.client("alice")) {
      String wrapped = etl.wrapKey(dek, "pii");
      byte[] first = alice.unwrapKey(wrapped, "pii");
      first[0] ^= 1; // a caller wiping or changing its copy must not affect the cache
      assertThat(alice.unwrapKey(wrapped, "pii")).isEqualTo(dek);
    }
  }

  @Test
  void deriveKeyIsHmacWithVersionOneAndSameForAllReaders() {
    try (RemoteKeyService alice = fx.client("alice");
        RemoteKeyService bob = fx.client("bob")) {
      byte[] a = alice.deriveKey("pii", "db.customers.ssn");
      assertThat(a).hasSize(32);
      assertThat(bob.deriveKey("pii", "db.customers.ssn")).isEqualTo(a);
      assertThat(alice.deriveKey("pii", "db.customers.email")).isNotEqualTo(a);
      assertThatThrownBy(() -> bob.deriveKey("fin", "x"))
          .isInstanceOf(KeyAccessDeniedException.class)
          .hasMessageContaining("principal 'bob' is not allowed to derive with key 'fin'");
    }
  }

  @Test
  void rotationKeepsOldCiphertextReadableAndHashesStable() throws Exception {
    byte[] dek = dataKey();
    try (RemoteKeyService etl = fx.client("etl");
        RemoteKeyService alice = fx.client("alice");
        RemoteKeyService ops = fx.client("ops")) {
      // a key of its own so that other tests do not see the rotation
      ops.createKey("rotating");
      assertThatThrownBy(() -> ops.createKey("rotating"))
          .isInstanceOf(KeyAlreadyExistsException.class)
          .hasMessageContaining("key 'rotating' already exists");
      KeyInfo before = ops.describeKey("rotating");
      assertThat(before.latestVersion()).isEqualTo(1);

      String v1 = etl.wrapKey(dek, "fin");
      byte[] hashBefore = alice.deriveKey("fin", "ctx");
      KeyInfo fin = ops.rotateKey("fin");
      assertThat(fin.latestVersion()).isGreaterThanOrEqualTo(2);
      String v2 = etl.wrapKey(dek, "fin");
      assertThat(v2).startsWith("vault:v" + fin.latestVersion() + ":");
      try (RemoteKeyService fresh = fx.client("alice")) { // no cache
        assertThat(fresh.unwrapKey(v1, "fin")).isEqualTo(dek);
        assertThat(fresh.unwrapKey(v2, "fin")).isEqualTo(dek);
        assertThat(fresh.deriveKey("fin", "ctx")).isEqualTo(hashBefore);
      }
      KeyInfo described = ops.describeKey("fin");
      assertThat(described.versions()).contains(1, fin.latestVersion());
      assertThat(ops.listKeys()).extracting(KeyInfo::id).contains("pii", "fin", "rotating");
    }
  }

  @Test
  void destroyedKeyCannotBeUsed() {
    byte[] dek = dataKey();
    try (RemoteKeyService etl = fx.client("etl");
        RemoteKeyService alice = fx.client("alice");
        RemoteKeyService ops = fx.client("ops")) {
      String wrapped = etl.wrapKey(dek, "scratch");
      assertThat(alice.unwrapKey(wrapped, "scratch")).isEqualTo(dek);
      ops.destroyKey("scratch");
      assertThat(ops.describeKey("scratch").destroyed()).isTrue();
      assertThatThrownBy(() -> etl.wrapKey(dek, "scratch"))
          .isInstanceOf(KeyDestroyedException.class)
          .hasMessageContaining("key 'scratch' was destroyed");
      try (RemoteKeyService fresh = fx.client("alice")) {
        assertThatThrownBy(() -> fresh.unwrapKey(wrapped, "scratch"))
            .isInstanceOf(KeyDestroyedException.class)
            .hasMessageContaining("key 'scratch' was destroyed");
      }
      assertThatThrownBy(() -> ops.describeKey("never-made"))
          .isInstanceOf(KeyNotFoundException.class)
          .hasMessageContaining("key 'never-made' not found");
    }
  }

  @Test
  void retiringOldVersionsStopsTheirUnwrapAndIsAdminOnlyAndAudited() throws Exception {
    byte[] dek = dataKey();
    try (RemoteKeyService etl = fx.client("etl");
        RemoteKeyService alice = fx.client("alice");
        RemoteKeyService ops = fx.client("ops")) {
      String v1 =
          etl.wrapKey(
              dek, "scratch-footer"); // a key of its own: other tests keep unwrapping v1 blobs
      assertThat(alice.unwrapKey(v1, "scratch-footer"))
          .isEqualTo(dek); // now in alice's unwrap cache
      ops.rotateKey("scratch-footer");
      String v2 = etl.wrapKey(dek, "scratch-footer");
      assertThatThrownBy(() -> alice.setMinDecryptionVersion("scratch-footer", 2))
          .isInstanceOf(KeyAccessDeniedException.class)
          .hasMessageContaining("alice");
      assertThatThrownBy(() -> ops.setMinDecryptionVersion("scratch-footer", 3))
          .isInstanceOf(KeyServiceException.class)
          .hasMessageContaining("key 'scratch-footer'")
          .hasMessageContaining("latest version is 2");

      KeyInfo retired = ops.setMinDecryptionVersion("scratch-footer", 2);

      assertThat(retired.minDecryptionVersion()).isEqualTo(2);
      assertThat(ops.describeKey("scratch-footer").minDecryptionVersion()).isEqualTo(2);
      try (RemoteKeyService fresh = fx.client("alice")) { // no cache
        assertThatThrownBy(() -> fresh.unwrapKey(v1, "scratch-footer"))
            .isInstanceOf(KeyVersionRetiredException.class)
            .hasMessageContaining("key 'scratch-footer' v1")
            .hasMessageContaining("minimum decryption version is 2");
        assertThat(fresh.unwrapKey(v2, "scratch-footer")).isEqualTo(dek);
      }
      assertThatThrownBy(() -> ops.setMinDecryptionVersion("scratch-footer", 1))
          .isInstanceOf(KeyServiceException.class)
          .hasMessageContaining(
              "Cannot lower the minimum decryption version of key 'scratch-footer' from 2 to 1");
    }
    HttpResponse<String> otherField =
        fx.post(
            "/v1/transit/keys/scratch-footer/config",
            fx.token("ops"),
            "{\"deletion_allowed\":true}");
    assertThat(otherField.statusCode()).isEqualTo(400);
    assertThat(otherField.body()).contains("unsupported key config field 'deletion_allowed'");
    List<String> lines = fx.auditLines();
    assertThat(lines)
        .anySatisfy(
            l ->
                assertThat(JsonCodec.parseObject(l))
                    .containsEntry("principal", "ops")
                    .containsEntry("op", "retire")
                    .containsEntry("key", "scratch-footer")
                    .containsEntry("decision", "allow")
                    .containsEntry("version", 2L));
    assertThat(lines)
        .anySatisfy(
            l ->
                assertThat(JsonCodec.parseObject(l))
                    .containsEntry("principal", "alice")
                    .containsEntry("op", "retire")
                    .containsEntry("decision", "deny"));
  }

  @Test
  void keyAdministrationNeedsAnAdminRole() {
    try (RemoteKeyService alice = fx.client("alice");
        RemoteKeyService etl = fx.client("etl")) {
      assertThatThrownBy(() -> alice.createKey("mine"))
          .isInstanceOf(KeyAccessDeniedException.class)
          .hasMessageContaining("principal 'alice' is not allowed to create with key 'mine'");
      assertThatThrownBy(() -> etl.rotateKey("pii"))
          .isInstanceOf(KeyAccessDeniedException.class)
          .hasMessageContaining("principal 'etl' is not allowed to rotate with key 'pii'");
      assertThatThrownBy(() -> etl.destroyKey("pii"))
          .isInstanceOf(KeyAccessDeniedException.class)
          .hasMessageContaining("principal 'etl' is not allowed to destroy with key 'pii'");
      assertThatThrownBy(() -> alice.describeKey("pii"))
          .isInstanceOf(KeyAccessDeniedException.class)
          .hasMessageContaining("principal 'alice' is not allowed to describe with key 'pii'");
      assertThatThrownBy(alice::listKeys)
          .isInstanceOf(KeyAccessDeniedException.class)
          .hasMessageContaining("principal 'alice' is not allowed to list");
    }
  }

  @Test
  void forbiddenLooksTheSameWhetherOrNotTheKeyExists() throws Exception {
    String bob = fx.token("bob");
    String ct = "{\"ciphertext\":\"vault:v1:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA\"}";
    HttpResponse<String> existing = fx.post("/v1/transit/decrypt/fin", bob, ct);
    HttpResponse<String> missing = fx.post("/v1/transit/decrypt/no-such-key", bob, ct);
    HttpResponse<String> unlisted =
        fx.post("/v1/transit/decrypt/other", bob, ct); // exists, not in policy
    assertThat(existing.statusCode()).isEqualTo(403);
    assertThat(missing.statusCode()).isEqualTo(403);
    assertThat(existing.body()).isEqualTo(missing.body()).isEqualTo(unlisted.body());
    assertThat(existing.body())
        .isEqualTo("{\"errors\":[\"permission denied\"],\"principal\":\"bob\"}");
    assertThat(existing.headers().map().keySet()).isEqualTo(missing.headers().map().keySet());

    String pt = "{\"plaintext\":\"AAAA\"}";
    String etl = fx.token("etl");
    assertThat(fx.post("/v1/transit/encrypt/other", etl, pt).body())
        .isEqualTo(fx.post("/v1/transit/encrypt/nope", etl, pt).body());
    assertThat(fx.get("/v1/transit/keys/pii", etl).body())
        .isEqualTo(fx.get("/v1/transit/keys/nope", etl).body());
    assertThat(fx.get("/v1/transit/keys/pii", etl).statusCode()).isEqualTo(403);
  }

  @Test
  void unauthenticatedRequestsGet401NamingTheCauseButNotTheToken() throws Exception {
    String body = "{\"plaintext\":\"AAAA\"}";
    HttpResponse<String> none = fx.post("/v1/transit/encrypt/pii", null, body);
    assertThat(none.statusCode()).isEqualTo(401);
    assertThat(none.body()).contains("missing token");
    String guess = "ipt_guessed-token-value-1234567890";
    HttpResponse<String> unknown = fx.post("/v1/transit/encrypt/pii", guess, body);
    assertThat(unknown.statusCode()).isEqualTo(401);
    assertThat(unknown.body()).contains("unknown token").doesNotContain(guess);
    assertThat(fx.get("/v1/protector/whoami", null).statusCode()).isEqualTo(401);
    assertThat(fx.get("/v1/protector/policy", null).statusCode()).isEqualTo(401);

    try (RemoteKeyService wrong = fx.clientBuilder(fx.url(), guess).build()) {
      assertThatThrownBy(() -> wrong.unwrapKey("vault:v1:AAAA", "pii"))
          .isInstanceOf(KeyAuthenticationException.class)
          .hasMessageStartingWith("authentication failed: unknown token")
          .hasMessageNotContaining(guess);
      assertThat(wrong.toString()).doesNotContain(guess);
    }
  }

  @Test
  void bearerHeaderWorksLikeVaultToken() throws Exception {
    HttpRequest request =
        HttpRequest.newBuilder(URI.create(fx.url() + "/v1/protector/whoami"))
            .header("Authorization", "Bearer " + fx.token("alice"))
            .GET()
            .build();
    HttpResponse<String> response = fx.http.send(request, HttpResponse.BodyHandlers.ofString());
    assertThat(response.statusCode()).isEqualTo(200);
    assertThat(JsonCodec.object(JsonCodec.parseObject(response.body()), "data"))
        .containsEntry("principal", "alice");
  }

  @Test
  void whoamiListsRolesAndKeys() {
    try (RemoteKeyService bob = fx.client("bob");
        RemoteKeyService etl = fx.client("etl");
        RemoteKeyService dave = fx.client("dave")) {
      WhoAmI who = bob.whoami();
      assertThat(who.principal()).isEqualTo("bob");
      assertThat(who.roles()).containsExactly("analyst");
      assertThat(who.unwrappableKeys()).contains("pii", "footer").doesNotContain("fin");
      assertThat(who.wrappableKeys()).isEmpty();
      assertThat(who.admin()).isFalse();
      assertThat(etl.whoami().wrappableKeys()).contains("pii", "fin", "footer");
      WhoAmI viaGroup = dave.whoami();
      assertThat(viaGroup.groups()).containsExactly("secops");
      assertThat(viaGroup.roles()).containsExactly("admin");
      assertThat(viaGroup.unwrappableKeys()).contains("fin");
    }
  }

  @Test
  void policyHealthAndMetrics() throws Exception {
    try (RemoteKeyService ops =
        fx.client("ops")) { // an admin role reads the whole file (PolicyViewTest)
      assertThat(ops.fetchPolicyText()).isEqualTo(ServerFixture.POLICY);
    }
    HttpResponse<String> health = fx.get("/health", null);
    assertThat(health.statusCode()).isEqualTo(200);
    assertThat(health.body()).isEqualTo("{\"status\":\"ok\"}");

    fx.post("/v1/transit/decrypt/fin", fx.token("bob"), "{}");
    HttpResponse<String> metrics = fx.get("/metrics", null);
    assertThat(metrics.statusCode()).isEqualTo(200);
    assertThat(metrics.headers().firstValue("Content-Type"))
        .hasValueSatisfying(v -> assertThat(v).startsWith("text/plain"));
    assertThat(metrics.body())
        // the Prometheus client writes labels in name order
        .contains("protector_http_requests_total{method=\"GET\",route=\"/health\",status=\"200\"}")
        .contains(
            "protector_http_requests_total{method=\"POST\",route=\"/v1/transit/decrypt/{key}\",status=\"403\"}")
        .contains("protector_key_operations_total{decision=\"deny\",op=\"unwrap\"}")
        .contains("protector_audit_write_errors_total 0.0")
        .contains("protector_http_request_duration_seconds_bucket{route=\"/health\",le=\"+Inf\"}")
        .doesNotContain("fin"); // no key names in labels
  }

  @Test
  void auditRecordsDecisionsAndNoSecrets() throws Exception {
    byte[] dek = dataKey();
    String wrapped;
    try (RemoteKeyService etl = fx.client("etl");
        RemoteKeyService alice = fx.client("alice");
        RemoteKeyService bob = fx.client("bob")) {
      wrapped = etl.wrapKey(dek, "fin");
      alice.unwrapKey(wrapped, "fin");
      assertThatThrownBy(() -> bob.unwrapKey(wrapped, "fin"))
          .isInstanceOf(KeyAccessDeniedException.class)
          .hasMessageContaining("principal 'bob' is not allowed to unwrap with key 'fin'");
      bob.deriveKey("pii", "audit-test");
    }
    List<String> lines = fx.auditLines();
    for (String line : lines) {
      Map<String, Object> event = JsonCodec.parseObject(line); // every line is one JSON object
      assertThat(event).containsKeys("time", "principal", "op", "decision", "client");
    }
    assertThat(lines)
        .anySatisfy(
            l ->
                assertThat(JsonCodec.parseObject(l))
                    .containsEntry("principal", "bob")
                    .containsEntry("op", "unwrap")
                    .containsEntry("key", "fin")
                    .containsEntry("decision", "deny")
                    .containsEntry("status", 403L)
                    .containsEntry("client", "127.0.0.1"));
    assertThat(lines)
        .noneSatisfy(
            l ->
                assertThat(JsonCodec.parseObject(l))
                    .containsEntry("principal", "bob")
                    .containsEntry("key", "fin")
                    .containsEntry("decision", "allow"));
    assertThat(lines)
        .anySatisfy(
            l ->
                assertThat(JsonCodec.parseObject(l))
                    .containsEntry("principal", "alice")
                    .containsEntry("op", "unwrap")
                    .containsEntry("key", "fin")
                    .containsEntry("decision", "allow")
                    .containsKey("version"));
    assertThat(lines)
        .anySatisfy(
            l ->
                assertThat(JsonCodec.parseObject(l))
                    .containsEntry("principal", "etl")
                    .containsEntry("op", "wrap")
                    .containsEntry("auth", "token:etl-token"));
    assertThat(lines)
        .anySatisfy(
            l ->
                assertThat(JsonCodec.parseObject(l))
                    .containsEntry("principal", "bob")
                    .containsEntry("op", "hmac")
                    .containsEntry("version", 1L));

    String audit = fx.audit();
    for (String token : fx.tokens.values()) {
      assertThat(audit).doesNotContain(token).doesNotContain(Digests.sha256Hex(token));
    }
    for (String material : fx.masterKeysBase64()) {
      assertThat(audit).doesNotContain(material);
    }
    assertThat(audit)
        .doesNotContain(Base64.getEncoder().encodeToString(dek))
        .doesNotContain(wrapped.substring("vault:v1:".length()));
    assertThat(audit)
        .doesNotContain(ServerFixture.KEYSTORE_PASSPHRASE)
        .doesNotContain(ServerFixture.TLS_PASSWORD);
  }

  @Test
  void vaultStyleJsonShapes() throws Exception {
    String etl = fx.token("etl");
    String plaintext =
        Base64.getEncoder().encodeToString("sixteen byte key".getBytes(StandardCharsets.UTF_8));
    HttpResponse<String> enc =
        fx.post("/v1/transit/encrypt/pii", etl, "{\"plaintext\":\"" + plaintext + "\"}");
    assertThat(enc.statusCode()).isEqualTo(200);
    Map<String, Object> data = JsonCodec.object(JsonCodec.parseObject(enc.body()), "data");
    assertThat((String) data.get("ciphertext")).startsWith("vault:v1:");
    assertThat(data.get("key_version")).isEqualTo(1L);

    HttpResponse<String> dec =
        fx.post(
            "/v1/transit/decrypt/pii",
            fx.token("alice"),
            JsonCodec.write(JsonCodec.object("ciphertext", data.get("ciphertext"))));
    assertThat(JsonCodec.object(JsonCodec.parseObject(dec.body()), "data"))
        .containsEntry("plaintext", plaintext);

    HttpResponse<String> hmac =
        fx.post(
            "/v1/transit/hmac/pii",
            fx.token("alice"),
            "{\"input\":\"" + plaintext + "\",\"key_version\":1}");
    assertThat(hmac.statusCode()).isEqualTo(200);
    assertThat((String) JsonCodec.object(JsonCodec.parseObject(hmac.body()), "data").get("hmac"))
        .startsWith("vault:v1:");

    HttpResponse<String> meta = fx.get("/v1/transit/keys/pii", fx.token("ops"));
    Map<String, Object> key = JsonCodec.object(JsonCodec.parseObject(meta.body()), "data");
    assertThat(key)
        .containsEntry("name", "pii")
        .containsEntry("type", "aes256-gcm96")
        .containsEntry("latest_version", 1L)
        .containsKeys("keys", "deletion_allowed");
    assertThat(JsonCodec.object(key, "keys")).containsKey("1");

    HttpResponse<String> list = fx.request("LIST", "/v1/transit/keys", fx.token("ops"), null);
    assertThat(list.statusCode()).isEqualTo(200);
    assertThat(list.body()).contains("\"pii\"");
  }
}
