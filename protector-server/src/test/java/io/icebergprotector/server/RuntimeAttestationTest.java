/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.nimbusds.jose.JWSAlgorithm;
import io.icebergprotector.kms.KeyAccessDeniedException;
import io.icebergprotector.kms.KeyService;
import io.icebergprotector.kms.wire.Endpoints;
import io.icebergprotector.kms.wire.JsonCodec;
import io.icebergprotector.policy.Digests;
import io.icebergprotector.server.auth.TokenAuthenticator;
import io.icebergprotector.server.config.ServerConfig;
import io.icebergprotector.testing.TestPolicy;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Masking as a boundary the key server enforces: a key that a principal may use only to mask is
 * released only to a trusted runtime acting for it (the principal's token and the runtime's
 * credential, both checked and both audited), never to the principal's own token, unless the server
 * says it serves single-user clusters.
 */
class RuntimeAttestationTest {
  private static final String POLICY =
      TestPolicy.resource(RuntimeAttestationTest.class, "policies/RuntimeAttestationTest.conf");
  private static final String RUNTIME_AUDIENCE = "iceberg-protector-runtime";

  @TempDir Path dir;

  private final String runtimeToken = TokenAuthenticator.newToken();

  private String runtimes() {
    return "protector-server.auth.runtimes.tokens = [{ name = \"shared-cluster\", sha256 = \""
        + Digests.sha256Hex(runtimeToken)
        + "\" }]\n";
  }

  @Test
  void aMaskedPrincipalsOwnTokenGets403ForItsMaskOnlyKeysAndTheRuntimeGetsThem() throws Exception {
    try (ServerFixture fx = ServerFixture.startWithPolicy(dir, runtimes(), POLICY)) {
      String ssnKey = wrap(fx, "pii");
      String footerKey = wrap(fx, "footer");

      // bob reads ssn only masked: his token alone, as from curl, gets no key
      assertThat(unwrap(fx, "pii", ssnKey, fx.token("bob"), Map.of()).statusCode()).isEqualTo(403);
      assertThat(fx.auditLines())
          .last()
          .satisfies(
              line ->
                  assertThat(line)
                      .contains("\"principal\":\"bob\"")
                      .contains("\"decision\":\"deny\"")
                      .contains("masked access only")
                      .doesNotContain("\"runtime\""));
      // what bob needs for the rest of the file: the footer key, with his own token
      assertThat(unwrap(fx, "footer", footerKey, fx.token("bob"), Map.of()).statusCode())
          .isEqualTo(200);
      // alice reads ssn in clear: her own token gets its key
      assertThat(unwrap(fx, "pii", ssnKey, fx.token("alice"), Map.of()).statusCode())
          .isEqualTo(200);

      // the trusted runtime acting for bob gets it, and the audit names both
      Map<String, String> runtime = Map.of(Endpoints.RUNTIME_TOKEN_HEADER, runtimeToken);
      assertThat(unwrappable(fx, fx.token("bob"), Map.of()))
          .as("whoami says what bob's own token can unwrap")
          .containsExactly("footer");
      assertThat(unwrappable(fx, fx.token("bob"), runtime)).containsExactly("fin", "footer", "pii");
      HttpResponse<String> attested = unwrap(fx, "pii", ssnKey, fx.token("bob"), runtime);
      assertThat(attested.statusCode()).isEqualTo(200);
      assertThat(fx.auditLines())
          .last()
          .satisfies(
              line ->
                  assertThat(line)
                      .contains("\"principal\":\"bob\"")
                      .contains("\"op\":\"unwrap\"")
                      .contains("\"decision\":\"allow\"")
                      .contains("\"runtime\":\"token:shared-cluster\"")
                      .doesNotContain(runtimeToken));

      // the runtime widens no grant: a principal without a role gets nothing through it
      assertThat(unwrap(fx, "pii", ssnKey, fx.token("carol"), runtime).statusCode()).isEqualTo(403);
      // and it never acts alone: without a principal's token it is refused before anything
      assertThat(unwrap(fx, "pii", ssnKey, null, runtime).statusCode()).isEqualTo(401);
      assertThat(unwrap(fx, "pii", ssnKey, runtimeToken, Map.of()).statusCode())
          .as("a runtime credential is no principal's token")
          .isEqualTo(401);
      HttpResponse<String> forged =
          unwrap(
              fx,
              "pii",
              ssnKey,
              fx.token("bob"),
              Map.of(Endpoints.RUNTIME_TOKEN_HEADER, TokenAuthenticator.newToken()));
      assertThat(forged.statusCode()).isEqualTo(401);
      assertThat(forged.body())
          .contains("runtime authentication failed: unknown runtime credential");
    }
  }

