/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.icebergprotector.it.harness.KeyServerStackTestBase;
import io.icebergprotector.kms.KmsSettings;
import io.icebergprotector.kms.remote.RemoteKeyService;
import io.icebergprotector.testing.TestPolicy;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The revocation bound of the security model, measured against the key server with the default
 * key-cache lifetime (30 s): after {@code keys rotate}, a running writer wraps new files under the
 * new version within the lifetime; after {@code keys destroy}, a running reader that has the key's
 * key-encryption key cached stops reading the column within the lifetime. Both sessions keep
 * running throughout; nothing is restarted or cleared.
 */
class RevocationBoundTest extends KeyServerStackTestBase {
  private static final String POLICY =
      TestPolicy.resource(RevocationBoundTest.class, "policies/RevocationBoundTest.conf");

  private static final Duration LIFETIME =
      Duration.ofSeconds(KmsSettings.DEFAULT_KEY_CACHE_SECONDS);
  // a job in flight when the lifetime ends may finish with the keys it started with
  private static final Duration SLACK = Duration.ofSeconds(15);

  private SparkSession alice;

  RevocationBoundTest() {
    super(POLICY, List.of("etl", "alice"), List.of("pii", "fin", "footer"));
  }

  @BeforeAll
  void setUp() {
    configureProt(spark, "etl", Map.of());
    spark.sql("CREATE NAMESPACE IF NOT EXISTS prot.db");
    spark.sql("CREATE TABLE prot.db.people (id BIGINT, ssn STRING, salary BIGINT) USING iceberg");
    spark.sql("INSERT INTO prot.db.people VALUES (1, 'SSN-REV-PEOPLE', 4242)");
    // the writer's table has no column under the key that is destroyed
    spark.sql("CREATE TABLE prot.db.visits (id BIGINT, ssn STRING) USING iceberg");
    alice = spark.newSession();
    configureProt(alice, "alice", Map.of());
  }

  @Test
  void rotationAndDestructionReachRunningSessionsWithinTheKeyCacheLifetime() {
    insert(0);
    assertThat(alice.sql("SELECT salary FROM prot.db.people").first().getLong(0))
        .as("alice reads salary, and now has fin's key-encryption key cached")
        .isEqualTo(4242L);
    assertThat(wrapVersions("pii", 0)).as("etl's first file wraps under pii v1").containsOnly(1);

    int auditBefore = keyServer.auditEvents().size();
    long start;
    try (RemoteKeyService ops = keyServer.client("ops")) {
      start = System.nanoTime();
      assertThat(ops.rotateKey("pii").latestVersion()).isEqualTo(2);
      ops.destroyKey("fin");
    }

    Duration rotated = null;
    Duration destroyed = null;
    int readsServedFromCache = 0;
    int writesUnderOldVersion = 0;
    long deadline = start + LIFETIME.plus(SLACK).plus(SLACK).toNanos();
    for (int round = 1; (rotated == null || destroyed == null) && System.nanoTime() < deadline; ) {
      if (rotated == null) {
        insert(round++);
        if (wrapVersions("pii", auditBefore).contains(2)) {
          rotated = Duration.ofNanos(System.nanoTime() - start);
        } else {
          writesUnderOldVersion++;
        }
      }
      if (destroyed == null) {
        try {
          alice.sql("SELECT sum(salary) FROM prot.db.people").collectAsList();
          readsServedFromCache++;
        } catch (Exception e) { // SparkException is checked, but Scala throws it undeclared
          assertThat(e).hasStackTraceContaining("destroyed").hasStackTraceContaining("fin");
          destroyed = Duration.ofNanos(System.nanoTime() - start);
        }
      }
    }
    System.out.printf(
        "[revocation] key-cache lifetime %d s: new key version in new files after %s (%d writes"
            + " under the old one), destroyed key refused after %s (%d reads served from the"
            + " cache)%n",
        LIFETIME.toSeconds(), rotated, writesUnderOldVersion, destroyed, readsServedFromCache);

    assertThat(rotated).as("rotation reached the running writer").isNotNull();
    assertThat(rotated).isLessThanOrEqualTo(LIFETIME.plus(SLACK));
    assertThat(destroyed).as("destruction reached the running reader").isNotNull();
    assertThat(destroyed).isLessThanOrEqualTo(LIFETIME.plus(SLACK));
    // the audit agrees: no unwrap of fin was allowed after the destroy
    assertThat(keyServer.auditEvents().subList(auditBefore, keyServer.auditEvents().size()))
        .noneMatch(
            e ->
                "fin".equals(e.get("key"))
                    && "unwrap".equals(e.get("op"))
                    && "allow".equals(e.get("decision")));
    // ssn, under the rotated (not destroyed) key, still reads in clear, old and new files alike
    assertThat(alice.sql("SELECT ssn FROM prot.db.visits WHERE ssn IS NULL").count()).isZero();
    assertThat(alice.sql("SELECT ssn FROM prot.db.visits").count())
        .as("every insert committed")
        .isEqualTo(writesUnderOldVersion + 2L);
  }

  private void insert(int id) {
    spark.sql(String.format("INSERT INTO prot.db.visits VALUES (%d, 'SSN-REV-%04d')", id, id));
  }

  /** The versions of {@code key} that etl's wraps used, in the audit from event {@code from}. */
  private List<Integer> wrapVersions(String key, int from) {
    List<Map<String, Object>> events = keyServer.auditEvents();
    return events.subList(from, events.size()).stream()
        .filter(e -> "etl".equals(e.get("principal")))
        .filter(e -> "wrap".equals(e.get("op")) && key.equals(e.get("key")))
        .map(e -> ((Number) e.get("version")).intValue())
        .toList();
  }
}
