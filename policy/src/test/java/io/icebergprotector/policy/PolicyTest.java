/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.policy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class PolicyTest {
  static final String POLICY =
      """
      protector {
        roles {
          admin   { users = ["alice"], groups = ["secops"] }
          analyst { users = ["bob"], groups = ["bi"] }
          support { groups = ["helpdesk"] }
          etl     { users = ["etl"] }
        }
        keys { pii {}, fin {}, footer {}, logs-footer {} }
        tables {
          "DB.Customers" {
            footer-key  = footer
            footer-mode = encrypted
            algorithm   = AES_GCM_V1
            writers     = [etl, admin]
            columns {
              ssn    { key = pii, clear = [admin], masked { analyst = "partial(keep_last=4)", support = redact }, on-denied = null }
              email  { key = pii, clear = [admin], masked { support = null, analyst = hash } }
              salary { key = fin, clear = [admin], on-denied = fail }
              "address.zip" { key = pii, clear = [admin] }
              contact { phone { key = pii, masked { analyst = redact } } }
            }
          }
          "db.logs" {
            footer-key  = logs-footer
            footer-mode = PlainText
            algorithm   = aes_gcm_ctr_v1
          }
        }
        paths {
          "s3a://bucket/pii/" { footer-key = footer, writers = [etl], columns { ssn { key = pii, clear = [admin] } } }
          "s3a://bucket/pii/fin" { footer-key = footer, columns { amount { key = fin, clear = [analyst] } } }
        }
      }
      """;

  static final Policy P = Policy.parse(POLICY, "test.conf");

  static final Principal ALICE = Principal.user("alice");
  static final Principal BOB = Principal.user("bob");
  static final Principal CAROL_SECOPS = Principal.of("carol", List.of("secops"));
  static final Principal DAVE_BI = Principal.of("dave", List.of("bi", "other"));
  static final Principal HELP = Principal.of("hank", List.of("helpdesk"));
  static final Principal ETL = Principal.user("etl");
  static final Principal NOBODY = Principal.of("mallory", List.of("guests"));

  @Test
  void modelIsInPolicyOrder() {
    assertThat(P.origin()).isEqualTo("test.conf");
    assertThat(P.roles().keySet()).containsExactly("admin", "analyst", "support", "etl");
    assertThat(P.roles().get("admin").users()).containsExactly("alice");
    assertThat(P.roles().get("admin").groups()).containsExactly("secops");
    assertThat(P.roles().get("support").users()).isEmpty();
    assertThat(P.keyIds()).containsExactly("pii", "fin", "footer", "logs-footer");
    assertThat(P.tables().keySet()).containsExactly("db.customers", "db.logs");
    TablePolicy t = P.table("db.customers").orElseThrow();
    assertThat(t.name()).isEqualTo("db.customers");
    assertThat(t.footerKeyId()).isEqualTo("footer");
    assertThat(t.footerMode()).isEqualTo(FooterMode.ENCRYPTED);
    assertThat(t.algorithm()).isEqualTo(EncryptionAlgorithm.AES_GCM_V1);
    assertThat(t.writers()).containsExactly("etl", "admin");
    assertThat(t.columns())
        .extracting(ColumnPolicy::path)
        .containsExactly("ssn", "email", "salary", "address.zip", "contact.phone");
    assertThat(t.columnKeyIds()).containsExactly("pii", "fin");
  }

  @Test
  void maskedRolesKeepPolicyOrderEvenOnOneLine() {
    ColumnPolicy ssn = P.table("db.customers").orElseThrow().column("ssn").orElseThrow();
    assertThat(ssn.maskedRoles().keySet()).containsExactly("analyst", "support");
    assertThat(ssn.maskedRoles().get("analyst")).isEqualTo(Mask.partial(4));
    assertThat(ssn.maskedRoles().get("support")).isEqualTo(Mask.redact());
    ColumnPolicy email = P.table("db.customers").orElseThrow().column("email").orElseThrow();
    assertThat(email.maskedRoles().keySet()).containsExactly("support", "analyst");
    assertThat(email.maskedRoles().get("support")).isEqualTo(Mask.nullMask());
  }

  @Test
  void declassifyAndStrictEntries() {
    Policy p =
        Policy.parse(
            """
            protector {
              roles { admin { users = [alice] }, etl { users = [etl] } }
              keys { pii {}, footer {} }
              paths {
                "/data/pii/" {
                  footer-key = footer, writers = [etl], declassify = [admin]
                  strict = true, plain-columns = [id, "meta.source"]
                  columns { ssn { key = pii, clear = [admin] } }
                }
              }
              tables { "db.t" { footer-key = footer, columns { ssn { key = pii } } } }
            }
            """,
            "strict.conf");
    TablePolicy entry = p.paths().get("/data/pii/");
    assertThat(entry.declassifiers()).containsExactly("admin");
    assertThat(entry.strict()).isTrue();
    assertThat(entry.plainColumns()).containsExactly("id", "meta.source");
    assertThat(entry.isPlain("ID")).isTrue();
    assertThat(entry.isPlain("meta.source.host")).isTrue();
    assertThat(entry.isPlain("meta")).isFalse();
    assertThat(entry.isPlain("ssn")).isFalse();
    assertThat(p.canDeclassify(entry, Principal.of("alice", java.util.List.of()))).isTrue();
    assertThat(p.canDeclassify(entry, Principal.of("etl", java.util.List.of()))).isFalse();
    TablePolicy table = p.table("db.t").orElseThrow();
    assertThat(table.declassifiers()).isEmpty();
    assertThat(table.strict()).isFalse();
    assertThat(table.plainColumns()).isEmpty();
  }

  @Test
  void travelsAsItsTextAndParsesOncePerJvm() throws Exception {
    java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
    try (java.io.ObjectOutputStream out = new java.io.ObjectOutputStream(bytes)) {
      out.writeObject(P);
      out.writeObject(P);
    }
    try (java.io.ObjectInputStream in =
        new java.io.ObjectInputStream(new java.io.ByteArrayInputStream(bytes.toByteArray()))) {
      Policy first = (Policy) in.readObject();
      Policy second = (Policy) in.readObject();
      assertThat(first.digest()).isEqualTo(P.digest());
      assertThat(first.text()).isEqualTo(P.text());
      assertThat(first.origin()).isEqualTo("test.conf");
      assertThat(first.rolesOf(ALICE)).containsExactly("admin");
      assertThat(second).isSameAs(first);
    }
    assertThat(Policy.parse(P.text() + "\n", "test.conf").digest()).isNotEqualTo(P.digest());
  }

  @Test
  void nestedColumns() {
    TablePolicy t = P.table("db.customers").orElseThrow();
    ColumnPolicy zip = t.column("ADDRESS.ZIP").orElseThrow();
    assertThat(zip.path()).isEqualTo("address.zip");
    assertThat(zip.pathParts()).containsExactly("address", "zip");
    ColumnPolicy phone = t.column("contact.phone").orElseThrow();
    assertThat(phone.pathParts()).containsExactly("contact", "phone");
    assertThat(phone.clearRoles()).isEmpty();
    assertThat(t.column("contact")).isEmpty();
    assertThat(t.column("address")).isEmpty();
  }

  @Test
  void defaults() {
    TablePolicy logs = P.table("db.logs").orElseThrow();
    assertThat(logs.footerMode()).isEqualTo(FooterMode.PLAINTEXT);
    assertThat(logs.algorithm()).isEqualTo(EncryptionAlgorithm.AES_GCM_CTR_V1);
    assertThat(logs.writers()).isEmpty();
    assertThat(logs.columns()).isEmpty();
    TablePolicy pii = P.paths().get("s3a://bucket/pii/");
    assertThat(pii.footerMode()).isEqualTo(FooterMode.ENCRYPTED);
    assertThat(pii.algorithm()).isEqualTo(EncryptionAlgorithm.AES_GCM_V1);
    ColumnPolicy zip = P.table("db.customers").orElseThrow().column("address.zip").orElseThrow();
    assertThat(zip.onDenied()).isEqualTo(OnDenied.NULL);
    assertThat(zip.maskedRoles()).isEmpty();
    Policy minimal =
        Policy.parse(
            """
        protector { keys = [k, f], tables { "a.b" { footer-key = f, columns { c { key = k } } } } }
        """,
            "min.conf");
    ColumnPolicy c = minimal.table("a.b").orElseThrow().column("c").orElseThrow();
    assertThat(c.clearRoles()).isEmpty();
    assertThat(c.onDenied()).isEqualTo(OnDenied.NULL);
    assertThat(minimal.roles()).isEmpty();
    assertThat(minimal.decide("a.b", "c", ALICE)).isEqualTo(Access.denied(OnDenied.NULL));
  }

  @Test
  void rolesOfUsersAndGroups() {
    assertThat(P.rolesOf(ALICE)).containsExactly("admin");
    assertThat(P.rolesOf(BOB)).containsExactly("analyst");
    assertThat(P.rolesOf(CAROL_SECOPS)).containsExactly("admin");
    assertThat(P.rolesOf(DAVE_BI)).containsExactly("analyst");
    assertThat(P.rolesOf(Principal.of("bob", List.of("helpdesk", "secops"))))
        .containsExactly("admin", "analyst", "support");
    assertThat(P.rolesOf(NOBODY)).isEmpty();
    assertThat(P.rolesOf(Principal.user("ALICE"))).as("user names are case-sensitive").isEmpty();
  }

  @ParameterizedTest(name = "{0} {1} -> {2}")
  @CsvSource({
    "alice,   ssn,          CLEAR",
    "carol,   ssn,          CLEAR",
    "bob,     ssn,          MASKED(partial(keep_last=4))",
    "dave,    ssn,          MASKED(partial(keep_last=4))",
    "hank,    ssn,          MASKED(redact)",
    "mallory, ssn,          DENIED(null)",
    "etl,     ssn,          DENIED(null)",
    "alice,   email,        CLEAR",
    "bob,     email,        MASKED(hash)",
    "hank,    email,        MASKED(null)",
    "bob,     salary,       DENIED(fail)",
    "mallory, salary,       DENIED(fail)",
    "alice,   salary,       CLEAR",
    "bob,     address.zip,  DENIED(null)",
    "alice,   Address.Zip,  CLEAR",
    "bob,     contact.phone, MASKED(redact)",
    "alice,   contact.phone, DENIED(null)",
    "mallory, name,         CLEAR",
    "mallory, address.city, CLEAR",
  })
  void decide(String user, String column, String expected) {
    Principal p =
        switch (user) {
          case "carol" -> CAROL_SECOPS;
          case "dave" -> DAVE_BI;
          case "hank" -> HELP;
          case "mallory" -> NOBODY;
          default -> Principal.user(user);
        };
    assertThat(P.decide("db.customers", column, p).toString()).isEqualTo(expected);
    assertThat(P.decide("DB.CUSTOMERS", column, p).toString()).isEqualTo(expected);
  }

  @Test
  void clearBeatsMaskAndFirstMaskWins() {
    Principal both = Principal.of("bob", List.of("secops"));
    assertThat(P.decide("db.customers", "ssn", both)).isEqualTo(Access.clear());
    Principal twoMasks = Principal.of("hank", List.of("helpdesk", "bi"));
    assertThat(P.decide("db.customers", "ssn", twoMasks)).isEqualTo(Access.masked(Mask.partial(4)));
    assertThat(P.decide("db.customers", "email", twoMasks))
        .isEqualTo(Access.masked(Mask.nullMask()));
  }

  @Test
  void accessObjects() {
    assertThat(Access.clear().canDecrypt()).isTrue();
    assertThat(Access.clear().mask()).isNull();
    assertThat(Access.masked(Mask.hash()).canDecrypt()).isTrue();
    assertThat(Access.masked(Mask.hash()).level()).isEqualTo(AccessLevel.MASKED);
    assertThat(Access.denied(OnDenied.FAIL).canDecrypt()).isFalse();
    assertThat(Access.denied(OnDenied.FAIL).onDenied()).isEqualTo(OnDenied.FAIL);
    assertThat(Access.denied(null).onDenied()).isEqualTo(OnDenied.NULL);
    assertThatThrownBy(() -> Access.masked(null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("Masked access needs a mask");
  }

  @Test
  void unlistedTableOrColumnIsClear() {
    assertThat(P.decide("db.other", "ssn", NOBODY)).isEqualTo(Access.clear());
    assertThat(P.decide("db.customers", "first_name", NOBODY)).isEqualTo(Access.clear());
    assertThat(P.protectedColumns("db.other")).isEmpty();
    assertThat(P.protectedColumns("Db.Customers")).hasSize(5);
    assertThat(P.table("nope.t")).isEmpty();
  }

  @Test
  void protectedStructCoversItsFields() {
    Policy p =
        Policy.parse(
            """
        protector {
          roles { admin { users = [alice] } }
          keys { k {}, f {} }
          tables { "a.b" { footer-key = f, columns { address { key = k, clear = [admin] } } } }
        }
        """,
            "s.conf");
    assertThat(p.decide("a.b", "address.zip", BOB)).isEqualTo(Access.denied(OnDenied.NULL));
    assertThat(p.decide("a.b", "address.zip", ALICE)).isEqualTo(Access.clear());
    assertThat(p.decide("a.b", "addressbook", BOB)).isEqualTo(Access.clear());
  }

  @Test
  void paths() {
    assertThat(P.paths().keySet()).containsExactly("s3a://bucket/pii/", "s3a://bucket/pii/fin");
    assertThat(P.pathFor("s3a://bucket/pii/t/part-0.parquet"))
        .get()
        .extracting(TablePolicy::name)
        .isEqualTo("s3a://bucket/pii/");
    assertThat(P.pathFor("s3a://bucket/pii/fin/part-0.parquet"))
        .get()
        .extracting(TablePolicy::name)
        .isEqualTo("s3a://bucket/pii/fin");
    assertThat(P.pathFor("s3a://bucket/pii/fin"))
        .get()
        .extracting(TablePolicy::name)
        .isEqualTo("s3a://bucket/pii/fin");
    assertThat(P.pathFor("s3a://bucket/pii/finance/x"))
        .get()
        .as("whole segments only")
        .extracting(TablePolicy::name)
        .isEqualTo("s3a://bucket/pii/");
    assertThat(P.pathFor("s3a://bucket/public/x")).isEmpty();
    assertThat(P.pathFor(null)).isEmpty();
    assertThat(P.pathFor("s3a://bucket/pii/x").orElseThrow().column("ssn").orElseThrow().keyId())
        .isEqualTo("pii");
  }

  @Test
  void wrappableKeys() {
    assertThat(P.wrappableKeys(ETL)).containsExactlyInAnyOrder("pii", "fin", "footer");
    assertThat(P.wrappableKeys(ALICE)).containsExactlyInAnyOrder("pii", "fin", "footer");
    assertThat(P.wrappableKeys(CAROL_SECOPS)).containsExactlyInAnyOrder("pii", "fin", "footer");
    assertThat(P.wrappableKeys(BOB)).isEmpty();
    assertThat(P.wrappableKeys(NOBODY)).isEmpty();
    assertThat(P.wrappableKeys(ETL)).doesNotContain("logs-footer"); // db.logs has no writers
  }

  @Test
  void unwrappableKeys() {
    Set<String> footers = Set.of("footer", "logs-footer");
    assertThat(P.unwrappableKeys(NOBODY)).containsExactlyInAnyOrderElementsOf(footers);
    assertThat(P.unwrappableKeys(ETL)).containsExactlyInAnyOrderElementsOf(footers);
    // analyst: masked on ssn/email/contact.phone (pii) and clear on the path's amount (fin)
    assertThat(P.unwrappableKeys(BOB))
        .containsExactlyInAnyOrder("footer", "logs-footer", "pii", "fin");
    assertThat(P.unwrappableKeys(HELP)).containsExactlyInAnyOrder("footer", "logs-footer", "pii");
    assertThat(P.unwrappableKeys(ALICE))
        .containsExactlyInAnyOrder("footer", "logs-footer", "pii", "fin");
  }

  @Test
  void clearKeysLeaveOutTheKeysAPrincipalOnlyMasks() {
    Set<String> footers = Set.of("footer", "logs-footer");
    assertThat(P.clearKeys(NOBODY)).containsExactlyInAnyOrderElementsOf(footers);
    // analyst: pii only masked (ssn, email, contact.phone), fin clear on the path's amount
    assertThat(P.clearKeys(BOB)).containsExactlyInAnyOrder("footer", "logs-footer", "fin");
    // support: pii only masked
    assertThat(P.clearKeys(HELP)).containsExactlyInAnyOrderElementsOf(footers);
    assertThat(P.clearKeys(ALICE)).containsExactlyInAnyOrder("footer", "logs-footer", "pii", "fin");
    for (Principal p : List.of(NOBODY, ETL, BOB, HELP, ALICE, CAROL_SECOPS)) {
      assertThat(P.unwrappableKeys(p)).as("%s", p).containsAll(P.clearKeys(p));
    }
  }

  @Test
  void principal() {
    Principal p = Principal.of("alice", List.of("secops", "b", "secops"));
    assertThat(p.toString()).isEqualTo("alice[b,secops]");
    assertThat(Principal.of("alice", List.of("secops")).toString()).isEqualTo("alice[secops]");
    assertThat(Principal.user("bob").toString()).isEqualTo("bob[]");
    assertThat(p).isEqualTo(Principal.of("alice", List.of("b", "secops")));
    assertThat(p.hashCode()).isEqualTo(Principal.of("alice", List.of("b", "secops")).hashCode());
    assertThat(p).isNotEqualTo(Principal.user("alice"));
    assertThatThrownBy(() -> p.groups().add("x"))
        .isInstanceOf(UnsupportedOperationException.class)
        // the JDK's unmodifiable views throw without a message
        .hasMessage(null);
    assertThatThrownBy(() -> Principal.user(" "))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("Principal user must be non-empty, got ' '");
  }

  @Test
  void immutableViews() {
    assertThatThrownBy(() -> P.tables().clear())
        .isInstanceOf(UnsupportedOperationException.class)
        // the JDK's unmodifiable views throw without a message
        .hasMessage(null);
    assertThatThrownBy(() -> P.keyIds().add("x"))
        .isInstanceOf(UnsupportedOperationException.class)
        // the JDK's unmodifiable views throw without a message
        .hasMessage(null);
    assertThatThrownBy(() -> P.protectedColumns("db.customers").clear())
        .isInstanceOf(UnsupportedOperationException.class)
        // the JDK's unmodifiable views throw without a message
        .hasMessage(null);
  }

  @Test
  void hoconFeaturesStillWork() {
    Policy p =
        Policy.parse(
            """
        admins = [admin]
        protector {
          roles { admin { users = [alice] } }
          keys { k {}, f {} }
          tables {
            "a.b" {
              footer-key = f
              columns {
                x { key = k, clear = ${admins} }   // substitution
                s.t { key = k }                    # unquoted path = nested s { t {} }
                s.u { key = k }
              }
            }
          }
        }
        """,
            "h.conf");
    assertThat(p.table("a.b").orElseThrow().columns())
        .extracting(ColumnPolicy::path)
        .containsExactly("x", "s.t", "s.u");
    assertThat(p.decide("a.b", "x", ALICE)).isEqualTo(Access.clear());
  }

  @Test
  void validateSchema() {
    Map<String, ColumnType> schema =
        Map.of(
            "SSN",
            ColumnType.STRING,
            "email",
            ColumnType.STRING,
            "salary",
            ColumnType.DECIMAL,
            "address.zip",
            ColumnType.STRING,
            "contact.phone",
            ColumnType.STRING,
            "name",
            ColumnType.STRING);
    P.validateSchema("db.customers", schema);
    P.validateSchema("db.unlisted", Map.of());
  }
}
