/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.icebergprotector.it.harness.KeyServerStackTestBase;
import io.icebergprotector.it.harness.ProtectorServerProcess;
import io.icebergprotector.it.harness.SqlMetrics;
import io.icebergprotector.spark.crypto.ProtectorCrypto;
import io.icebergprotector.testing.TestPolicy;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import org.apache.spark.api.java.function.ForeachPartitionFunction;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Two key server processes on one keystore, and catalogs given both URLs: the first is killed
 * (SIGKILL) while a protected read is running, the read finishes through the replica, and the two
 * audit logs together hold exactly the unwraps the job made.
 */
class KeyServerFailoverTest extends KeyServerStackTestBase {
  private static final String POLICY =
      TestPolicy.resource(KeyServerFailoverTest.class, "policies/KeyServerFailoverTest.conf");
  private static final int FILES = 8;
  private static final int ROWS_PER_FILE = 500;

  // The job's tasks run in this JVM (local mode): they report and wait through these.
  private static final CountDownLatch FIRST_FILE_READ = new CountDownLatch(1);
  private static final CountDownLatch RESUME = new CountDownLatch(1);
  private static final LongAdder ROWS = new LongAdder();
  private static final LongAdder CLEAR = new LongAdder();

  private ProtectorServerProcess replica;
  private SparkSession alice;

  KeyServerFailoverTest() {
    super(POLICY, List.of("etl", "alice"), List.of("pii", "footer"));
  }

  @BeforeAll
  void setUp() throws Exception {
    replica =
        keyServer
            .replica(getClass().getSimpleName() + ".replica", work.resolve("protector-replica"))
            .start()
            .awaitReady();
    Map<String, String> bothServers =
        Map.of("protector.kms.url", keyServer.url() + "," + replica.url());
    configureProt(spark, "etl", bothServers);
    spark.sql("CREATE NAMESPACE IF NOT EXISTS prot.db");
    // one task per file: files are never combined into one split
    spark.sql(
        "CREATE TABLE prot.db.events (id BIGINT, ssn STRING) USING iceberg"
            + " TBLPROPERTIES ('read.split.open-file-cost' = '134217728')");
    spark
        .range(0, (long) FILES * ROWS_PER_FILE, 1, FILES)
        .selectExpr("id", "concat('SSN-FO-', id) AS ssn")
        .writeTo("prot.db.events")
        .append();
    alice = spark.newSession();
    configureProt(alice, "alice", bothServers);
  }

  @AfterAll
  void stopReplica() {
    if (replica != null) {
      replica.close();
    }
  }

  @Test
  void aReadSurvivesTheLossOfAKeyServerAndBothAuditLogsAccountForItsUnwraps() throws Exception {
    assertThat(spark.sql("SELECT count(*) FROM prot.db.events.files").first().getLong(0))
        .as("files, more than the two task slots")
        .isEqualTo(FILES);
    assertThat(alice.table("prot.db.events").rdd().getNumPartitions())
        .as("one task per file")
        .isEqualTo(FILES);
    int primaryBefore = keyServer.auditEvents().size();
    int replicaBefore = replica.auditEvents().size();
    ProtectorCrypto.forgetAllCachedKeys(); // the job starts with cold key caches

    ExecutorService driver = Executors.newSingleThreadExecutor();
    Future<?> job =
        driver.submit(
            () ->
                alice
                    .table("prot.db.events")
                    .foreachPartition(
                        (ForeachPartitionFunction<Row>)
                            rows -> {
                              while (rows.hasNext()) {
                                Row row = rows.next();
                                ROWS.increment();
                                if (row.getString(1).equals("SSN-FO-" + row.getLong(0))) {
                                  CLEAR.increment();
                                }
                              }
                              FIRST_FILE_READ.countDown();
                              // every task holds its slot until the first server is gone
                              assertThat(RESUME.await(120, TimeUnit.SECONDS)).isTrue();
                            }));
    try {
      assertThat(FIRST_FILE_READ.await(120, TimeUnit.SECONDS)).as("a first file was read").isTrue();
      keyServer.kill();
      // as when the key-cache lifetime ends mid-job: the files still to read need the server
      ProtectorCrypto.forgetAllCachedKeys();
      RESUME.countDown();
      job.get(300, TimeUnit.SECONDS);
    } finally {
      RESUME.countDown();
      driver.shutdownNow();
    }

    assertThat(ROWS.sum()).as("every row read once").isEqualTo((long) FILES * ROWS_PER_FILE);
    assertThat(CLEAR.sum()).as("alice reads ssn in clear").isEqualTo(ROWS.sum());

    long primaryUnwraps = unwrapsByAlice(keyServer, primaryBefore);
    long replicaUnwraps = unwrapsByAlice(replica, replicaBefore);
    long jobCalls = SqlMetrics.keyServiceCallsOfLastExecution(alice);
    System.out.printf(
        "[failover] key service calls of the job %d; unwraps audited by the killed server %d, by"
            + " the replica %d%n",
        jobCalls, primaryUnwraps, replicaUnwraps);
    assertThat(primaryUnwraps).as("unwraps before the kill").isPositive();
    assertThat(replicaUnwraps).as("unwraps after the kill, on the replica").isPositive();
    assertThat(primaryUnwraps + replicaUnwraps)
        .as("the two audit logs account for every key service call of the job")
        .isEqualTo(jobCalls);
    assertThat(replica.auditEvents().subList(replicaBefore, replica.auditEvents().size()))
        .noneMatch(e -> !"allow".equals(e.get("decision")));

    // writes go on through the replica too
    spark.sql("INSERT INTO prot.db.events VALUES (-1, 'SSN-FO--1')");
    assertThat(alice.sql("SELECT count(*) FROM prot.db.events WHERE ssn = 'SSN-FO--1'").first())
        .isEqualTo(org.apache.spark.sql.RowFactory.create(1L));
  }

  private static long unwrapsByAlice(ProtectorServerProcess server, int from) {
    List<Map<String, Object>> events = server.auditEvents();
    return events.subList(from, events.size()).stream()
        .filter(e -> "alice".equals(e.get("principal")))
        .filter(e -> "unwrap".equals(e.get("op")) && "allow".equals(e.get("decision")))
        .count();
  }
}
