/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.kms;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.icebergprotector.kms.token.TokenKey;
import io.icebergprotector.kms.token.Tokenizer;
import io.icebergprotector.policy.Policy;
import io.icebergprotector.policy.Principal;
import io.icebergprotector.policy.ProtectionMethod;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Token keys from the local keystore, per version and domain, behind the token-key rule. */
class TokenKeyServiceTest {
  static final Policy POLICY =
      Policy.parse(
          """
      protector {
        roles {
          admin   { users = [alice] }
          analyst { users = [bob] }
          support { users = [dave] }
          etl     { users = [etl] }
        }
        keys { pii {}, footer {} }
        tables {
          "db.customers" {
            footer-key = footer
            writers    = [etl]
            columns {
              ssn {
                key = pii, method = "fpe(alphabet = digits, keep = \\"-\\")", domain = ssn
                clear = [admin], token = [analyst], masked { support = "partial(keep_last=4)" }
              }
            }
          }
        }
      }
      """,
          "tokens-test.conf");

  private static final ProtectionMethod SSN =
      ProtectionMethod.parse("fpe(alphabet = digits, keep = \"-\")");

  @TempDir Path dir;
  private LocalKeyService local;

  @BeforeEach
  void setUp() {
    try (Passphrase p = Passphrase.of("tokens".toCharArray())) {
      local = LocalKeyService.open(dir.resolve("keys.p12"), p, true);
    }
    local.createKey("pii");
    local.createKey("footer");
  }

  @AfterEach
  void tearDown() {
    local.close();
  }

  private AuthorizingKeyService as(String user) {
    return new AuthorizingKeyService(local, POLICY, Principal.user(user));
  }

  private static String token(TokenKey key, String value) {
    try (key;
        Tokenizer t = Tokenizer.of(key, SSN)) {
      return t.protect(value);
    }
  }

  @Test
  void clearReadersGetTheKeyOfTheLatestVersion() {
    TokenKey alice =
        as("alice").deriveTokenKey("pii", KeyService.LATEST_VERSION, "ssn", SSN.kind());
    assertThat(alice.version()).isEqualTo(1);
    String written = token(alice, "123-45-6789");
    try (TokenKey again = as("alice").deriveTokenKey("pii", 1, "ssn", SSN.kind());
        Tokenizer t = Tokenizer.of(again, SSN)) {
      assertThat(t.unprotect(written)).isEqualTo("123-45-6789");
    }
  }

  @Test
  void writersAndMaskedReadersWithoutClearAccessGetNoKey() {
    // the key detokenizes every token of the domain: holding it is reading the domain in clear
    for (String user : List.of("etl", "dave")) {
      assertThatThrownBy(() -> as(user).deriveTokenKey("pii", 1, "ssn", SSN.kind()))
          .isInstanceOf(KeyAccessDeniedException.class)
          .hasMessageContaining("principal '" + user)
          .hasMessageContaining("derive the token key of token domain 'ssn' with key 'pii'");
    }
  }

  @Test
  void tokenRolesAndOthersAreRefusedNamingPrincipalKeyAndDomain() {
    for (String user : List.of("bob", "mallory")) {
      assertThatThrownBy(() -> as(user).deriveTokenKey("pii", 1, "ssn", SSN.kind()))
          .isInstanceOf(KeyAccessDeniedException.class)
          .hasMessageContaining("principal '" + user)
          .hasMessageContaining("key 'pii'")
          .hasMessageContaining("token domain 'ssn'");
    }
    assertThatThrownBy(() -> as("alice").deriveTokenKey("pii", 1, "db.other.ssn", SSN.kind()))
        .isInstanceOf(KeyAccessDeniedException.class)
        .hasMessageContaining("token domain 'db.other.ssn'");
  }

  @Test
  void rotationGivesANewKeyAndOldVersionsStayUntilRetired() {
    String v1 = token(local.deriveTokenKey("pii", 0, "ssn", SSN.kind()), "123-45-6789");
    local.rotateKey("pii");
    TokenKey latest = local.deriveTokenKey("pii", 0, "ssn", SSN.kind());
    assertThat(latest.version()).isEqualTo(2);
    assertThat(token(latest, "123-45-6789")).isNotEqualTo(v1);
    assertThat(token(local.deriveTokenKey("pii", 1, "ssn", SSN.kind()), "123-45-6789"))
        .isEqualTo(v1);
    local.setMinDecryptionVersion("pii", 2);
    assertThatThrownBy(() -> local.deriveTokenKey("pii", 1, "ssn", SSN.kind()))
        .isInstanceOf(KeyVersionRetiredException.class)
        .hasMessageContaining("pii");
  }

  @Test
  void theHashMaskDerivationNeverYieldsATokenKey() {
    byte[] mask = local.deriveKey("pii", "ssn");
    try (TokenKey k = local.deriveTokenKey("pii", 1, "ssn", SSN.kind())) {
      assertThat(k.toString()).doesNotContain(java.util.HexFormat.of().formatHex(mask));
      String a = token(TokenKey.of("pii", 1, "ssn", SSN.kind(), mask.clone()), "123-45-6789");
      String b = token(local.deriveTokenKey("pii", 1, "ssn", SSN.kind()), "123-45-6789");
      assertThat(a).isNotEqualTo(b);
    }
  }
}
