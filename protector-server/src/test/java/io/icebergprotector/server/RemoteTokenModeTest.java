/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.icebergprotector.kms.KeyAccessDeniedException;
import io.icebergprotector.kms.KeyService;
import io.icebergprotector.kms.KeyServiceException;
import io.icebergprotector.kms.LocalKeyService;
import io.icebergprotector.kms.Passphrase;
import io.icebergprotector.kms.remote.RemoteKeyService;
import io.icebergprotector.kms.token.TokenException;
import io.icebergprotector.kms.token.TokenKey;
import io.icebergprotector.kms.token.TokenMode;
import io.icebergprotector.kms.token.Tokenizer;
import io.icebergprotector.kms.wire.JsonCodec;
import io.icebergprotector.policy.ProtectionMethod;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The client side of the token endpoints: {@link RemoteKeyService#deriveTokenKey} (local token mode
 * through the key server) and the server-mode tokenizer, whose batches are one request each, split
 * at the batch limit, with 403s and item errors that name principal, domain and index.
 */
class RemoteTokenModeTest {
  static final String DETERMINISTIC = TokenEndpointsTest.DETERMINISTIC;
  static final String SSN_METHOD = TokenEndpointsTest.SSN_METHOD;

  @TempDir static Path dir;
  static ServerFixture fx;
  static LocalKeyService local;

  @BeforeAll
  static void start() throws Exception {
    fx =
        ServerFixture.startWithPolicy(
            dir, "protector-server.limits { max-batch-values = 100 }", TokenEndpointsTest.POLICY);
    local =
        LocalKeyService.open(
            fx.keystore, Passphrase.of(ServerFixture.KEYSTORE_PASSPHRASE.toCharArray()), false);
  }

  @AfterAll
  static void stop() {
    local.close();
    fx.close();
  }

  private static Tokenizer localTokenizer(String key, String domain, String method) {
    return local.tokenizer(
        key, KeyService.LATEST_VERSION, domain, ProtectionMethod.parse(method), TokenMode.LOCAL);
  }

  private static List<Map<String, Object>> auditOf(String op, String principal) throws Exception {
    return fx.auditLines().stream()
        .filter(l -> !l.isBlank())
        .map(JsonCodec::parseObject)
        .filter(e -> op.equals(e.get("op")) && principal.equals(e.get("principal")))
        .collect(Collectors.toList());
  }

  @Test
  void theTokenKeyIsReleasedToTheRuleOnlyAndAudited() throws Exception {
    try (RemoteKeyService alice = fx.client("alice");
        RemoteKeyService bob = fx.client("bob");
        TokenKey released =
            alice.deriveTokenKey(
                "pii", KeyService.LATEST_VERSION, "email", ProtectionMethod.Kind.DETERMINISTIC);
        TokenKey expected =
            local.deriveTokenKey(
                "pii", KeyService.LATEST_VERSION, "email", ProtectionMethod.Kind.DETERMINISTIC)) {
      assertThat(released.version()).isEqualTo(1);
      assertThat(released.exportBytes()).isEqualTo(expected.exportBytes());
      assertThatThrownBy(
              () ->
                  bob.deriveTokenKey(
                      "pii",
                      KeyService.LATEST_VERSION,
                      "email",
                      ProtectionMethod.Kind.DETERMINISTIC))
          .isInstanceOf(KeyAccessDeniedException.class)
          .hasMessage(
              "principal 'bob' is not allowed to derive the token key of token domain 'email' with key 'pii'");
      assertThatThrownBy(
              () ->
                  alice.deriveTokenKey(
                      "pii", KeyService.LATEST_VERSION, "email", ProtectionMethod.Kind.FPE))
          .isInstanceOf(KeyServiceException.class)
          .hasMessageContaining("token domain 'email' is deterministic in the server's policy");
    }
    assertThat(auditOf("token-key", "alice"))
        .anySatisfy(
            e ->
                assertThat(e)
                    .containsEntry("decision", "allow")
                    .containsEntry("domain", "email")
                    .containsEntry("version", 1L));
    assertThat(auditOf("token-key", "bob"))
        .singleElement()
        .satisfies(
            e -> assertThat(e).containsEntry("decision", "deny").containsEntry("domain", "email"));
  }

