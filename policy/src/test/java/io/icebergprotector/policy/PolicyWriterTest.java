/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.policy;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/** {@link Policy#toHocon()} renders text that parses back to an equal policy. */
class PolicyWriterTest {
  /** Every field, every mask, defaults and non-defaults, and names that need quoting. */
  static final String EVERY_FIELD =
      """
      protector {
        roles {
          admin            { users = ["alice"], groups = ["cn=admins,ou=groups"], description = "dropped" }
          "data.science"   { users = ["o'brien", "x\\"y"] }
          support          { groups = ["help desk"] }
          "etl$job"        { users = ["etl"] }
        }
        keys = [pii, fin, footer, "logs-footer", k.v2]
        tables {
          "Cat.DB.Customers" {
            description = "dropped"
            footer-key  = footer
            footer-mode = plaintext
            algorithm   = AES_GCM_CTR_V1
            writers     = ["etl$job", admin]
            declassify  = [admin]
            strict      = true
            plain-columns = [id, "meta.source", "We Ird"]
            columns {
              ssn    { key = pii, clear = [admin], masked { support = null, "data.science" = "partial(keep_last=4)" }, on-denied = fail }
              email  { key = pii, masked { "data.science" = hash, support = redact } }
              born   { key = pii, masked { support = year } }
              "address.zip" { key = pii, clear = [admin] }
              contact { phone { key = "k.v2", clear = ["data.science"] } }
              "odd name${x}" { key = fin }
            }
          }
          "db.logs" { footer-key = logs-footer }
        }
        paths {
          "s3a://bucket/pii/" { footer-key = footer, writers = [admin], columns { ssn { key = pii, clear = [admin] } } }
          "/data/with#hash{and}braces" { footer-key = footer, strict = true, columns { amount { key = fin, clear = [support] } } }
        }
      }
      """;

  @Test
  void everyFieldRoundTrips() {
    Policy p = Policy.parse(EVERY_FIELD, "every.conf");
    String text = p.toHocon();
    Policy back = Policy.parse(text, "rendered");
    assertThat(back).isEqualTo(p);
    assertThat(back.toHocon()).isEqualTo(text);
    assertThat(text).doesNotContain("description").doesNotContain("dropped");

    // the parts whose spelling could go wrong
    assertThat(back.roles().keySet())
        .containsExactly("admin", "data.science", "support", "etl$job");
    assertThat(back.roles().get("data.science").users()).containsExactly("o'brien", "x\"y");
    assertThat(back.roles().get("admin").groups()).containsExactly("cn=admins,ou=groups");
    TablePolicy t = back.table("cat.db.customers").orElseThrow();
    assertThat(t.algorithm()).isEqualTo(EncryptionAlgorithm.AES_GCM_CTR_V1);
    assertThat(t.footerMode()).isEqualTo(FooterMode.PLAINTEXT);
    assertThat(t.declassifiers()).containsExactly("admin");
    assertThat(t.strict()).isTrue();
    assertThat(t.plainColumns()).containsExactly("id", "meta.source", "we ird");
    assertThat(t.columns())
        .extracting(ColumnPolicy::path)
        .containsExactly("ssn", "email", "born", "address.zip", "contact.phone", "odd name${x}");
    assertThat(t.column("ssn").orElseThrow().maskedRoles().keySet())
        .containsExactly("support", "data.science");
    assertThat(t.column("ssn").orElseThrow().onDenied()).isEqualTo(OnDenied.FAIL);
    assertThat(back.paths().keySet())
        .containsExactly("s3a://bucket/pii/", "/data/with#hash{and}braces");
    assertThat(back.paths().get("/data/with#hash{and}braces").strict()).isTrue();
    assertThat(back.paths().get("/data/with#hash{and}braces").plainColumns()).isEmpty();

    // mask order survives: a principal holding both masked roles gets the first one listed
    Principal both = Principal.of("o'brien", List.of("help desk"));
    assertThat(back.decide("cat.db.customers", "ssn", both))
        .isEqualTo(Access.masked(Mask.nullMask()));
    assertThat(back.decide("cat.db.customers", "email", both))
        .isEqualTo(Access.masked(Mask.hash()));
  }

  @Test
  void samplePolicyRoundTrips() {
    Policy p = Policy.load(SamplePolicyTest.SAMPLE);
    Policy back = Policy.parse(p.toHocon(), "rendered");
    assertThat(back).isEqualTo(p);
    assertThat(back.hashCode()).isEqualTo(p.hashCode());
  }

  @Test
  void policiesThatDecideDifferentlyAreNotEqual() {
    Policy p = Policy.parse(EVERY_FIELD, "a");
    Policy swappedMasks =
        Policy.parse(
            EVERY_FIELD.replace(
                "masked { support = null, \"data.science\" = \"partial(keep_last=4)\" }",
                "masked { \"data.science\" = \"partial(keep_last=4)\", support = null }"),
            "b");
    Policy otherWriter =
        Policy.parse(
            EVERY_FIELD.replace("writers     = [\"etl$job\", admin]", "writers     = [admin]"),
            "c");
    Policy notStrict =
        Policy.parse(
            EVERY_FIELD.replace(
                "strict = true, columns { amount", "strict = false, columns { amount"),
            "d");
    assertThat(swappedMasks).isNotEqualTo(p);
    assertThat(otherWriter).isNotEqualTo(p);
    assertThat(notStrict).isNotEqualTo(p);
    assertThat(Policy.parse(swappedMasks.toHocon(), "e")).isEqualTo(swappedMasks).isNotEqualTo(p);
  }

  @Test
  void contentDigestIgnoresOriginCommentsAndLayoutButNotRules() {
    Policy p = Policy.parse(EVERY_FIELD, "every.conf");
    Policy relaidOut =
        Policy.parse("# the same rules, laid out by the writer\n" + p.toHocon(), "/elsewhere.conf");
    Policy otherWriter =
        Policy.parse(
            EVERY_FIELD.replace("writers     = [\"etl$job\", admin]", "writers     = [admin]"),
            "every.conf");

    assertThat(relaidOut.digest()).isNotEqualTo(p.digest());
    assertThat(relaidOut.contentDigest()).isEqualTo(p.contentDigest()).hasSize(64);
    assertThat(otherWriter.contentDigest()).isNotEqualTo(p.contentDigest());
  }
}
