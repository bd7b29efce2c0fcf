/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.policy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/**
 * {@code retired-keys}: a key that a policy change left protecting only old data stays unwrappable
 * by the roles named for it, and by nobody else; nobody wraps with it.
 */
class RetiredKeysTest {
  static final String POLICY =
      """
      protector {
        roles {
          admin   { users = [alice] }
          analyst { users = [bob] }
          etl     { users = [etl] }
        }
        keys { pii {}, pii2 {}, footer {} }
        retired-keys {
          pii2 { decrypt = [admin], description = "salary until 2026-11" }
        }
        tables {
          "db.t" { footer-key = footer, writers = [etl], columns { ssn { key = pii, clear = [admin] } } }
        }
      }
      """;

  static final Principal ALICE = Principal.of("alice", java.util.List.of());
  static final Principal BOB = Principal.of("bob", java.util.List.of());
  static final Principal ETL = Principal.of("etl", java.util.List.of());

  @Test
  void onlyTheNamedRolesUnwrapARetiredKeyAndNobodyWrapsWithIt() {
    Policy policy = Policy.parse(POLICY, "retired.conf");
    assertThat(policy.retiredKeys()).containsOnlyKeys("pii2");
    assertThat(policy.unwrappableKeys(ALICE)).contains("pii", "pii2", "footer");
    assertThat(policy.unwrappableKeys(BOB)).doesNotContain("pii2");
    assertThat(policy.unwrappableKeys(ETL)).doesNotContain("pii2");
    assertThat(policy.wrappableKeys(ETL)).doesNotContain("pii2");
    assertThat(policy.wrappableKeys(ALICE)).isEmpty();
  }

  @Test
  void restrictedViewsAndTheWriterKeepTheDecision() {
    Policy policy = Policy.parse(POLICY, "retired.conf");
    assertThat(Policy.parse(policy.toHocon(), "back.conf")).isEqualTo(policy);
    Policy alice = policy.restrictedTo(ALICE);
    assertThat(alice.retiredKeys().get("pii2")).containsExactly("admin");
    assertThat(alice.unwrappableKeys(ALICE)).isEqualTo(policy.unwrappableKeys(ALICE));
    Policy bob = policy.restrictedTo(BOB);
    assertThat(bob.retiredKeys().get("pii2")).isEmpty();
    assertThat(bob.text()).doesNotContain("admin");
    assertThat(bob.unwrappableKeys(BOB)).isEqualTo(policy.unwrappableKeys(BOB));
  }

  @Test
  void aRetiredKeyProtectsNothing() {
    assertThatThrownBy(() -> Policy.parse(POLICY.replace("key = pii,", "key = pii2,"), "live.conf"))
        .isInstanceOf(PolicyException.class)
        .hasMessageContaining("retired key 'pii2' still protects column 'ssn' of db.t");
    assertThatThrownBy(
            () ->
                Policy.parse(
                    POLICY.replace("footer-key = footer", "footer-key = pii2"), "footer.conf"))
        .isInstanceOf(PolicyException.class)
        .hasMessageContaining("retired key 'pii2' is still the footer key");
    assertThatThrownBy(() -> Policy.parse(POLICY.replace("pii2 {}, ", ""), "unknown.conf"))
        .isInstanceOf(PolicyException.class)
        .hasMessageContaining("pii2");
    assertThatThrownBy(
            () ->
                Policy.parse(POLICY.replace("decrypt = [admin]", "decrypt = [root]"), "role.conf"))
        .isInstanceOf(PolicyException.class)
        .hasMessageContaining("unknown role 'root' in decrypt");
    assertThatThrownBy(
            () ->
                Policy.parse(POLICY.replace("decrypt = [admin]", "clear = [admin]"), "field.conf"))
        .isInstanceOf(PolicyException.class)
        .hasMessageContaining("clear");
  }
}
