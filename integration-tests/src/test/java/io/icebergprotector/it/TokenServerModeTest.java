/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.icebergprotector.it.harness.KeyServerStackTestBase;
import io.icebergprotector.testing.TestPolicy;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.streaming.StreamingQuery;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Server token mode ({@code protector.kms.token-mode = server}) against a real key server process:
 * the SQL functions protect and unprotect send their values to the server's encode and decode
 * endpoints and get the tokens local mode computes with the released token key; the server has the
 * last word on who may, with a 403 naming principal and domain, and audits every batch.
 */
class TokenServerModeTest extends KeyServerStackTestBase {
  private static final String POLICY =
      TestPolicy.resource(TokenServerModeTest.class, "policies/TokenServerModeTest.conf");
  private static final int PEOPLE = 2_500;
  private static final String QUERY =
      "SELECT protect('ann@example.com', 'email') AS e, protect('123-45-6789', 'ssn') AS s";

  private SparkSession aliceServer;
  private SparkSession aliceLocal;

  TokenServerModeTest() {
    super(POLICY, List.of("alice", "bob", "etl"), List.of("pii", "footer"));
  }

  @BeforeAll
  void setUp() {
    aliceServer = spark.newSession();
    configureProt(aliceServer, "alice", Map.of("protector.kms.token-mode", "server"));
    aliceLocal = spark.newSession();
    configureProt(aliceLocal, "alice", Map.of("protector.kms.token-mode", "local"));
  }

  private List<Map<String, Object>> tokenEvents(String op, String principal) {
    return keyServer.auditEvents().stream()
        .filter(e -> op.equals(e.get("op")) && principal.equals(e.get("principal")))
        .collect(Collectors.toList());
  }

  @Test
  void serverModeGivesTheTokensOfLocalModeAndTheServerAuditsTheBatches() {
    Row server = aliceServer.sql(QUERY).first();
    Row local = aliceLocal.sql(QUERY).first();
    assertThat(server.getString(0)).isEqualTo(local.getString(0)).isNotEqualTo("ann@example.com");
    assertThat(server.getString(1)).isEqualTo(local.getString(1)).matches("\\d{3}-\\d{2}-\\d{4}");
    assertThat(tokenEvents("token-key", "alice"))
        .as("local mode derived the token keys through the server")
        .isNotEmpty();

    Row clear =
        aliceServer
            .sql(
                "SELECT unprotect('"
                    + server.getString(0)
                    + "', 'email'), unprotect('"
                    + server.getString(1)
                    + "', 'ssn')")
            .first();
    assertThat(clear.getString(0)).isEqualTo("ann@example.com");
    assertThat(clear.getString(1)).isEqualTo("123-45-6789");

    assertThat(tokenEvents("encode", "alice"))
        .anySatisfy(
            e ->
                assertThat(e)
                    .containsEntry("decision", "allow")
                    .containsEntry("key", "pii")
                    .containsEntry("domain", "email")
                    .containsEntry("method", "deterministic")
                    .containsEntry("count", 1L))
        .anySatisfy(e -> assertThat(e).containsEntry("domain", "ssn"));
    assertThat(tokenEvents("decode", "alice"))
        .anySatisfy(
            e -> assertThat(e).containsEntry("domain", "email").containsEntry("decision", "allow"));
    assertThat(keyServer.auditEvents().toString())
        .doesNotContain("ann@example.com")
        .doesNotContain("123-45-6789");
  }

  private static void people(SparkSession session) {
    session
        .range(0, PEOPLE, 1, 1)
        .selectExpr(
            "id",
            "IF(id % 7 = 0, NULL, format_string('user%05d@example.com', id)) AS email",
            "format_string('%03d-%02d-%04d', id % 1000, id % 100, id) AS ssn")
        .createOrReplaceTempView("people");
  }

  private long tokenRequests(String op, String domain) {
    return tokenEvents(op, "alice").stream().filter(e -> domain.equals(e.get("domain"))).count();
  }