  @Test
  void theHashMaskKeyOfAMaskOnlyColumnFollowsTheSameRule() throws Exception {
    try (ServerFixture fx = ServerFixture.startWithPolicy(dir, runtimes(), POLICY)) {
      String input =
          Base64.getEncoder().encodeToString("ann@x.test".getBytes(StandardCharsets.UTF_8));
      String body = "{\"input\":\"" + input + "\",\"key_version\":1}";
      assertThat(fx.post("/v1/transit/hmac/fin", fx.token("bob"), body).statusCode())
          .as("bob hash-masks email: the hash key reverses small domains")
          .isEqualTo(403);
      HttpResponse<String> attested =
          fx.request(
              "POST",
              "/v1/transit/hmac/fin",
              fx.token("bob"),
              body,
              Map.of(Endpoints.RUNTIME_TOKEN_HEADER, runtimeToken));
      assertThat(attested.statusCode()).isEqualTo(200);
      assertThat(fx.post("/v1/transit/hmac/fin", fx.token("alice"), body).statusCode())
          .isEqualTo(200);
    }
  }

  @Test
  void theJavaClientSendsTheRuntimeCredential() throws Exception {
    try (ServerFixture fx = ServerFixture.startWithPolicy(dir, runtimes(), POLICY)) {
      String wrapped;
      try (KeyService etl = fx.client("etl")) {
        wrapped = etl.wrapKey(new byte[16], "pii");
      }
      try (KeyService bob = fx.client("bob")) {
        assertThatThrownBy(() -> bob.unwrapKey(wrapped, "pii"))
            .isInstanceOf(KeyAccessDeniedException.class)
            .hasMessageContaining("principal 'bob' is not allowed to unwrap with key 'pii'")
            .hasMessageContaining("only to a trusted runtime acting for it")
            .hasMessageContaining("protector.runtime-token-file");
      }
      try (KeyService runtime =
          fx.clientBuilder(fx.url(), fx.token("bob")).runtimeToken(runtimeToken).build()) {
        assertThat(runtime.unwrapKey(wrapped, "pii")).hasSize(16);
      }
    }
  }

  @Test
  void aRuntimeJwtCarriesTheRuntimeAudienceAndAUsersJwtIsNoRuntimes() throws Exception {
    String config = "protector-server.auth.runtimes.jwt-audience = \"" + RUNTIME_AUDIENCE + "\"\n";
    try (ServerFixture fx = ServerFixture.startWithPolicy(dir, config, POLICY)) {
      String ssnKey = wrap(fx, "pii");
      Instant later = Instant.now().plusSeconds(300);
      String runtimeJwt =
          fx.jwt(
              JWSAlgorithm.HS256,
              "cluster-sp",
              null,
              later,
              null,
              ServerFixture.ISSUER,
              RUNTIME_AUDIENCE);
      HttpResponse<String> attested =
          unwrap(
              fx,
              "pii",
              ssnKey,
              fx.token("bob"),
              Map.of(Endpoints.RUNTIME_TOKEN_HEADER, runtimeJwt));
      assertThat(attested.statusCode()).isEqualTo(200);
      assertThat(fx.auditLines()).last().asString().contains("\"runtime\":\"jwt:cluster-sp\"");

      String usersJwt = fx.jwt(JWSAlgorithm.HS256, "bob", List.of());
      assertThat(
              unwrap(
                      fx,
                      "pii",
                      ssnKey,
                      fx.token("bob"),
                      Map.of(Endpoints.RUNTIME_TOKEN_HEADER, usersJwt))
                  .statusCode())
          .isEqualTo(401);
      assertThat(unwrap(fx, "pii", ssnKey, runtimeJwt, Map.of()).statusCode())
          .as("a runtime's JWT authenticates no principal")
          .isEqualTo(401);
    }
  }

