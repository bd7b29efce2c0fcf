/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.icebergprotector.it.harness.KeyServerStackTestBase;
import io.icebergprotector.spark.core.ProtectorException;
import io.icebergprotector.testing.TestPolicy;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Remote mode, separate sessions and separate tokens (issue 11 item 1): a plan that alice builds
 * never runs with her keys in mallory's session. Mallory (no role) reads alice's global temp view
 * and her cached table with her own token: she gets NULLs or a refusal, and the key server's audit
 * shows her requests, none in alice's name.
 */
class RemotePrincipalBindingTest extends KeyServerStackTestBase {
  private static final String SSN = "SSN-RPB-0001";

  /** Also the policy of {@link SeparateJvmPrincipalsTest}, where alice writes as well. */
  static final String POLICY =
      TestPolicy.resource(
          RemotePrincipalBindingTest.class, "policies/RemotePrincipalBindingTest.conf");

  private SparkSession alice;
  private SparkSession mallory;

  RemotePrincipalBindingTest() {
    super(POLICY, List.of("etl", "alice", "mallory"), List.of("pii", "fin", "footer"));
  }

  @BeforeAll
  void setUp() {
    configure(spark, "etl");
    spark.sql("CREATE NAMESPACE IF NOT EXISTS prot.db");
    spark.sql(
        "CREATE TABLE prot.db.people (id BIGINT, ssn STRING, salary BIGINT) USING iceberg"
            + " TBLPROPERTIES ('write.parquet.compression-codec'='uncompressed')");
    spark.sql("INSERT INTO prot.db.people VALUES (1, '" + SSN + "', 4242424242)");
    this.alice = spark.newSession();
    configure(alice, "alice");
    this.mallory = spark.newSession();
    configure(mallory, "mallory");
  }

  @AfterEach
  void uncache() {
    spark.catalog().clearCache();
  }

  private void configure(SparkSession session, String tokenName) {
    configureProt(session, tokenName, Map.of());
  }

  private static List<String> values(SparkSession session, String query) {
    return session.sql(query).collectAsList().stream()
        .map(r -> r.isNullAt(0) ? null : String.valueOf(r.get(0)))
        .collect(Collectors.toList());
  }

  /** Audit events of one principal written since {@code from}. */
  private List<Map<String, Object>> auditSince(int from, String principal) {
    List<Map<String, Object>> events = keyServer.auditEvents();
    return events.subList(from, events.size()).stream()
        .filter(e -> principal.equals(e.get("principal")))
        .collect(Collectors.toList());
  }

  @Test
  void alicesGlobalTempViewReadsWithMallorysOwnKeys() {
    alice.table("prot.db.people").createOrReplaceGlobalTempView("alice_people");
    assertThat(values(alice, "SELECT ssn FROM global_temp.alice_people")).containsExactly(SSN);

    int before = keyServer.auditEvents().size();
    List<Row> rows =
        mallory.sql("SELECT id, ssn, salary FROM global_temp.alice_people").collectAsList();
    assertThat(rows)
        .singleElement()
        .satisfies(
            r -> {
              assertThat(r.getLong(0)).isEqualTo(1L);
              assertThat(r.isNullAt(1)).as("mallory is denied ssn").isTrue();
              assertThat(r.isNullAt(2)).as("mallory is denied salary").isTrue();
            });
    assertThat(auditSince(before, "alice"))
        .as("mallory's query made no key request in alice's name")
        .isEmpty();
    // Mallory's key-encryption keys may be cached from an earlier query of her session, so look
    // at everything she ever asked for.
    assertThat(auditSince(0, "mallory"))
        .as("mallory read the footer with her own token")
        .anyMatch(e -> "footer".equals(e.get("key")) && "allow".equals(e.get("decision")))
        .as("and was never given a column key")
        .noneMatch(
            e ->
                ("pii".equals(e.get("key")) || "fin".equals(e.get("key")))
                    && "allow".equals(e.get("decision")));
  }

  @Test
  void alicesCachedTableDoesNotAnswerMallory() {
    alice.sql("CACHE TABLE prot.db.people");
    assertThat(values(alice, "SELECT ssn FROM prot.db.people")).containsExactly(SSN);
    assertThat(values(mallory, "SELECT ssn FROM prot.db.people")).containsExactly((String) null);
    assertThat(values(mallory, "SELECT salary FROM prot.db.people")).containsExactly((String) null);
  }

  @Test
  void alicesCachedGlobalViewIsRefusedToMallory() {
    alice.table("prot.db.people").createOrReplaceGlobalTempView("alice_cached");
    alice.catalog().cacheTable("global_temp.alice_cached");
    assertThat(values(alice, "SELECT ssn FROM global_temp.alice_cached")).containsExactly(SSN);
    assertThatThrownBy(
            () -> mallory.sql("SELECT ssn FROM global_temp.alice_cached").collectAsList())
        .isInstanceOf(ProtectorException.class)
        .hasMessageContaining("resolved for principal 'alice'")
        .hasMessageContaining("now acts as 'mallory'")
        .hasMessageNotContaining(SSN);
  }
}
