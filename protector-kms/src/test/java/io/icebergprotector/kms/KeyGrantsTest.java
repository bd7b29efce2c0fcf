/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.kms;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.icebergprotector.kms.KeyGrants.Operation;
import io.icebergprotector.policy.Policy;
import io.icebergprotector.policy.Principal;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The one authorization rule the Spark side and the key server share. */
class KeyGrantsTest {
  // admin { users = [alice] }, analyst { groups = [bi] } (masked ssn), etl { users = [etl] }
  // (writer)
  private static final Policy POLICY = AuthorizingKeyServiceTest.POLICY;
  private static final Set<String> ADMIN_ROLES = Set.of("admin");

  @Test
  void writersWrapReadersUnwrapAndDeriveAdminsAdminister() {
    KeyGrants etl = KeyGrants.of(POLICY, Principal.user("etl"), ADMIN_ROLES);
    assertThat(etl.allows(Operation.WRAP, "pii")).isTrue();
    assertThat(etl.allows(Operation.WRAP, "footer")).isTrue();
    assertThat(etl.allows(Operation.UNWRAP, "pii")).as("writers are not readers").isFalse();
    assertThat(etl.allows(Operation.UNWRAP, "footer"))
        .as("every reader gets the footer key")
        .isTrue();
    assertThat(etl.allows(Operation.ADMIN, null)).isFalse();

    KeyGrants analyst = KeyGrants.of(POLICY, Principal.of("dave", List.of("bi")), ADMIN_ROLES);
    assertThat(analyst.allows(Operation.UNWRAP, "pii")).as("masked readers need the key").isTrue();
    assertThat(analyst.allows(Operation.DERIVE, "pii")).isTrue();
    assertThat(analyst.allows(Operation.DERIVE, "fin")).isFalse();
    assertThat(analyst.allows(Operation.WRAP, "pii")).isFalse();
    assertThat(analyst.roles()).containsExactly("analyst");

    KeyGrants alice = KeyGrants.of(POLICY, Principal.user("alice"), ADMIN_ROLES);
    assertThat(alice.admin()).isTrue();
    assertThat(alice.allows(Operation.ADMIN, "anything")).isTrue();
    assertThat(alice.allows(Operation.WRAP, "pii"))
        .as("administering keys is not writing")
        .isFalse();
    assertThat(KeyGrants.of(POLICY, Principal.user("alice"), Set.of()).admin()).isFalse();
    assertThat(etl.admin()).isFalse();
  }

  @Test
  void keysAPrincipalOnlyMasksAreMaskOnly() {
    KeyGrants analyst = KeyGrants.of(POLICY, Principal.of("dave", List.of("bi")), ADMIN_ROLES);
    assertThat(analyst.masksOnly(Operation.UNWRAP, "pii"))
        .as("ssn is masked for analysts")
        .isTrue();
    assertThat(analyst.masksOnly(Operation.DERIVE, "pii")).isTrue();
    assertThat(analyst.masksOnly(Operation.UNWRAP, "footer"))
        .as("the footer key reveals no protected value")
        .isFalse();
    assertThat(analyst.masksOnly(Operation.UNWRAP, "fin")).as("not allowed at all").isFalse();
    assertThat(analyst.masksOnly(Operation.WRAP, "pii")).isFalse();

    KeyGrants alice = KeyGrants.of(POLICY, Principal.user("alice"), ADMIN_ROLES);
    assertThat(alice.masksOnly(Operation.UNWRAP, "pii")).as("clear for admins").isFalse();
    assertThat(alice.masksOnly(Operation.DERIVE, "fin")).isFalse();
    KeyGrants etl = KeyGrants.of(POLICY, Principal.user("etl"), ADMIN_ROLES);
    assertThat(etl.masksOnly(Operation.WRAP, "pii"))
        .as("writers wrap with their own token")
        .isFalse();
    assertThat(etl.masksOnly(Operation.UNWRAP, "pii")).as("not allowed at all").isFalse();
  }

