/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.icebergprotector.kms.KeyAccessDeniedException;
import io.icebergprotector.kms.KeyService;
import io.icebergprotector.kms.LocalKeyService;
import io.icebergprotector.kms.Passphrase;
import io.icebergprotector.kms.remote.RemoteKeyService;
import io.icebergprotector.kms.token.TokenKey;
import io.icebergprotector.kms.token.TokenMode;
import io.icebergprotector.kms.token.Tokenizer;
import io.icebergprotector.kms.wire.JsonCodec;
import io.icebergprotector.policy.ProtectionMethod;
import io.icebergprotector.server.config.ServerConfig;
import io.icebergprotector.testing.TestPolicy;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Token keys and mask keys go only to whoever may read what they unlock: a token key detokenizes
 * its whole domain, so only clear readers get it (a writer or a masked reader holding it would read
 * clear values); the key of the server's hash masks of tokenized columns never leaves the server,
 * and the hash-mask key of PME columns goes only to principals that hash-mask such a column (who
 * hold its column key anyway). A masked reader gets the mask from the decode endpoint instead.
 */
class ServerMaskedTokensTest {
  private static final String PIN_METHOD = "fpe(alphabet = digits)";
  private static final String POLICY =
      TestPolicy.builder()
          .role("admin", "alice")
          .role("analyst", "bob")
          .role("support", "carol")
          .role("hasher", "dave")
          .role("etl", "etl")
          .role("keyadmin", "ops")
          .keys("pii", "footer")
          .table(
              "db.accounts",
              t ->
                  t.footerKey("footer")
                      .writers("etl")
                      .column(
                          "pin",
                          c ->
                              c.key("pii")
                                  .method(PIN_METHOD)
                                  .domain("pin")
                                  .clear("admin")
                                  .token("analyst")
                                  .masked("support", "hash")
                                  .masked("hasher", "redact"))
                      .column(
                          "ssn",
                          c ->
                              c.key("pii")
                                  .method("fpe(alphabet = digits, keep = \"-\")")
                                  .domain("ssn")
                                  .clear("admin")
                                  .masked("support", "partial(keep_last=4)"))
                      .column("name", c -> c.key("pii").clear("admin").masked("hasher", "hash")))
          .render();

  @TempDir static Path dir;
  static ServerFixture fx;

  @BeforeAll
  static void start() throws Exception {
    // single-user clusters: mask-only keys of PME columns go to the principal's own token (the
    // weakest rule), and still no hash-mask key of a tokenized column leaves the server
    fx =
        ServerFixture.startWithPolicy(
            dir, "protector-server.auth.release-mask-keys-to-principals = true\n", POLICY);
  }

  @AfterAll
  static void stop() {
    fx.close();
  }

  /** Decodes {@code tokens} in place as {@code reader} reading db.accounts.{@code column}. */
  private static String decodeColumn(
      RemoteKeyService reader, String domain, String method, String column, String[] tokens) {
    try (Tokenizer t =
        reader
            .tokenizer("pii", 1, domain, ProtectionMethod.parse(method), TokenMode.SERVER)
            .readingColumn("db.accounts", column, false)) {
      t.unprotectAll(tokens, tokens.length);
      return t.appliedMask();
    }
  }

  private static String[] tokens(String domain, String method, String... values) {
    String[] out = values.clone();
    try (LocalKeyService local =
            LocalKeyService.open(
                fx.keystore,
                Passphrase.of(ServerFixture.KEYSTORE_PASSPHRASE.toCharArray()),
                false);
        Tokenizer t =
            local.tokenizer(
                "pii",
                KeyService.LATEST_VERSION,
                domain,
                ProtectionMethod.parse(method),
                TokenMode.LOCAL)) {
      t.protectAll(out, out.length);
    }
    return out;
  }

  private static HttpResponse<String> hmac(String principal, String context) throws Exception {
    String input = Base64.getEncoder().encodeToString(context.getBytes(StandardCharsets.UTF_8));
    return fx.post("/v1/transit/hmac/pii", fx.token(principal), "{\"input\":\"" + input + "\"}");
  }

