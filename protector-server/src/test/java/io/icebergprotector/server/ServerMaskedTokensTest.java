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
import io.icebergprotector.policy.ProtectionMethod;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Masked readers of tokenized columns in server token mode: with {@code
 * tokens.release-keys-to-masked = false} the key server refuses them the token key, and its decode
 * endpoint answers their server-mode tokenizer (reading a named column) with the column's mask,
 * saying so; writers and clear readers still get the key.
 */
class ServerMaskedTokensTest {
  private static final String SSN_METHOD = TokenEndpointsTest.SSN_METHOD;

  @TempDir static Path dir;
  static ServerFixture fx;

  @BeforeAll
  static void start() throws Exception {
    fx =
        ServerFixture.startWithPolicy(
            dir,
            "protector-server.tokens { release-keys-to-masked = false }",
            TokenEndpointsTest.POLICY);
  }

  @AfterAll
  static void stop() {
    fx.close();
  }

  /** Decodes {@code tokens} as {@code reader} reading db.customers.ssn; the answer's mask. */
  private static String decodeColumn(RemoteKeyService reader, String[] tokens) {
    try (Tokenizer t =
        reader
            .tokenizer("pii", 1, "ssn", ProtectionMethod.parse(SSN_METHOD), TokenMode.SERVER)
            .readingColumn("db.customers", "ssn", false)) {
      t.unprotectAll(tokens, tokens.length);
      return t.appliedMask();
    }
  }

  @Test
  void aMaskedReaderGetsNoTokenKeyButTheServersMask() throws Exception {
    String[] tokens = {"123-45-6789", null, "987-65-4321"};
    try (LocalKeyService local =
            LocalKeyService.open(
                fx.keystore,
                Passphrase.of(ServerFixture.KEYSTORE_PASSPHRASE.toCharArray()),
                false);
        Tokenizer t =
            local.tokenizer(
                "pii",
                KeyService.LATEST_VERSION,
                "ssn",
                ProtectionMethod.parse(SSN_METHOD),
                TokenMode.LOCAL)) {
      t.protectAll(tokens, tokens.length);
    }
    try (RemoteKeyService carol = fx.client("carol");
        RemoteKeyService alice = fx.client("alice");
        RemoteKeyService etl = fx.client("etl")) {
      assertThatThrownBy(
              () ->
                  carol.deriveTokenKey(
                      "pii", KeyService.LATEST_VERSION, "ssn", ProtectionMethod.Kind.FPE))
          .isInstanceOf(KeyAccessDeniedException.class)
          .hasMessageContaining("principal 'carol'")
          .hasMessageContaining("token domain 'ssn'");
      for (RemoteKeyService allowed : new RemoteKeyService[] {alice, etl}) {
        try (TokenKey key =
            allowed.deriveTokenKey(
                "pii", KeyService.LATEST_VERSION, "ssn", ProtectionMethod.Kind.FPE)) {
          assertThat(key.version()).isEqualTo(1);
        }
      }

      String[] masked = tokens.clone();
      assertThat(decodeColumn(carol, masked)).isEqualTo("partial(keep_last=4)");
      assertThat(masked).containsExactly("*******6789", null, "*******4321");
      String[] clear = tokens.clone();
      assertThat(decodeColumn(alice, clear)).isNull();
      assertThat(clear).containsExactly("123-45-6789", null, "987-65-4321");
    }
  }
}
