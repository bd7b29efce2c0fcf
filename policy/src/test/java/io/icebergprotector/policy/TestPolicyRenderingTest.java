/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.policy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.icebergprotector.testing.TestPolicy;
import org.junit.jupiter.api.Test;

/**
 * The shared test fixture {@link TestPolicy} renders text this parser reads to the same model as
 * the hand-written HOCON it replaced in the tests (compared through {@link PolicyWriter}, which
 * writes every setting, defaults included).
 */
class TestPolicyRenderingTest {
  private static final String HAND_WRITTEN =
      """
      protector {
        roles {
          admin   { users = ["alice"], groups = ["secops"] }
          analyst { users = ["bob"] }
          etl     { users = ["etl"] }
        }
        keys { pii {}, fin {}, footer {} }
        tables {
          "db.customers" {
            footer-key = footer
            footer-mode = plaintext
            algorithm = AES_GCM_CTR_V1
            writers = [etl, admin]
            declassify = [admin]
            columns {
              ssn    { key = pii, clear = [admin], masked { analyst = "partial(keep_last=4)" }, on-denied = null }
              email  { key = pii, clear = [admin], masked { analyst = hash } }
              salary { key = fin, clear = [admin], on-denied = fail }
              "address.zip" { key = pii, clear = [admin] }
              acct { key = pii, method = "fpe(alphabet = digits, keep = '-')", domain = acct, clear = [admin], token = [analyst] }
            }
          }
        }
        paths {
          "file:/data/people/" {
            footer-key = footer
            writers = [etl]
            columns { ssn { key = pii, clear = [admin] } }
          }
        }
      }
      """;

  @Test
  void rendersTheModelOfTheHandWrittenText() {
    String built =
        TestPolicy.builder()
            .role("admin", "alice")
            .roleGroups("admin", "secops")
            .role("analyst", "bob")
            .role("etl", "etl")
            .keys("pii", "fin", "footer")
            .table(
                "db.customers",
                t ->
                    t.footerKey("footer")
                        .footerMode("plaintext")
                        .algorithm("AES_GCM_CTR_V1")
                        .writers("etl", "admin")
                        .declassify("admin")
                        .column(
                            "ssn",
                            c ->
                                c.key("pii")
                                    .clear("admin")
                                    .masked("analyst", "partial(keep_last=4)")
                                    .onDenied("null"))
                        .column("email", c -> c.key("pii").clear("admin").masked("analyst", "hash"))
                        .column("salary", c -> c.key("fin").clear("admin").onDenied("fail"))
                        .column("address.zip", c -> c.key("pii").clear("admin"))
                        .column(
                            "acct",
                            c ->
                                c.key("pii")
                                    .method("fpe(alphabet = digits, keep = '-')")
                                    .domain("acct")
                                    .clear("admin")
                                    .token("analyst")))
            .path(
                "file:/data/people/",
                p ->
                    p.footerKey("footer")
                        .writers("etl")
                        .column("ssn", c -> c.key("pii").clear("admin")))
            .render();

    assertThat(PolicyWriter.write(Policy.parse(built, "built.conf")))
        .isEqualTo(PolicyWriter.write(Policy.parse(HAND_WRITTEN, "hand.conf")));
  }

  @Test
  void quotesWhatHoconWouldReadOtherwise() {
    String built =
        TestPolicy.builder()
            .role("admin", "alice@example.com", "true")
            .keys("pii", "footer")
            .table(
                "db.t", t -> t.footerKey("footer").writers("admin").column("c", c -> c.key("pii")))
            .render();

    Policy policy = Policy.parse(built, "quoted.conf");
    assertThat(PolicyWriter.write(policy)).contains("\"alice@example.com\"", "\"true\"");
  }

  @Test
  void resourceNamesAMissingFile() {
    assertThatThrownBy(() -> TestPolicy.resource(getClass(), "policies/none.conf"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("Cannot load policy resource /policies/none.conf");
  }
}