  @Test
  void onlyClearReadersGetTheTokenKeyMaskedReadersGetTheServersMask() throws Exception {
    String ssnMethod = "fpe(alphabet = digits, keep = \"-\")";
    String[] stored = tokens("ssn", ssnMethod, "123-45-6789", null, "987-65-4321");
    try (RemoteKeyService carol = fx.client("carol");
        RemoteKeyService alice = fx.client("alice");
        RemoteKeyService etl = fx.client("etl");
        RemoteKeyService bob = fx.client("bob")) {
      for (RemoteKeyService refused : List.of(carol, etl, bob)) {
        assertThatThrownBy(
                () ->
                    refused.deriveTokenKey(
                        "pii", KeyService.LATEST_VERSION, "ssn", ProtectionMethod.Kind.FPE))
            .isInstanceOf(KeyAccessDeniedException.class)
            .hasMessageContaining("principal '" + refused.whoami().principal() + "'")
            .hasMessageContaining("token domain 'ssn'");
      }
      try (TokenKey key =
          alice.deriveTokenKey(
              "pii", KeyService.LATEST_VERSION, "ssn", ProtectionMethod.Kind.FPE)) {
        assertThat(key.version()).isEqualTo(1);
      }
      // the writer still tokenizes, through the server, and gets the tokens the table holds
      String[] written = {"123-45-6789", null, "987-65-4321"};
      try (Tokenizer t =
          etl.tokenizer(
              "pii",
              KeyService.LATEST_VERSION,
              "ssn",
              ProtectionMethod.parse(ssnMethod),
              TokenMode.SERVER)) {
        t.protectAll(written, written.length);
      }
      assertThat(written).containsExactly(stored);

      String[] masked = stored.clone();
      assertThat(decodeColumn(carol, "ssn", ssnMethod, "ssn", masked))
          .isEqualTo("partial(keep_last=4)");
      assertThat(masked).containsExactly("*******6789", null, "*******4321");
      String[] clear = stored.clone();
      assertThat(decodeColumn(alice, "ssn", ssnMethod, "ssn", clear)).isNull();
      assertThat(clear).containsExactly("123-45-6789", null, "987-65-4321");
    }
    List<Map<String, Object>> refusals =
        fx.auditLines().stream()
            .map(JsonCodec::parseObject)
            .filter(e -> "token-key".equals(e.get("op")) && "deny".equals(e.get("decision")))
            .toList();
    assertThat(refusals).extracting(e -> e.get("principal")).contains("carol", "etl", "bob");
    assertThat(refusals)
        .allSatisfy(
            e -> assertThat((String) e.get("reason")).contains("no role with clear access"));
  }

  @Test
  void theHashMaskKeyOfTokenizedColumnsNeverLeavesTheServer() throws Exception {
    String[] stored = tokens("pin", PIN_METHOD, "042424", "999999");
    String[] masked = stored.clone();
    try (RemoteKeyService carol = fx.client("carol")) {
      assertThat(decodeColumn(carol, "pin", PIN_METHOD, "pin", masked)).isEqualTo("hash");
    }
    assertThat(masked[0]).hasSize(64).doesNotContain("042424");

    // the masked analyst of the 6-digit PINs cannot get a key to hash candidates with
    for (String principal : List.of("carol", "bob", "etl", "alice")) {
      for (String context :
          List.of(KeyService.HASH_MASK_CONTEXT, KeyService.TOKEN_HASH_MASK_CONTEXT)) {
        HttpResponse<String> refused = hmac(principal, context);
        assertThat(refused.statusCode()).as(principal + " " + context).isEqualTo(403);
        assertThat(refused.body()).contains("permission denied");
      }
    }
    // dave hash-masks the PME column 'name' (and holds its column key anyway): it gets that key,
    // which is not the one the server hashes PINs with
    HttpResponse<String> allowed = hmac("dave", KeyService.HASH_MASK_CONTEXT);
    assertThat(allowed.statusCode()).isEqualTo(200);
    String encoded =
        (String) JsonCodec.object(JsonCodec.parseObject(allowed.body()), "data").get("hmac");
    byte[] key = Base64.getDecoder().decode(encoded.substring("vault:v1:".length()));
    Mac mac = Mac.getInstance("HmacSHA256");
    mac.init(new SecretKeySpec(key, "HmacSHA256"));
    String guess = HexFormat.of().formatHex(mac.doFinal("042424".getBytes(StandardCharsets.UTF_8)));
    assertThat(guess).isNotEqualTo(masked[0]);
    assertThat(hmac("dave", "iceberg-protector/anything").statusCode()).isEqualTo(403);
    assertThat(hmac("alice", "an application's own context").statusCode()).isEqualTo(200);

    assertThat(fx.auditLines().stream().map(JsonCodec::parseObject))
        .anySatisfy(
            e ->
                assertThat(e)
                    .containsEntry("principal", "carol")
                    .containsEntry("op", "hmac")
                    .containsEntry("decision", "deny")
                    .satisfies(
                        x -> assertThat((String) x.get("reason")).contains("hash-mask key")));
  }

  @Test
  void theRemovedReleaseToMaskedSettingIsRefusedWhenSetToTrue() {
    assertThatThrownBy(
            () ->
                ServerConfig.parse(
                    "protector-server { tokens { release-keys-to-masked = true } }",
                    dir.resolve("server.conf")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("protector-server.tokens.release-keys-to-masked was removed")
        .hasMessageContaining("only to principals who read the domain in clear");
  }
}
