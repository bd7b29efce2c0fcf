/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.policy;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** {@link Policy#restrictedTo}: the same decisions for its principal, nothing about anyone else. */
class RestrictedPolicyTest {
  static final String POLICY =
      """
      protector {
        roles {
          admin    { users = ["alice"], groups = ["secops"] }
          analyst  { users = ["bob"], groups = ["bi"] }
          support  { groups = ["helpdesk", "bi"] }
          etl      { users = ["etl", "bob"] }
          auditor  { users = ["zed"] }
        }
        keys { pii {}, fin {}, footer {}, logs-footer {} }
        tables {
          "db.customers" {
            footer-key = footer
            writers    = [etl, admin]
            declassify = [admin, auditor]
            strict = true, plain-columns = [id]
            columns {
              ssn    { key = pii, clear = [admin], masked { support = null, analyst = "partial(keep_last=4)" }, on-denied = fail }
              email  { key = pii, clear = [admin, auditor], masked { analyst = hash } }
              salary { key = fin, clear = [admin] }
              "address.zip" { key = pii, masked { auditor = redact } }
            }
          }
          "db.logs" { footer-key = logs-footer, algorithm = AES_GCM_CTR_V1, writers = [auditor] }
        }
        paths {
          "s3a://bucket/pii/" { footer-key = footer, writers = [etl], declassify = [analyst], columns { ssn { key = pii, clear = [analyst] } } }
        }
      }
      """;

  static final Policy P = Policy.parse(POLICY, "restricted.conf");

  static final List<Principal> PRINCIPALS =
      List.of(
          Principal.user("alice"),
          Principal.user("bob"),
          Principal.of("bob", List.of("bi", "elsewhere")),
          Principal.of("carol", List.of("secops")),
          Principal.of("dave", List.of("helpdesk")),
          Principal.user("etl"),
          Principal.user("zed"),
          Principal.of("mallory", List.of("guests")));

  @Test
  void everyDecisionIsTheSameForThePrincipal() {
    for (Principal p : PRINCIPALS) {
      Policy mine = P.restrictedTo(p);
      Policy parsed = Policy.parse(mine.toHocon(), "view of " + p);
      assertThat(parsed).as("%s: rendered view parses back", p).isEqualTo(mine);
      for (Policy view : List.of(mine, parsed)) {
        assertSameDecisions(p, view);
      }
    }
  }

  private static void assertSameDecisions(Principal p, Policy view) {
    assertThat(view.rolesOf(p)).as("roles of %s", p).containsExactlyElementsOf(P.rolesOf(p));
    assertThat(view.wrappableKeys(p)).as("wrappable keys of %s", p).isEqualTo(P.wrappableKeys(p));
    assertThat(view.unwrappableKeys(p))
        .as("unwrappable keys of %s", p)
        .isEqualTo(P.unwrappableKeys(p));
    for (TablePolicy entry : allEntries(P)) {
      TablePolicy same =
          view.table(entry.name()).or(() -> view.pathFor(entry.name())).orElseThrow();
      assertThat(same.name()).isEqualTo(entry.name());
      assertThat(view.canDeclassify(same, p))
          .as("%s declassifies %s", p, entry.name())
          .isEqualTo(P.canDeclassify(entry, p));
      assertThat(same.footerKeyId()).isEqualTo(entry.footerKeyId());
      assertThat(same.algorithm()).isEqualTo(entry.algorithm());
      assertThat(same.strict()).isEqualTo(entry.strict());
      assertThat(same.plainColumns()).isEqualTo(entry.plainColumns());
      for (ColumnPolicy c : entry.columns()) {
        assertThat(same.column(c.path()).orElseThrow().accessFor(view.rolesOf(p)))
            .as("%s on %s.%s", p, entry.name(), c.path())
            .isEqualTo(c.accessFor(P.rolesOf(p)));
        if (P.table(entry.name()).isPresent()) {
          assertThat(view.decide(entry.name(), c.path(), p))
              .isEqualTo(P.decide(entry.name(), c.path(), p));
        }
      }
    }
  }

  @Test
  void aViewNamesNobodyElse() {
    Principal bob = Principal.user("bob");
    String text = P.restrictedTo(bob).toHocon();
    assertThat(text).contains("\"bob\"", "\"analyst\"", "\"etl\"");
    for (String other :
        List.of("alice", "secops", "\"bi\"", "helpdesk", "zed", "admin", "support", "auditor")) {
      assertThat(text).as("bob's view").doesNotContain(other);
    }
    // the rules themselves stay: tables, paths, columns, keys
    assertThat(text)
        .contains(
            "db.customers",
            "db.logs",
            "s3a://bucket/pii/",
            "address.zip",
            "\"fin\"",
            "partial(keep_last=4)",
            "AES_GCM_CTR_V1");

    // groups: only those of the principal's groups the role names
    Principal bobInBi = Principal.of("bob", List.of("bi", "elsewhere"));
    Policy view = P.restrictedTo(bobInBi);
    assertThat(view.roles().keySet()).containsExactly("analyst", "support", "etl");
    assertThat(view.roles().get("analyst").users()).containsExactly("bob");
    assertThat(view.roles().get("analyst").groups()).containsExactly("bi");
    assertThat(view.roles().get("support").users()).isEmpty();
    assertThat(view.roles().get("support").groups()).containsExactly("bi");
    assertThat(view.roles().get("etl").users()).containsExactly("bob");
    assertThat(view.toHocon()).doesNotContain("helpdesk").doesNotContain("elsewhere");
  }

  @Test
  void otherRolesDisappearFromEveryList() {
    Policy view = P.restrictedTo(Principal.user("zed")); // auditor only
    TablePolicy customers = view.table("db.customers").orElseThrow();
    assertThat(customers.writers()).isEmpty();
    assertThat(customers.declassifiers()).containsExactly("auditor");
    assertThat(customers.column("ssn").orElseThrow().clearRoles()).isEmpty();
    assertThat(customers.column("ssn").orElseThrow().maskedRoles()).isEmpty();
    assertThat(customers.column("email").orElseThrow().clearRoles()).containsExactly("auditor");
    assertThat(customers.column("address.zip").orElseThrow().maskedRoles())
        .containsOnlyKeys("auditor");
    assertThat(view.table("db.logs").orElseThrow().writers()).containsExactly("auditor");
    assertThat(view.paths().get("s3a://bucket/pii/").declassifiers()).isEmpty();
  }

  @Test
  void aPrincipalWithoutRolesGetsAPolicyWithoutRolesThatStillParses() {
    Principal mallory = Principal.of("mallory", List.of("guests"));
    Policy view = P.restrictedTo(mallory);
    assertThat(view.roles()).isEmpty();
    String text = view.toHocon();
    Policy parsed = Policy.parse(text, "mallory's view");
    assertThat(parsed.roles()).isEmpty();
    assertThat(parsed.tables().keySet()).containsExactly("db.customers", "db.logs");
    assertThat(parsed.decide("db.customers", "ssn", mallory))
        .isEqualTo(Access.denied(OnDenied.FAIL));
    assertThat(parsed.unwrappableKeys(mallory)).containsExactly("footer", "logs-footer");
    assertThat(parsed.wrappableKeys(mallory)).isEmpty();
    // no quoted name at all besides keys, tables, paths, columns, masks and enum values
    Set<String> allowed =
        Set.of(
            "pii",
            "fin",
            "footer",
            "logs-footer",
            "db.customers",
            "db.logs",
            "s3a://bucket/pii/",
            "ssn",
            "email",
            "salary",
            "address.zip",
            "id",
            "encrypted",
            "AES_GCM_V1",
            "AES_GCM_CTR_V1",
            "null",
            "fail");
    List<String> quoted = new ArrayList<>();
    Pattern.compile("\"([^\"]*)\"").matcher(text).results().forEach(m -> quoted.add(m.group(1)));
    assertThat(quoted).isNotEmpty().allSatisfy(q -> assertThat(allowed).contains(q));
  }

  @Test
  void theSamplePolicyRestrictsForItsUsers() {
    Policy sample = Policy.load(SamplePolicyTest.SAMPLE);
    for (Principal p :
        List.of(
            Principal.user("alice"),
            Principal.user("bob"),
            Principal.user("etl"),
            Principal.of("x", List.of("secops")),
            Principal.user("nobody"))) {
      Policy parsed = Policy.parse(sample.restrictedTo(p).toHocon(), "sample view");
      assertThat(parsed.rolesOf(p)).isEqualTo(sample.rolesOf(p));
      for (TablePolicy t : sample.tables().values()) {
        for (ColumnPolicy c : t.columns()) {
          assertThat(parsed.decide(t.name(), c.path(), p))
              .isEqualTo(sample.decide(t.name(), c.path(), p));
        }
      }
    }
  }

  private static List<TablePolicy> allEntries(Policy p) {
    List<TablePolicy> all = new ArrayList<>(p.tables().values());
    all.addAll(p.paths().values());
    return all;
  }
}
