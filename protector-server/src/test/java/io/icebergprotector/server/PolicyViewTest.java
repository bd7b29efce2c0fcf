/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.icebergprotector.kms.remote.RemoteKeyService;
import io.icebergprotector.policy.ColumnPolicy;
import io.icebergprotector.policy.Digests;
import io.icebergprotector.policy.Policy;
import io.icebergprotector.policy.Principal;
import io.icebergprotector.policy.TablePolicy;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * GET /v1/protector/policy: the whole file for admin roles, each caller's own part for everyone
 * else.
 */
class PolicyViewTest {
  @TempDir static Path dir;
  static ServerFixture fx;
  static final Policy FULL = Policy.parse(ServerFixture.POLICY, "server policy");

  // every user, group and role name of the server's policy and tokens
  static final List<String> NAMES =
      List.of(
          "\"alice\"",
          "\"bob\"",
          "\"etl\"",
          "\"ops\"",
          "\"carol\"",
          "\"dave\"",
          "\"secops\"",
          "\"bi\"",
          "\"nobody\"",
          "\"admin\"",
          "\"analyst\"",
          "\"keyadmin\"");

  @BeforeAll
  static void start() throws Exception {
    fx = ServerFixture.start(dir);
  }

  @AfterAll
  static void stop() {
    fx.close();
  }

  private static String etagOf(String text) {
    return "\"" + Digests.sha256Hex(text) + "\"";
  }

  private static HttpResponse<String> read(String user) throws Exception {
    HttpResponse<String> r = fx.get("/v1/protector/policy", fx.token(user));
    assertThat(r.statusCode()).as("policy read by %s", user).isEqualTo(200);
    assertThat(r.headers().firstValue("ETag"))
        .as("ETag of what %s got", user)
        .hasValue(etagOf(r.body()));
    return r;
  }

  @Test
  void anAdminRoleGetsTheWholeFile() throws Exception {
    HttpResponse<String> r = read("ops"); // keyadmin is the server's admin role
    assertThat(r.body()).isEqualTo(ServerFixture.POLICY);
    try (RemoteKeyService ops = fx.client("ops")) {
      assertThat(ops.fetchPolicyText()).isEqualTo(ServerFixture.POLICY);
    }
  }

  @Test
  void bobGetsHisPartWithTheSameDecisionsAndNobodyElse() throws Exception {
    String text;
    try (RemoteKeyService bob = fx.client("bob")) {
      text = bob.fetchPolicyText();
    }
    assertThat(read("bob").body()).isEqualTo(text);
    assertThat(etagOf(text)).isNotEqualTo(etagOf(ServerFixture.POLICY));
    for (String name : NAMES) {
      if (!name.equals("\"bob\"") && !name.equals("\"analyst\"")) {
        assertThat(text).as("bob's view names %s", name).doesNotContain(name);
      }
    }
    assertThat(text).doesNotContain("alice").doesNotContain("secops").doesNotContain("admin");

    Policy view = Policy.parse(text, fx.url() + "/v1/protector/policy");
    assertThat(view.roles().keySet()).containsExactly("analyst");
    assertThat(view.roles().get("analyst").users()).containsExactly("bob");
    assertThat(view.roles().get("analyst").groups()).isEmpty();
    assertSameDecisions(Principal.user("bob"), view);
  }

  @Test
  void anAdminThroughAGroupThatIsNoServerAdminGetsItsPart() throws Exception {
    String text = read("dave").body(); // groups [secops]: the policy's admin role, not keyadmin
    Policy view = Policy.parse(text, "dave's view");
    Principal dave = Principal.of("dave", List.of("secops"));
    assertThat(view.roles().keySet()).containsExactly("admin");
    assertThat(view.roles().get("admin").users()).isEmpty();
    assertThat(view.roles().get("admin").groups()).containsExactly("secops");
    assertThat(text)
        .doesNotContain("alice")
        .doesNotContain("\"bob\"")
        .doesNotContain("\"bi\"")
        .doesNotContain("analyst")
        .doesNotContain("keyadmin")
        .doesNotContain("\"etl\"");
    assertSameDecisions(dave, view);
    assertThat(view.canDeclassify(view.table("db.customers").orElseThrow(), dave)).isTrue();
  }

  @Test
  void aCallerWithoutRolesGetsAPolicyWithoutRolesThatStillParses() throws Exception {
    String text = read("carol").body();
    for (String name : NAMES) {
      assertThat(text).as("carol's view names %s", name).doesNotContain(name);
    }
    Policy view = Policy.parse(text, "carol's view");
    Principal carol = Principal.of("carol", List.of("nobody"));
    assertThat(view.roles()).isEmpty();
    assertThat(view.tables().keySet()).containsExactlyElementsOf(FULL.tables().keySet());
    assertThat(view.paths().keySet()).containsExactlyElementsOf(FULL.paths().keySet());
    assertThat(view.table("db.customers").orElseThrow().writers()).isEmpty();
    assertThat(view.table("db.customers").orElseThrow().column("ssn").orElseThrow().maskedRoles())
        .isEmpty();
    assertSameDecisions(carol, view);
  }

  @Test
  void everyTokenHoldersViewDecidesAsTheFullPolicy() throws Exception {
    for (String user : List.of("etl", "alice", "bob", "carol", "dave")) {
      Policy view = Policy.parse(read(user).body(), user + "'s view");
      List<String> groups =
          user.equals("carol")
              ? List.of("nobody")
              : user.equals("dave") ? List.of("secops") : List.of();
      assertSameDecisions(Principal.of(user, groups), view);
    }
  }

  private static void assertSameDecisions(Principal p, Policy view) {
    assertThat(view.rolesOf(p)).as("roles of %s", p).containsExactlyElementsOf(FULL.rolesOf(p));
    assertThat(view.wrappableKeys(p))
        .as("wrappable keys of %s", p)
        .isEqualTo(FULL.wrappableKeys(p));
    assertThat(view.unwrappableKeys(p))
        .as("unwrappable keys of %s", p)
        .isEqualTo(FULL.unwrappableKeys(p));
    List<TablePolicy> entries = new ArrayList<>(FULL.tables().values());
    entries.addAll(FULL.paths().values());
    for (TablePolicy entry : entries) {
      TablePolicy same = view.table(entry.name()).orElseGet(() -> view.paths().get(entry.name()));
      assertThat(same).as("entry %s in the view", entry.name()).isNotNull();
      assertThat(view.canDeclassify(same, p))
          .as("%s declassifies %s", p, entry.name())
          .isEqualTo(FULL.canDeclassify(entry, p));
      for (ColumnPolicy c : entry.columns()) {
        assertThat(same.column(c.path()).orElseThrow().accessFor(view.rolesOf(p)))
            .as("%s reads %s.%s", p, entry.name(), c.path())
            .isEqualTo(c.accessFor(FULL.rolesOf(p)));
      }
      if (FULL.table(entry.name()).isPresent()) {
        for (ColumnPolicy c : entry.columns()) {
          assertThat(view.decide(entry.name(), c.path(), p))
              .isEqualTo(FULL.decide(entry.name(), c.path(), p));
        }
      }
    }
  }
}
