/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.icebergprotector.it.harness.KeyServerStackTestBase;
import io.icebergprotector.policy.Policy;
import io.icebergprotector.spark.core.ProtectorException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * One policy, distributed: catalogs take the key server's policy and keep it current in running
 * sessions. An edit of the server's policy file reaches a session's next queries within the
 * server's reload interval (1 s here) plus the catalog's {@code protector.policy-refresh-seconds}
 * (2 s here), with no restart, and the server audits it with both digests. A catalog configured
 * with a local policy starts only when that file states the server's rules.
 */
class PolicyRefreshTest extends KeyServerStackTestBase {
  private static final String MASKED_FOR_ANALYSTS =
      "ssn { key = pii, clear = [admin], masked { analyst = \"partial(keep_last=4)\" } }";
  private static final String CLEAR_FOR_ANALYSTS = "ssn { key = pii, clear = [admin, analyst] }";
  private static final String POLICY =
      String.join(
          "\n",
          "protector {",
          "  roles {",
          "    etl      { users = [\"etl\"] }",
          "    admin    { users = [\"alice\"] }",
          "    analyst  { users = [\"bob\"] }",
          "    keyadmin { users = [\"ops\"] }",
          "  }",
          "  keys { pii {}, footer {} }",
          "  tables {",
          "    \"db.people\" {",
          "      footer-key = footer",
          "      writers    = [etl]",
          "      columns { " + MASKED_FOR_ANALYSTS + " }",
          "    }",
          "  }",
          "}",
          "");
  private static final String SSN = "123-45-6789";
  private static final int CATALOG_REFRESH_SECONDS = 2;
  // server reload (1 s) + catalog refresh (2 s) + a query in flight on a busy machine
  private static final Duration BOUND = Duration.ofSeconds(1 + CATALOG_REFRESH_SECONDS + 10);

  private SparkSession bob;

  PolicyRefreshTest() {
    super(POLICY, List.of("etl", "alice", "bob"), List.of("pii", "footer"));
  }

  @BeforeAll
  void setUp() {
    configureProt(spark, "etl", Map.of());
    spark.sql("CREATE NAMESPACE IF NOT EXISTS prot.db");
    spark.sql("CREATE TABLE prot.db.people (id BIGINT, ssn STRING) USING iceberg");
    spark.sql("INSERT INTO prot.db.people VALUES (1, '" + SSN + "')");
    bob = spark.newSession();
    configureProt(
        bob,
        "bob",
        Map.of("protector.policy-refresh-seconds", String.valueOf(CATALOG_REFRESH_SECONDS)));
  }

  private String bobsSsn() {
    return bob.sql("SELECT ssn FROM prot.db.people").first().getString(0);
  }

  private void editServerPolicy(String from, String to) throws IOException {
    Path file = keyServer.policyFile();
    String text = Files.readString(file, StandardCharsets.UTF_8);
    assertThat(text).contains(from);
    keyServer.replacePolicy(text.replace(from, to));
  }

  /** Runs bob's query until it returns {@code expected}; the time it took, or fails at BOUND. */
  private Duration untilBobReads(String expected, long start) {
    long deadline = start + BOUND.toNanos();
    String seen = bobsSsn();
    // each round is a query of bob's running session: the measurement, not a pause
    while (!expected.equals(seen) && System.nanoTime() < deadline) {
      seen = bobsSsn();
    }
    Duration took = Duration.ofNanos(System.nanoTime() - start);
    assertThat(seen).as("bob's read %d ms after the edit", took.toMillis()).isEqualTo(expected);
    return took;
  }

  @Test
  void anEditOfTheServersPolicyReachesARunningSessionWithinTheRefreshInterval() throws IOException {
    assertThat(bobsSsn()).as("analysts read the mask").isEqualTo("*******6789");
    String before = Policy.parse(POLICY, "test").contentDigest();

    long start = System.nanoTime();
    editServerPolicy(MASKED_FOR_ANALYSTS, CLEAR_FOR_ANALYSTS);
    Duration toClear = untilBobReads(SSN, start);

    start = System.nanoTime();
    editServerPolicy(CLEAR_FOR_ANALYSTS, MASKED_FOR_ANALYSTS);
    Duration toMasked = untilBobReads("*******6789", start);
    System.out.printf(
        "policy edits reached bob's running session after %d ms (masked -> clear) and %d ms"
            + " (clear -> masked); bound %d s%n",
        toClear.toMillis(), toMasked.toMillis(), BOUND.toSeconds());

    List<Map<String, Object>> changes =
        keyServer.auditEvents().stream().filter(e -> "policy-change".equals(e.get("op"))).toList();
    assertThat(changes).hasSize(2);
    assertThat(changes.get(0)).containsEntry("previous_digest", before);
    assertThat(changes.get(0).get("digest")).isNotEqualTo(before);
    assertThat(changes.get(1))
        .containsEntry("previous_digest", changes.get(0).get("digest"))
        .containsEntry("digest", before);
  }

  @Test
  void aLocalPolicyMustStateTheServersRules() throws IOException {
    // the same rules laid out otherwise: accepted
    Path same = work.resolve("same-policy.conf");
    Files.writeString(same, "# deployed copy\n" + Policy.parse(POLICY, "x").toHocon());
    SparkSession carol = spark.newSession();
    configureProt(carol, "alice", Map.of("protector.policy", same.toString()));
    assertThat(carol.sql("SELECT ssn FROM prot.db.people").first().getString(0)).isEqualTo(SSN);

    // other rules: the catalog refuses to start, naming the file and both digests
    Path other = work.resolve("other-policy.conf");
    Files.writeString(other, POLICY.replace(MASKED_FOR_ANALYSTS, CLEAR_FOR_ANALYSTS));
    String served = Policy.parse(Files.readString(keyServer.policyFile()), "x").contentDigest();
    String local = Policy.parse(Files.readString(other), "x").contentDigest();
    SparkSession dave = spark.newSession();
    configureProt(dave, "bob", Map.of("protector.policy", other.toString()));
    assertThatThrownBy(() -> dave.sql("SELECT ssn FROM prot.db.people").collect())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("Cannot start catalog 'prot'")
        .hasMessageContaining(other.toString())
        .hasMessageContaining("content digest " + local)
        .hasMessageContaining("content digest " + served);
    // the token functions look for their catalog, and say why this one did not start
    assertThatThrownBy(() -> dave.sql("SELECT protect('x', 'email')").collect())
        .isInstanceOf(ProtectorException.class)
        .hasMessageContaining("no protecting catalog of this session has token domain 'email'")
        .hasMessageContaining("a catalog failed to start: Cannot start catalog 'prot'");
  }
}
