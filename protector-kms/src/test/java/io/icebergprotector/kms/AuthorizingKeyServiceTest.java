/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.kms;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.icebergprotector.policy.Policy;
import io.icebergprotector.policy.Principal;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class AuthorizingKeyServiceTest {
  static final Policy POLICY =
      Policy.parse(
          """
      protector {
        roles {
          admin   { users = [alice] }
          analyst { groups = [bi] }
          etl     { users = [etl] }
        }
        keys { pii {}, fin {}, footer {} }
        tables {
          "db.customers" {
            footer-key = footer
            writers    = [etl]
            columns {
              ssn    { key = pii, clear = [admin], masked { analyst = "partial(keep_last=4)" } }
              salary { key = fin, clear = [admin] }
            }
          }
        }
      }
      """,
          "authz-test.conf");

  private static final Principal ALICE = Principal.user("alice");
  private static final Principal DAVE_BI = Principal.of("dave", List.of("bi"));
  private static final Principal ETL = Principal.user("etl");
  private static final Principal MALLORY = Principal.of("mallory", List.of("guests"));

  @TempDir Path dir;
  private LocalKeyService local;
  private CountingKeyService counting;

  @BeforeEach
  void setUp() {
    try (Passphrase p = Passphrase.of("authz".toCharArray())) {
      local = LocalKeyService.open(dir.resolve("keys.p12"), p, true);
    }
    counting = new CountingKeyService(local);
    for (String id : List.of("pii", "fin", "footer", "unlisted")) {
      counting.createKey(id);
    }
  }

  @AfterEach
  void tearDown() {
    counting.close();
  }

  private AuthorizingKeyService as(Principal p) {
    return new AuthorizingKeyService(counting, POLICY, p);
  }

  @Test
  void writersWrapAndReadersUnwrapTheirKeys() {
    String ssn = as(ETL).wrapKey(new byte[] {1}, "pii");
    String salary = as(ETL).wrapKey(new byte[] {2}, "fin");
    String footer = as(ETL).wrapKey(new byte[] {3}, "footer");
    assertThat(as(ALICE).unwrapKey(ssn, "pii")).containsExactly(1);
    assertThat(as(ALICE).unwrapKey(salary, "fin")).containsExactly(2);
    assertThat(as(DAVE_BI).unwrapKey(ssn, "pii")).containsExactly(1); // masked still needs the key
    assertThat(as(DAVE_BI).deriveKey("pii", "db.customers.ssn")).hasSize(32);
    // Every reader of the table needs its footer key.
    assertThat(as(MALLORY).unwrapKey(footer, "footer")).containsExactly(3);
    assertThat(counting.wrapCount()).isEqualTo(3);
    assertThat(counting.unwrapCount()).isEqualTo(4);
    assertThat(counting.deriveKeyCount()).isEqualTo(1);
    assertThat(counting.totalCount()).isEqualTo(8);
  }

  @Test
  void refusalsNameThePrincipalKeyAndOperationAndNeverReachTheDelegate() {
    String salary = counting.wrapKey(new byte[] {2}, "fin");
    long before = counting.totalCount();

    assertThatThrownBy(() -> as(DAVE_BI).unwrapKey(salary, "fin"))
        .isInstanceOfSatisfying(
            KeyAccessDeniedException.class,
            e -> {
              assertThat(e.principal()).contains("dave");
              assertThat(e.keyId()).isEqualTo("fin");
              assertThat(e.operation()).isEqualTo("unwrap");
              assertThat(e.getMessage()).contains("dave", "'fin'", "unwrap");
            });
    assertThatThrownBy(() -> as(DAVE_BI).deriveKey("fin", "ctx"))
        .isInstanceOf(KeyAccessDeniedException.class)
        .hasMessageContaining("deriveKey");
    // Readers are not writers; admins are not writers either in this policy.
    assertThatThrownBy(() -> as(ALICE).wrapKey(new byte[] {1}, "pii"))
        .isInstanceOf(KeyAccessDeniedException.class)
        .hasMessageContaining("alice")
        .hasMessageContaining("wrap");
    assertThatThrownBy(() -> as(MALLORY).unwrapKey(salary, "pii"))
        .isInstanceOf(KeyAccessDeniedException.class)
        .hasMessageContaining(
            "principal 'mallory[guests]' is not allowed to unwrap with key 'pii'");
    // A key the policy does not mention at all, even though it exists in the store.
    assertThatThrownBy(() -> as(ETL).wrapKey(new byte[] {1}, "unlisted"))
        .isInstanceOf(KeyAccessDeniedException.class)
        .hasMessageContaining("principal 'etl[]' is not allowed to wrap with key 'unlisted'");
    assertThatThrownBy(() -> as(ALICE).unwrapKey(salary, "unlisted"))
        .isInstanceOf(KeyAccessDeniedException.class)
        .hasMessageContaining("principal 'alice[]' is not allowed to unwrap with key 'unlisted'");

    assertThat(counting.totalCount())
        .as("refused calls must not reach the delegate")
        .isEqualTo(before);
  }

  @Test
  void adminOperationsPassThrough() {
    AuthorizingKeyService svc = as(MALLORY);
    assertThat(svc.createKey("new").latestVersion()).isEqualTo(1);
    assertThat(svc.rotateKey("new").latestVersion()).isEqualTo(2);
    assertThat(svc.describeKey("new").versions()).containsExactly(1, 2);
    assertThat(svc.listKeys()).extracting(KeyInfo::id).contains("new", "pii");
    svc.destroyKey("new");
    assertThat(svc.describeKey("new").destroyed()).isTrue();
  }
}