  private static Map<Long, List<String>> byId(List<Row> rows) {
    return rows.stream()
        .collect(
            Collectors.toMap(
                r -> r.getLong(0), r -> List.of(String.valueOf(r.get(1)), r.getString(2))));
  }

  @Test
  void aProjectionsValuesGoToTheServerOneBatchPerThousandRows() {
    people(aliceServer);
    people(aliceLocal);
    String tokenize = "SELECT id, protect(email, 'email'), protect(ssn, 'ssn') FROM people";
    long emailsBefore = tokenRequests("encode", "email");
    long ssnsBefore = tokenRequests("encode", "ssn");
    Dataset<Row> serverTokens = aliceServer.sql(tokenize);
    List<Row> server = serverTokens.collectAsList();
    // one partition of 2,500 rows: three batches for each call, not 2,500 requests
    assertThat(tokenRequests("encode", "email") - emailsBefore).isEqualTo(3);
    assertThat(tokenRequests("encode", "ssn") - ssnsBefore).isEqualTo(3);
    Map<Long, List<String>> tokens = byId(server);
    assertThat(tokens).hasSize(PEOPLE).isEqualTo(byId(aliceLocal.sql(tokenize).collectAsList()));
    assertThat(tokens.get(7L).get(0)).as("a null stays null").isEqualTo("null");
    assertThat(tokens.get(1L).get(1)).matches("\\d{3}-\\d{2}-\\d{4}").isNotEqualTo("001-01-0001");

    aliceServer
        .createDataFrame(server, serverTokens.schema())
        .toDF("id", "e", "s")
        .createOrReplaceTempView("tokens");
    long decodesBefore = tokenRequests("decode", "email");
    List<Row> clear =
        aliceServer
            .sql(
                "SELECT t.id, unprotect(t.e, 'email'), unprotect(t.s, 'ssn') = p.ssn"
                    + " FROM (SELECT /*+ REPARTITION(1) */ * FROM tokens) t"
                    + " JOIN people p ON t.id = p.id")
            .collectAsList();
    assertThat(tokenRequests("decode", "email") - decodesBefore).isEqualTo(3);
    assertThat(clear)
        .hasSize(PEOPLE)
        .allSatisfy(r -> assertThat(r.getBoolean(2)).isTrue())
        .anySatisfy(r -> assertThat(r.getLong(0)).isEqualTo(1L))
        .allSatisfy(
            r ->
                assertThat(r.getString(1))
                    .isEqualTo(
                        r.getLong(0) % 7 == 0
                            ? null
                            : String.format("user%05d@example.com", r.getLong(0))));
  }

  @Test
  void aLimitStopsEachBatchAtItsRowsSoNoSkippedValueIsSent() {
    people(aliceServer);
    long before = tokenEvents("encode", "alice").size();
    List<Row> three =
        aliceServer.sql("SELECT id, protect(ssn, 'ssn') FROM people LIMIT 3").collectAsList();
    assertThat(three).hasSize(3);
    List<Map<String, Object>> all = tokenEvents("encode", "alice");
    List<Map<String, Object>> sent = all.subList((int) before, all.size());
    System.out.printf(
        "[it] LIMIT 3 over %d rows in server mode: %d encode request(s) of %s values%n",
        PEOPLE, sent.size(), sent.stream().map(e -> e.get("count")).collect(Collectors.toList()));
    // one partition: one batch of the 3 rows the limit takes, not 1,024
    assertThat(sent).singleElement().satisfies(e -> assertThat(e).containsEntry("count", 3L));
  }

