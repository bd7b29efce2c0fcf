/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.server;

import com.nimbusds.jose.JOSEObjectType;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.JWSSigner;
import com.nimbusds.jose.crypto.ECDSASigner;
import com.nimbusds.jose.crypto.MACSigner;
import com.nimbusds.jose.crypto.RSASSASigner;
import com.nimbusds.jose.jwk.Curve;
import com.nimbusds.jose.jwk.ECKey;
import com.nimbusds.jose.jwk.JWKSet;
import com.nimbusds.jose.jwk.RSAKey;
import com.nimbusds.jose.jwk.gen.ECKeyGenerator;
import com.nimbusds.jose.jwk.gen.RSAKeyGenerator;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;
import io.icebergprotector.kms.LocalKeyService;
import io.icebergprotector.kms.Passphrase;
import io.icebergprotector.kms.remote.RemoteKeyService;
import io.icebergprotector.policy.Digests;
import io.icebergprotector.server.auth.TokenAuthenticator;
import io.icebergprotector.testing.SelfSignedTls;
import io.icebergprotector.testing.TestPolicy;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Date;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A complete key server for tests: self-signed TLS (made with the JDK's keytool), a keystore with
 * keys pii, fin, footer and other, a policy, personal tokens for etl / alice / bob / ops / carol
 * and JWT verification (HS256 secret, RS256 and ES256 JWKS).
 */
final class ServerFixture implements AutoCloseable {
  static final String TLS_PASSWORD = "tls-test-password";
  static final String KEYSTORE_PASSPHRASE = "keystore test passphrase";
  static final String ISSUER = "https://idp.test/";
  static final String AUDIENCE = "iceberg-protector";

  static final String POLICY =
      TestPolicy.resource(ServerFixture.class, "policies/ServerFixture.conf");

  private static Path tlsDir;

  final Path dir;
  final Path certificate;
  final Path tlsKeystore;
  final Path keystore;
  final Path auditFile;
  final Path configFile;
  final Path passphraseFile;
  final Map<String, String> tokens = new LinkedHashMap<>();
  final byte[] hs256Secret;
  final RSAKey rsa;
  final ECKey ec;
  final ProtectorServer server;
  final HttpClient http;

  private ServerFixture(Path dir, String extraConfig, boolean start) throws Exception {
    this(dir, extraConfig, start, POLICY);
  }

  private ServerFixture(Path dir, String extraConfig, boolean start, String policy)
      throws Exception {
    this.dir = dir;
    Path tls = tlsMaterial();
    this.certificate = tls.resolve("server.pem");
    this.tlsKeystore = tls.resolve("server.p12");
    Files.writeString(dir.resolve("tls-password"), TLS_PASSWORD + "\n");
    this.passphraseFile = dir.resolve("keystore-passphrase");
    Files.writeString(passphraseFile, KEYSTORE_PASSPHRASE);
    Files.writeString(dir.resolve("policy.conf"), policy);
    this.keystore = dir.resolve("keys.p12");
    try (Passphrase p = Passphrase.of(KEYSTORE_PASSPHRASE.toCharArray());
        LocalKeyService local = LocalKeyService.open(keystore, p, true)) {
      for (String key : List.of("pii", "fin", "footer", "other", "scratch", "scratch-footer")) {
        local.createKey(key);
      }
    }
    this.auditFile = dir.resolve("audit/audit.log");

    // the secret file holds text; the HS256 secret is its UTF-8 bytes
    byte[] random = new byte[32];
    new SecureRandom().nextBytes(random);
    String secretText = java.util.Base64.getEncoder().encodeToString(random);
    Files.writeString(dir.resolve("jwt-secret"), secretText);
    this.hs256Secret = secretText.getBytes(StandardCharsets.UTF_8);
    this.rsa = new RSAKeyGenerator(2048).keyID("rsa-1").generate();
    this.ec = new ECKeyGenerator(Curve.P_256).keyID("ec-1").generate();
    Files.writeString(
        dir.resolve("jwks.json"),
        new JWKSet(List.of(rsa.toPublicJWK(), ec.toPublicJWK())).toString());

    StringBuilder tokenConfig = new StringBuilder();
    Map<String, List<String>> users = new LinkedHashMap<>();
    users.put("etl", List.of());
    users.put("alice", List.of());
    users.put("bob", List.of());
    users.put("ops", List.of());
    users.put("carol", List.of("nobody"));
    users.put("dave", List.of("secops")); // admin through a group
    for (Map.Entry<String, List<String>> u : users.entrySet()) {
      String token = TokenAuthenticator.newToken();
      tokens.put(u.getKey(), token);
      tokenConfig
          .append("      { name = \"")
          .append(u.getKey())
          .append("-token\", sha256 = \"")
          .append(Digests.sha256Hex(token))
          .append("\", principal = \"")
          .append(u.getKey())
          .append("\", groups = ")
          .append(quoted(u.getValue()))
          .append(" }\n");
    }
    String config =
        String.join(
            "\n",
            "protector-server {",
            "  bind { host = \"127.0.0.1\", port = 0 }",
            "  tls { keystore = \"" + tlsKeystore + "\", password-file = \"tls-password\" }",
            "  keys { keystore = \"keys.p12\", passphrase-file = \"keystore-passphrase\" }",
            "  policy = \"policy.conf\"",
            "  admin-roles = [keyadmin]",
            "  auth {",
            "    tokens = [",
            tokenConfig.toString(),
            "    ]",
            "    jwt {",
            "      issuer = \"" + ISSUER + "\"",
            "      audience = [\"" + AUDIENCE + "\"]",
            "      hs256-secret-file = \"jwt-secret\"",
            "      jwks-file = \"jwks.json\"",
            "      clock-skew = 5s",
            "    }",
            "  }",
            "  audit { file = \"audit/audit.log\", sync = flush }",
            "  limits { max-body-size = 4k, worker-threads = 8 }",
            "}",
            extraConfig == null ? "" : extraConfig);
    this.configFile = dir.resolve("server.conf");
    Files.writeString(configFile, config);
    this.server = start ? ProtectorServer.start(configFile) : null;
    this.http =
        HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .sslContext(SelfSignedTls.trusting(certificate))
            .connectTimeout(Duration.ofSeconds(5))
            .build();
  }

  static ServerFixture start(Path dir) throws Exception {
    return new ServerFixture(dir, null, true);
  }

  static ServerFixture start(Path dir, String extraConfig) throws Exception {
    return new ServerFixture(dir, extraConfig, true);
  }

  /** A server enforcing {@code policy} instead of {@link #POLICY}. */
  static ServerFixture startWithPolicy(Path dir, String extraConfig, String policy)
      throws Exception {
    return new ServerFixture(dir, extraConfig, true, policy);
  }

  /** Everything written with {@code policy}, no server started (for separate processes). */
  static ServerFixture prepareWithPolicy(Path dir, String policy) throws Exception {
    return new ServerFixture(dir, null, false, policy);
  }

  /** Everything written, no server started (for the separate-process test). */
  static ServerFixture prepare(Path dir) throws Exception {
    return new ServerFixture(dir, null, false);
  }

  URI url() {
    return server.url();
  }

  String token(String user) {
    return tokens.get(user);
  }

  RemoteKeyService client(String user) {
    return clientBuilder(url(), token(user)).build();
  }

  RemoteKeyService.Builder clientBuilder(URI url, String token) {
    return RemoteKeyService.builder()
        .url(url)
        .token(token)
        .trustedCertificate(certificate)
        .connectTimeout(Duration.ofSeconds(2))
        .requestTimeout(Duration.ofSeconds(5))
        .retryBackoff(Duration.ofMillis(10), Duration.ofMillis(50));
  }

  HttpResponse<String> request(String method, String path, String token, String body)
      throws Exception {
    return request(method, path, token, body, Map.of());
  }

  HttpResponse<String> request(
      String method, String path, String token, String body, Map<String, String> headers)
      throws Exception {
    HttpRequest.Builder b =
        HttpRequest.newBuilder(URI.create(url() + path)).timeout(Duration.ofSeconds(5));
    if (token != null) {
      b.header("X-Vault-Token", token);
    }
    headers.forEach(b::header);
    b.method(
        method,
        body == null
            ? HttpRequest.BodyPublishers.noBody()
            : HttpRequest.BodyPublishers.ofString(body));
    return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
  }

  HttpResponse<String> post(String path, String token, String body) throws Exception {
    return request("POST", path, token, body);
  }

  HttpResponse<String> get(String path, String token) throws Exception {
    return request("GET", path, token, null);
  }

  String audit() throws IOException {
    return Files.exists(auditFile) ? Files.readString(auditFile) : "";
  }

  List<String> auditLines() throws IOException {
    return new ArrayList<>(List.of(audit().split("\n")));
  }

  /** The master key material of every key version, base64: must never show up anywhere. */
  List<String> masterKeysBase64() throws Exception {
    KeyStore ks = KeyStore.getInstance("PKCS12");
    try (InputStream in = Files.newInputStream(keystore)) {
      ks.load(in, KEYSTORE_PASSPHRASE.toCharArray());
    }
    List<String> out = new ArrayList<>();
    KeyStore.PasswordProtection protection =
        new KeyStore.PasswordProtection(KEYSTORE_PASSPHRASE.toCharArray());
    for (String alias : java.util.Collections.list(ks.aliases())) {
      if (alias.contains("#v")) {
        KeyStore.SecretKeyEntry e = (KeyStore.SecretKeyEntry) ks.getEntry(alias, protection);
        out.add(java.util.Base64.getEncoder().encodeToString(e.getSecretKey().getEncoded()));
      }
    }
    return out;
  }

  String jwt(
      JWSAlgorithm alg,
      String subject,
      List<String> groups,
      Instant expires,
      Instant notBefore,
      String issuer,
      String audience)
      throws Exception {
    JWTClaimsSet.Builder claims =
        new JWTClaimsSet.Builder()
            .subject(subject)
            .issuer(issuer)
            .audience(audience)
            .issueTime(new Date())
            .expirationTime(Date.from(expires));
    if (groups != null) {
      claims.claim("groups", groups);
    }
    if (notBefore != null) {
      claims.notBeforeTime(Date.from(notBefore));
    }
    JWSSigner signer;
    JWSHeader.Builder header = new JWSHeader.Builder(alg).type(JOSEObjectType.JWT);
    if (alg.equals(JWSAlgorithm.HS256)) {
      signer = new MACSigner(hs256Secret);
    } else if (alg.equals(JWSAlgorithm.RS256)) {
      signer = new RSASSASigner(rsa);
      header.keyID(rsa.getKeyID());
    } else {
      signer = new ECDSASigner(ec);
      header.keyID(ec.getKeyID());
    }
    SignedJWT jwt = new SignedJWT(header.build(), claims.build());
    jwt.sign(signer);
    return jwt.serialize();
  }

  String jwt(JWSAlgorithm alg, String subject, List<String> groups) throws Exception {
    return jwt(alg, subject, groups, Instant.now().plusSeconds(300), null, ISSUER, AUDIENCE);
  }

  @Override
  public void close() {
    if (server != null) {
      server.close();
    }
  }

  /** A self-signed EC certificate for 127.0.0.1/localhost, made once per JVM with keytool. */
  static synchronized Path tlsMaterial() throws Exception {
    if (tlsDir != null) {
      return tlsDir;
    }
    Path d = Files.createTempDirectory("protector-tls");
    d.toFile().deleteOnExit();
    Path p12 = d.resolve("server.p12");
    SelfSignedTls.create(p12, TLS_PASSWORD, d.resolve("server.pem"));
    p12.toFile().deleteOnExit();
    d.resolve("server.pem").toFile().deleteOnExit();
    tlsDir = d;
    return d;
  }

  private static String quoted(List<String> values) {
    StringBuilder sb = new StringBuilder("[");
    for (String v : values) {
      if (sb.length() > 1) {
        sb.append(", ");
      }
      sb.append('"').append(v).append('"');
    }
    return sb.append(']').toString();
  }
}