  @Test
  void theServerModeTokenizerSendsBatchesAndSplitsLargeOnes() throws Exception {
    String[] values = new String[250];
    String[] expected = new String[250];
    try (Tokenizer t = localTokenizer("pii", "ssn", SSN_METHOD)) {
      for (int i = 0; i < values.length; i++) {
        values[i] = i % 10 == 3 ? null : String.format("%03d-%02d-%04d", i, i % 100, i * 7);
        expected[i] = t.protect(values[i]);
      }
    }
    String[] clear = values.clone();
    int before = auditOf("encode", "etl").size();
    try (RemoteKeyService etl =
            fx.clientBuilder(fx.url(), fx.token("etl")).tokenBatchValues(100).build();
        Tokenizer remote =
            etl.tokenizer(
                "pii",
                KeyService.LATEST_VERSION,
                "ssn",
                ProtectionMethod.parse(SSN_METHOD),
                TokenMode.SERVER)) {
      remote.protectAll(values, values.length);
      assertThat(values).containsExactly(expected);
      assertThat(remote.version()).isEqualTo(1);
      assertThat(remote.protect("555-12-3456")).matches("\\d{3}-\\d{2}-\\d{4}");
    }
    assertThat(auditOf("encode", "etl")).hasSize(before + 4); // 100 + 100 + 50, and the single one

    try (RemoteKeyService alice =
            fx.clientBuilder(fx.url(), fx.token("alice")).tokenBatchValues(100).build();
        Tokenizer remote =
            alice.tokenizer(
                "pii",
                KeyService.LATEST_VERSION,
                "ssn",
                ProtectionMethod.parse(SSN_METHOD),
                TokenMode.SERVER);
        Tokenizer account =
            alice.tokenizer(
                "fin",
                KeyService.LATEST_VERSION,
                "account",
                ProtectionMethod.parse("fpe(width = 9)"),
                TokenMode.SERVER);
        Tokenizer email =
            alice.tokenizer(
                "pii",
                KeyService.LATEST_VERSION,
                "email",
                ProtectionMethod.deterministic(),
                TokenMode.SERVER);
        Tokenizer localEmail = localTokenizer("pii", "email", DETERMINISTIC)) {
      String[] back = values.clone();
      remote.unprotectAll(back, back.length);
      assertThat(back).containsExactly(clear);
      long[] numbers = {123456789L, 7L, -99L};
      account.protectAll(numbers, 3);
      account.unprotectAll(numbers, 3);
      assertThat(numbers).containsExactly(123456789L, 7L, -99L);
      byte[][] bytes = {{1, 2, 3}, null};
      email.protectAll(bytes, 2);
      assertThat(bytes[0]).isEqualTo(localEmail.protect(new byte[] {1, 2, 3}));
      assertThat(bytes[1]).isNull();
      assertThat(email.unprotect(bytes[0])).containsExactly(1, 2, 3);

      String[] broken = {localEmail.protect("a@b.c"), "AAAA"};
      assertThatThrownBy(() -> email.unprotectAll(broken, 2))
          .isInstanceOf(TokenException.class)
          .hasMessageContaining("Cannot detokenize 1 of 2 values of token domain 'email'")
          .hasMessageContaining("batch_input[1]: Cannot detokenize a value of token domain email");
    }

    try (RemoteKeyService bob = fx.client("bob");
        Tokenizer denied =
            bob.tokenizer(
                "pii",
                KeyService.LATEST_VERSION,
                "email",
                ProtectionMethod.deterministic(),
                TokenMode.SERVER)) {
      assertThatThrownBy(() -> denied.protect("x@example.com"))
          .isInstanceOf(KeyAccessDeniedException.class)
          .hasMessage(
              "principal 'bob' is not allowed to encode values of token domain 'email' with key 'pii'");
    }
  }
}