  @Test
  void singleUserServersReleaseMaskOnlyKeysToThePrincipalsOwnToken() throws Exception {
    String config = "protector-server.auth.release-mask-keys-to-principals = true\n";
    try (ServerFixture fx = ServerFixture.startWithPolicy(dir, config, POLICY)) {
      String ssnKey = wrap(fx, "pii");
      assertThat(unwrap(fx, "pii", ssnKey, fx.token("bob"), Map.of()).statusCode()).isEqualTo(200);
      assertThat(unwrap(fx, "pii", ssnKey, fx.token("carol"), Map.of()).statusCode())
          .isEqualTo(403);
    }
  }

  @Test
  void runtimeSettingsAreChecked() throws Exception {
    ServerFixture fx = ServerFixture.prepareWithPolicy(dir, POLICY);
    String base = Files.readString(fx.configFile);
    String userToken = fx.token("bob");
    assertRefused(
        base
            + "protector-server.auth.runtimes.tokens = [{ name = \"c\", sha256 = \""
            + Digests.sha256Hex(userToken)
            + "\" }]\n",
        "auth.runtimes.tokens[0].sha256",
        "is also the token of principal 'bob'");
    assertRefused(
        base
            + "protector-server.auth.runtimes.tokens = [{ sha256 = \""
            + "a".repeat(64)
            + "\" }]\n",
        "auth.runtimes.tokens[0].name",
        "is required");
    assertRefused(
        base
            + "protector-server.auth.runtimes.tokens = [{ name = \"c\", principal = \"bob\","
            + " sha256 = \""
            + "a".repeat(64)
            + "\" }]\n",
        "auth.runtimes.tokens[0].principal",
        "acts for the principal whose token each request carries");
    assertRefused(
        base + "protector-server.auth.runtimes.jwt-audience = \"" + ServerFixture.AUDIENCE + "\"\n",
        "auth.runtimes.jwt-audience",
        "every user's token would be a runtime's");
    assertRefused(
        base.replaceAll("(?s)    jwt \\{.*?\\n    }\\n", "")
            + "protector-server.auth.runtimes.jwt-audience = \"rt\"\n",
        "auth.runtimes.jwt-audience",
        "needs auth.jwt");
  }

  private void assertRefused(String config, String... fragments) throws Exception {
    Path file = Files.writeString(dir.resolve("server.conf"), config);
    assertThatThrownBy(() -> ServerConfig.load(file))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContainingAll(fragments);
  }

  private static String wrap(ServerFixture fx, String key) throws Exception {
    String plaintext = Base64.getEncoder().encodeToString(new byte[16]);
    HttpResponse<String> enc =
        fx.post(
            "/v1/transit/encrypt/" + key, fx.token("etl"), "{\"plaintext\":\"" + plaintext + "\"}");
    assertThat(enc.statusCode()).isEqualTo(200);
    return (String) JsonCodec.object(JsonCodec.parseObject(enc.body()), "data").get("ciphertext");
  }

  @SuppressWarnings("unchecked")
  private static List<String> unwrappable(
      ServerFixture fx, String token, Map<String, String> headers) throws Exception {
    HttpResponse<String> whoami = fx.request("GET", Endpoints.WHOAMI, token, null, headers);
    assertThat(whoami.statusCode()).isEqualTo(200);
    return (List<String>)
        JsonCodec.object(JsonCodec.parseObject(whoami.body()), "data").get("unwrappable_keys");
  }

  private static HttpResponse<String> unwrap(
      ServerFixture fx, String key, String ciphertext, String token, Map<String, String> headers)
      throws Exception {
    return fx.request(
        "POST",
        "/v1/transit/decrypt/" + key,
        token,
        JsonCodec.write(JsonCodec.object("ciphertext", ciphertext)),
        headers);
  }
}