  @Test
  void refusalsNameThePrincipalKeyAndOperationButNotWhyTheKeyIsMissing() {
    KeyGrants mallory = KeyGrants.of(POLICY, Principal.user("mallory"), ADMIN_ROLES);
    for (String key : new String[] {"fin", "no-such-key", null}) {
      assertThatThrownBy(() -> mallory.check(Operation.UNWRAP, key))
          .isInstanceOfSatisfying(
              KeyAccessDeniedException.class,
              e -> {
                assertThat(e.principal()).contains("mallory");
                assertThat(e.keyId()).isEqualTo(key);
                assertThat(e.operation()).isEqualTo("unwrap");
              })
          .hasMessageContaining(
              "principal 'mallory[]' is not allowed to unwrap with key '" + key + "'");
    }
    assertThatThrownBy(() -> mallory.check(Operation.DERIVE, "fin"))
        .isInstanceOf(KeyAccessDeniedException.class)
        .hasMessageContaining("not allowed to deriveKey with key 'fin'");
    assertThatThrownBy(() -> mallory.checkDerive("fin", KeyService.HASH_MASK_CONTEXT))
        .isInstanceOf(KeyAccessDeniedException.class)
        .hasMessageContaining("not allowed to derive the hash-mask key with key 'fin'");
    KeyGrants analyst = KeyGrants.of(POLICY, Principal.of("dave", List.of("bi")), ADMIN_ROLES);
    assertThatThrownBy(() -> analyst.checkDerive("pii", KeyService.TOKEN_HASH_MASK_CONTEXT))
        .as("the server's own mask key is never released")
        .isInstanceOf(KeyAccessDeniedException.class)
        .hasMessageContaining("derive a reserved key of the protector with key 'pii'");
    assertThatThrownBy(() -> analyst.checkDerive("pii", "iceberg-protector/anything"))
        .isInstanceOf(KeyAccessDeniedException.class)
        .hasMessageContaining("reserved key");
    analyst.checkDerive("pii", "an application's own context"); // an ordinary derivation
    assertThat(Operation.WRAP.refusal()).isEqualTo("not a writer of any table using this key");
    assertThat(Operation.ADMIN.refusal()).isEqualTo("not in an admin role");
  }

  @Test
  void encodeIsForWritersAndClearRolesDecodeForClearRolesOnlyPerKeyAndDomain() {
    Policy tokens = TokenKeyServiceTest.POLICY;
    KeyGrants etl = KeyGrants.of(tokens, Principal.user("etl"), Set.of());
    KeyGrants alice = KeyGrants.of(tokens, Principal.user("alice"), Set.of());
    KeyGrants bob = KeyGrants.of(tokens, Principal.user("bob"), Set.of()); // token role
    KeyGrants dave = KeyGrants.of(tokens, Principal.user("dave"), Set.of()); // masked
    assertThat(etl.allowsEncode("pii", "ssn")).isTrue();
    assertThat(etl.allowsDecode("pii", "ssn")).as("writers do not read").isFalse();
    assertThat(alice.allowsEncode("pii", "ssn")).isTrue();
    assertThat(alice.allowsDecode("pii", "ssn")).isTrue();
    assertThat(alice.allowsDecode("footer", "ssn")).as("the domain's own key only").isFalse();
    assertThat(alice.allowsDecode("pii", "email")).as("a domain the policy lacks").isFalse();
    assertThat(bob.allowsEncode("pii", "ssn")).isFalse();
    assertThat(bob.allowsDecode("pii", "ssn")).isFalse();
    assertThat(dave.allowsDecode("pii", "ssn"))
        .as("the server decodes for clear roles only (masked ones get the mask of a column)")
        .isFalse();
    // the token key detokenizes the whole domain: clear readers only
    assertThat(dave.allowsTokenKey("pii", "ssn")).as("masked").isFalse();
    assertThat(etl.allowsTokenKey("pii", "ssn")).as("writer without clear access").isFalse();
    assertThat(bob.allowsTokenKey("pii", "ssn")).as("token role").isFalse();
    assertThat(alice.allowsTokenKey("pii", "ssn")).as("clear").isTrue();
    assertThat(dave.allowsTokenBatches("pii", "ssn")).isTrue();
    assertThat(etl.allowsTokenBatches("pii", "ssn")).isTrue();
    assertThat(bob.allowsTokenBatches("pii", "ssn")).isFalse();
    assertThat(Operation.DECODE.refusal())
        .isEqualTo("no role with clear access to a column of this key and token domain");
  }
}