  @Test
  void aStreamIsTokenizedOneBatchPerThousandRowsOfEachMicroBatch(@TempDir Path dir)
      throws Exception {
    Path in = Files.createDirectories(dir.resolve("in"));
    Files.write(
        in.resolve("part-0.csv"),
        java.util.stream.IntStream.range(0, 1_500)
            .mapToObj(i -> i + ",user" + i + "@example.com")
            .collect(Collectors.toList()));
    long before = tokenRequests("encode", "email");
    StreamingQuery query =
        aliceServer
            .readStream()
            .schema("id LONG, email STRING")
            .csv(in.toString())
            .selectExpr("id", "protect(email, 'email') AS token")
            .writeStream()
            .format("memory")
            .queryName("tokenized_stream")
            .option("checkpointLocation", dir.resolve("checkpoint").toString())
            .start();
    try {
      query.processAllAvailable();
    } finally {
      query.stop();
    }
    // one micro-batch of one file: two batches (1,024 + 476 values)
    assertThat(tokenRequests("encode", "email") - before).isEqualTo(2);
    List<Row> tokens = aliceServer.sql("SELECT id, token FROM tokenized_stream").collectAsList();
    assertThat(tokens).hasSize(1_500);
    Row one = tokens.stream().filter(r -> r.getLong(0) == 42L).findFirst().orElseThrow();
    assertThat(one.getString(1))
        .isEqualTo(
            aliceLocal.sql("SELECT protect('user42@example.com', 'email')").first().getString(0));
  }

  @Test
  void joinKeysAndAggregatesOfCallsGoToTheServerInBatches() {
    people(aliceServer);
    people(aliceLocal);
    Dataset<Row> local = aliceLocal.sql("SELECT id, protect(email, 'email') AS e FROM people");
    aliceServer
        .createDataFrame(local.collectAsList(), local.schema())
        .createOrReplaceTempView("table_tokens");
    long emails = tokenRequests("encode", "email");
    long matched =
        aliceServer
            .sql(
                "SELECT count(*) FROM people p JOIN table_tokens t ON protect(p.email, 'email') = t.e")
            .first()
            .getLong(0);
    assertThat(matched).isEqualTo(PEOPLE - (PEOPLE + 6) / 7);
    assertThat(tokenRequests("encode", "email") - emails).isEqualTo(3);

    long ssns = tokenRequests("encode", "ssn");
    assertThat(
            aliceServer
                .sql("SELECT count(DISTINCT protect(ssn, 'ssn')) FROM people")
                .first()
                .getLong(0))
        .isEqualTo(PEOPLE);
    assertThat(tokenRequests("encode", "ssn") - ssns).isEqualTo(3);
  }

  @Test
  void aCallInABranchIsEvaluatedOnlyForTheRowsThatTakeIt() {
    people(aliceServer);
    long before = tokenRequests("encode", "email");
    List<Row> rows =
        aliceServer
            .sql("SELECT id, CASE WHEN id IN (1, 2) THEN protect(email, 'email') END FROM people")
            .collectAsList();
    assertThat(tokenRequests("encode", "email") - before).isEqualTo(2);
    assertThat(rows).filteredOn(r -> !r.isNullAt(1)).hasSize(2);
  }

  @Test
  void aPrincipalTheServerDeniesGetsAnErrorNamingPrincipalAndDomain() {
    // bob's catalog holds a policy that made analysts clear readers; the server withdrew it
    assertThat(POLICY).contains("clear = [admin], token = [analyst]");
    servePolicy(POLICY.replace("clear = [admin], token = [analyst]", "clear = [admin, analyst]"));
    SparkSession bob = spark.newSession();
    configureStaleProt(bob, "bob", Map.of("protector.kms.token-mode", "server"));
    try {
      servePolicy(POLICY);
      assertThatThrownBy(() -> bob.sql("SELECT protect('x@example.com', 'email')").collect())
          .hasStackTraceContaining(
              "principal 'bob' is not allowed to encode values of token domain 'email' with key"
                  + " 'pii'");
      assertThat(tokenEvents("encode", "bob"))
          .isNotEmpty()
          .allSatisfy(
              e ->
                  assertThat(e).containsEntry("decision", "deny").containsEntry("domain", "email"));
    } finally {
      servePolicy(POLICY);
    }
  }
}
