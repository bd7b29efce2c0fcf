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
import com.nimbusds.jose.crypto.MACSigner;
import com.nimbusds.jose.crypto.RSASSASigner;
import com.nimbusds.jose.jwk.RSAKey;
import com.nimbusds.jose.jwk.gen.RSAKeyGenerator;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.PlainJWT;
import com.nimbusds.jwt.SignedJWT;
import io.icebergprotector.kms.remote.KeyAuthenticationException;
import io.icebergprotector.kms.remote.RemoteKeyService;
import io.icebergprotector.kms.wire.JsonCodec;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Date;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class JwtAuthTest {
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

  private static Map<String, Object> whoami(String token) throws Exception {
    HttpResponse<String> r = fx.get("/v1/protector/whoami", token);
    assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
    return JsonCodec.object(JsonCodec.parseObject(r.body()), "data");
  }

  private static void assertRejected(String token, String category) throws Exception {
    HttpResponse<String> r = fx.get("/v1/protector/whoami", token);
    assertThat(r.statusCode()).isEqualTo(401);
    assertThat(r.body()).isEqualTo("{\"errors\":[\"authentication failed: " + category + "\"]}");
    assertThat(r.headers().firstValue("WWW-Authenticate")).isPresent();
  }

  @Test
  @SuppressWarnings("unchecked")
  void acceptsHs256Rs256AndEs256() throws Exception {
    assertThat(whoami(fx.jwt(JWSAlgorithm.HS256, "alice", null)))
        .containsEntry("principal", "alice")
        .containsEntry("auth", "jwt");
    Map<String, Object> viaGroup =
        whoami(fx.jwt(JWSAlgorithm.RS256, "erin", List.of("secops", "staff")));
    assertThat(viaGroup).containsEntry("principal", "erin");
    assertThat((List<Object>) viaGroup.get("roles")).containsExactly("admin");
    assertThat((List<Object>) viaGroup.get("unwrappable_keys")).contains("fin");
    assertThat(whoami(fx.jwt(JWSAlgorithm.ES256, "bob", List.of())))
        .containsEntry("principal", "bob");
  }

  @Test
  void jwtWorksEndToEndWithTheClient() throws Exception {
    byte[] dek = "0123456789abcdef".getBytes(StandardCharsets.UTF_8);
    try (RemoteKeyService etl =
            fx.clientBuilder(fx.url(), fx.jwt(JWSAlgorithm.ES256, "etl", null)).build();
        RemoteKeyService alice =
            fx.clientBuilder(fx.url(), fx.jwt(JWSAlgorithm.RS256, "alice", null)).build()) {
      assertThat(alice.unwrapKey(etl.wrapKey(dek, "fin"), "fin")).isEqualTo(dek);
    }
  }

  @Test
  void expiredTokenNamesTheCause() throws Exception {
    String expired =
        fx.jwt(
            JWSAlgorithm.HS256,
            "alice",
            null,
            Instant.now().minusSeconds(120),
            null,
            ServerFixture.ISSUER,
            ServerFixture.AUDIENCE);
    assertRejected(expired, "token expired");
    try (RemoteKeyService client = fx.clientBuilder(fx.url(), expired).build()) {
      assertThatThrownBy(() -> client.unwrapKey("vault:v1:AAAA", "pii"))
          .isInstanceOf(KeyAuthenticationException.class)
          .hasMessageContaining("authentication failed: token expired")
          .hasMessageNotContaining(expired);
    }
  }

  @Test
  void notYetValid() throws Exception {
    assertRejected(
        fx.jwt(
            JWSAlgorithm.RS256,
            "alice",
            null,
            Instant.now().plusSeconds(600),
            Instant.now().plusSeconds(300),
            ServerFixture.ISSUER,
            ServerFixture.AUDIENCE),
        "token not yet valid");
  }

  @Test
  void wrongIssuerOrAudience() throws Exception {
    assertRejected(
        fx.jwt(
            JWSAlgorithm.HS256,
            "alice",
            null,
            Instant.now().plusSeconds(60),
            null,
            "https://evil.test/",
            ServerFixture.AUDIENCE),
        "token issuer rejected");
    assertRejected(
        fx.jwt(
            JWSAlgorithm.HS256,
            "alice",
            null,
            Instant.now().plusSeconds(60),
            null,
            ServerFixture.ISSUER,
            "some-other-service"),
        "token audience rejected");
  }

  @Test
  void wrongSignatures() throws Exception {
    JWTClaimsSet claims =
        new JWTClaimsSet.Builder()
            .subject("alice")
            .issuer(ServerFixture.ISSUER)
            .audience(ServerFixture.AUDIENCE)
            .expirationTime(Date.from(Instant.now().plusSeconds(60)))
            .build();

    SignedJWT otherSecret =
        new SignedJWT(
            new JWSHeader.Builder(JWSAlgorithm.HS256).type(JOSEObjectType.JWT).build(), claims);
    otherSecret.sign(new MACSigner("a-completely-different-secret-of-32-bytes!!"));
    assertRejected(otherSecret.serialize(), "invalid token signature");

    RSAKey impostor = new RSAKeyGenerator(2048).keyID(fx.rsa.getKeyID()).generate();
    SignedJWT forged =
        new SignedJWT(
            new JWSHeader.Builder(JWSAlgorithm.RS256)
                .keyID(impostor.getKeyID())
                .type(JOSEObjectType.JWT)
                .build(),
            claims);
    forged.sign(new RSASSASigner(impostor));
    assertRejected(forged.serialize(), "invalid token signature");

    // a valid token with one payload character changed
    String good = fx.jwt(JWSAlgorithm.ES256, "bob", null);
    String[] parts = good.split("\\.");
    String payload =
        new String(java.util.Base64.getUrlDecoder().decode(parts[1]), StandardCharsets.UTF_8)
            .replace("\"bob\"", "\"ali\"");
    String tampered =
        parts[0]
            + "."
            + java.util.Base64.getUrlEncoder()
                .withoutPadding()
                .encodeToString(payload.getBytes(StandardCharsets.UTF_8))
            + "."
            + parts[2];
    assertRejected(tampered, "invalid token signature");
  }

  @Test
  void unsignedAndAlgorithmConfusionRejected() throws Exception {
    JWTClaimsSet claims =
        new JWTClaimsSet.Builder()
            .subject("alice")
            .issuer(ServerFixture.ISSUER)
            .audience(ServerFixture.AUDIENCE)
            .expirationTime(Date.from(Instant.now().plusSeconds(60)))
            .build();
    HttpResponse<String> none = fx.get("/v1/protector/whoami", new PlainJWT(claims).serialize());
    assertThat(none.statusCode()).isEqualTo(401);

    // HS256 "signed" with the RSA public key bytes: must not be accepted as an RS256 key
    byte[] publicKeyBytes = fx.rsa.toRSAPublicKey().getEncoded();
    SignedJWT confused =
        new SignedJWT(
            new JWSHeader.Builder(JWSAlgorithm.HS256).type(JOSEObjectType.JWT).build(), claims);
    confused.sign(new MACSigner(publicKeyBytes));
    assertRejected(confused.serialize(), "invalid token signature");
  }

  @Test
  void missingExpirationIsRejected() throws Exception {
    JWTClaimsSet claims =
        new JWTClaimsSet.Builder()
            .subject("alice")
            .issuer(ServerFixture.ISSUER)
            .audience(ServerFixture.AUDIENCE)
            .build();
    SignedJWT jwt =
        new SignedJWT(
            new JWSHeader.Builder(JWSAlgorithm.HS256).type(JOSEObjectType.JWT).build(), claims);
    jwt.sign(new MACSigner(fx.hs256Secret));
    assertRejected(jwt.serialize(), "token missing required claims");
  }
}
