/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.icebergprotector.it.harness.DriverLogCapture;
import io.icebergprotector.it.harness.KeyServerStackTestBase;
import io.icebergprotector.spark.core.ProtectorException;
import io.icebergprotector.testing.TestPolicy;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Remote mode: a declassifying write needs the key server's authorization, and the server audits
 * it. Views are refused on the driver as in local mode; a catalog whose local policy would allow
 * more than the server's does not start, and one that still holds a withdrawn policy is refused by
 * the server, which has the last word.
 */
class RemoteDeclassificationTest extends KeyServerStackTestBase {
  private static final String CARD = "CARD-RDC-4242";
  private static final String POLICY =
      TestPolicy.resource(
          RemoteDeclassificationTest.class, "policies/RemoteDeclassificationTest.conf");

  private SparkSession alice;

  RemoteDeclassificationTest() {
    super(POLICY, List.of("etl", "alice", "carl"), List.of("pii", "footer"));
  }

  @BeforeAll
  void setUp() {
    configureProt(spark, "etl", Map.of());
    spark.sql("CREATE NAMESPACE IF NOT EXISTS prot.db");
    spark.sql("CREATE TABLE prot.db.orders (id BIGINT, card_number STRING) USING iceberg");
    spark.sql("INSERT INTO prot.db.orders VALUES (1, '" + CARD + "')");
    this.alice = spark.newSession();
    configureProt(alice, "alice", Map.of());
  }

  private List<Map<String, Object>> declassifyEvents(String principal) {
    return keyServer.auditEvents().stream()
        .filter(e -> "declassify".equals(e.get("op")) && principal.equals(e.get("principal")))
        .collect(Collectors.toList());
  }

  @Test
  void theKeyServerAuthorizesAndAuditsADeclassification() {
    String ctas = "CREATE TABLE prot.db.orders_copy USING iceberg AS SELECT * FROM prot.db.orders";
    assertThatThrownBy(() -> alice.sql(ctas))
        .isInstanceOf(ProtectorException.class)
        .hasMessageContaining("it would declassify protected data")
        .hasMessageContaining("spark.protector.declassify=true (not set)");
    assertThat(declassifyEvents("alice")).as("refused before asking the server").isEmpty();

    alice.conf().set("spark.protector.declassify", "true");
    try (DriverLogCapture log = DriverLogCapture.start(getClass().getSimpleName())) {
      alice.sql(ctas);
      List<Map<String, Object>> events = declassifyEvents("alice");
      assertThat(events)
          .singleElement()
          .satisfies(
              e ->
                  assertThat(e)
                      .containsEntry("decision", "allow")
                      .containsEntry("entry", "db.orders")
                      .containsEntry("columns", List.of("card_number")));
      String auditId = (String) events.get(0).get("audit_id");
      assertThat(log.text())
          .contains("Declassifying write: principal alice declassifies column(s) [card_number]")
          .contains("key server audit " + auditId)
          .doesNotContain(CARD);
    } finally {
      alice.conf().unset("spark.protector.declassify");
    }
    assertThat(alice.sql("SELECT card_number FROM prot.db.orders_copy").first().getString(0))
        .isEqualTo(CARD);
  }

  @Test
  void aLenientLocalPolicyCannotStartTheCatalog() throws IOException {
    // carl's session names a local policy that lets auditors declassify; the server's does not
    Path lenient = work.resolve("lenient-policy.conf");
    Files.writeString(
        lenient, POLICY.replace("declassify = [admin]", "declassify = [admin, auditor]"));
    int asked = declassifyEvents("carl").size();
    SparkSession carl = spark.newSession();
    configureProt(carl, "carl", Map.of("protector.policy", lenient.toString()));
    carl.conf().set("spark.protector.declassify", "true");
    assertThatThrownBy(
            () ->
                carl.sql(
                    "CREATE TABLE prot.db.carl_copy USING iceberg AS SELECT * FROM prot.db.orders"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("Cannot start catalog 'prot': its protector.policy " + lenient)
        .hasMessageContaining("is not the policy the key server at");
    assertThat(declassifyEvents("carl")).as("nothing asked of the server").hasSize(asked);
  }

  @Test
  void theKeyServerHasTheLastWordOverAStaleCatalog() throws IOException {
    // the server lets auditors declassify; carl's catalog takes that policy and keeps it an hour
    String lenient = POLICY.replace("declassify = [admin]", "declassify = [admin, auditor]");
    servePolicy(lenient);
    SparkSession carl = spark.newSession();
    configureStaleProt(carl, "carl", Map.of());
    carl.conf().set("spark.protector.declassify", "true");
    try {
      // the server withdraws it; carl's catalog still decides under the lenient policy
      servePolicy(POLICY);
      int asked = declassifyEvents("carl").size();
      assertThatThrownBy(
              () ->
                  carl.sql(
                      "CREATE TABLE prot.db.carl_copy USING iceberg AS"
                          + " SELECT * FROM prot.db.orders"))
          .isInstanceOf(ProtectorException.class)
          .hasMessageContaining("Declassification refused by the key server")
          .hasMessageContaining("principal carl declassifies column(s) [card_number] of table");
      assertThat(declassifyEvents("carl")).hasSize(asked + 1);
      assertThat(declassifyEvents("carl").get(asked)).containsEntry("decision", "deny");
      assertThat(carl.catalog().tableExists("prot.db.carl_copy")).isFalse();
    } finally {
      servePolicy(POLICY);
    }
  }

  @Test
  void viewsAreRefusedOnTheDriverAsInLocalMode() {
    // etl writes the table but is denied card_number: copying rows would store NULL over it
    assertThatThrownBy(
            () ->
                spark.sql(
                    "INSERT INTO prot.db.orders SELECT id + 100, card_number FROM prot.db.orders"))
        .isInstanceOf(ProtectorException.class)
        .hasMessageContaining("read by etl as denied (reads as NULL)");
  }
}
