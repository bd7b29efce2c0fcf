/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.icebergprotector.it.harness.BucketScan;
import io.icebergprotector.it.harness.BucketScan.Canary;
import io.icebergprotector.it.harness.BucketScan.Kind;
import io.icebergprotector.it.harness.KeyServerStackTestBase;
import io.icebergprotector.spark.core.ProtectorException;
import io.icebergprotector.testing.TestPolicy;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Tokenized tables in server token mode against a real key server process: the writer's batches go
 * to the server's encode endpoint, the readers' to decode (one request per tokenized column and
 * batch, naming the column), and no token key ever leaves the server. The tokens are those of local
 * mode; a masked reader gets the mask computed by the server (and NULL in local mode); token
 * readers and denied principals never call the server; the files never hold a clear canary.
 */
class TokenServerModeTablesTest extends KeyServerStackTestBase {
  private static final String SSN_METHOD = "fpe(alphabet = digits, keep = \"-\")";
  private static final String POLICY =
      policy(List.of("alice", "lena"), List.of("bob", "tina"), List.of("carol", "cora"));

  /** The policy with these users in the roles admin, analyst and support. */
  private static String policy(List<String> admins, List<String> analysts, List<String> support) {
    return TestPolicy.builder()
        .role("admin", admins.toArray(String[]::new))
        .role("analyst", analysts.toArray(String[]::new))
        .role("support", support.toArray(String[]::new))
        .role("etl", "etl", "loader", "exporter")
        .role("keyadmin", "ops")
        .keys("pii", "footer")
        .table(
            "db.customers",
            t ->
                t.footerKey("footer")
                    .writers("etl")
                    .column(
                        "email",
                        c ->
                            c.key("pii")
                                .method("deterministic")
                                .domain("email")
                                .clear("admin")
                                .token("analyst")
                                .masked("support", "hash")
                                .onDenied("fail"))
                    .column(
                        "ssn",
                        c ->
                            c.key("pii")
                                .method(SSN_METHOD)
                                .domain("ssn")
                                .clear("admin")
                                .token("analyst")
                                .masked("support", "partial(keep_last=4)")))
        .table(
            "db.bulk",
            t ->
                t.footerKey("footer")
                    .writers("etl")
                    .column(
                        "ssn", c -> c.key("pii").method(SSN_METHOD).domain("ssn").clear("admin")))
        .table(
            "db.orders",
            t ->
                t.footerKey("footer")
                    .writers("etl")
                    .column(
                        "ssn",
                        c ->
                            c.key("pii")
                                .method(SSN_METHOD)
                                .domain("ssn")
                                .clear("admin")
                                .token("analyst")))
        .render();
  }

  private static final String[][] CUSTOMERS = {
    {"1", "123-45-6789", "canary.alpha@example.com"},
    {"2", "987-65-4321", "canary.beta@example.com"},
    {"3", "555-12-3456", "canary.gamma@example.com"},
  };
  private static final Map<String, String> SERVER = Map.of("protector.kms.token-mode", "server");
  private static final Map<String, String> LOCAL = Map.of("protector.kms.token-mode", "local");

  private final Map<String, SparkSession> sessions = new HashMap<>();

  TokenServerModeTablesTest() {
    super(
        POLICY,
        List.of(
            "alice",
            "lena",
            "bob",
            "tina",
            "carol",
            "cora",
            "etl",
            "loader",
            "exporter",
            "mallory"),
        List.of("pii", "footer"));
  }

  @BeforeAll
  void writeTablesInServerMode() {
    SparkSession etl = session("etl", SERVER);
    etl.sql("CREATE NAMESPACE IF NOT EXISTS prot.db");
    String uncompressed = " TBLPROPERTIES ('write.parquet.compression-codec'='uncompressed')";
    etl.sql(
        "CREATE TABLE prot.db.customers (id BIGINT, ssn STRING, email STRING) USING iceberg"
            + uncompressed);
    etl.sql(
        "CREATE TABLE prot.db.orders (oid BIGINT, ssn STRING, amount BIGINT) USING iceberg"
            + uncompressed);
    List<String> rows = new ArrayList<>();
    for (String[] r : CUSTOMERS) {
      rows.add(String.format("(%s, '%s', '%s')", r[0], r[1], r[2]));
    }
    // one task, one file per table: one encode request per tokenized column
    etl.sql(
        "INSERT INTO prot.db.customers SELECT /*+ COALESCE(1) */ * FROM VALUES "
            + String.join(", ", rows)
            + " AS t(id, ssn, email)");
    etl.sql(
        "INSERT INTO prot.db.orders SELECT /*+ COALESCE(1) */ * FROM VALUES (10, '987-65-4321',"
            + " 42), (11, '555-12-3456', 7), (12, '000-00-0000', 1) AS t(oid, ssn, amount)");
  }

  private SparkSession session(String principal, Map<String, String> mode) {
    return sessions.computeIfAbsent(
        principal + mode,
        k -> {
          SparkSession s = spark.newSession();
          configureProt(s, principal, mode);
          return s;
        });
  }

  private SparkSession server(String principal) {
    return session(principal, SERVER);
  }

  private static List<Row> read(SparkSession session, String sql, boolean columnar) {
    session.conf().set("spark.sql.iceberg.vectorization.enabled", String.valueOf(columnar));
    try {
      // sorted here: an ORDER BY would read the table twice (its range partitioner samples it)
      List<Row> rows = new ArrayList<>(session.sql(sql).collectAsList());
      rows.sort(java.util.Comparator.comparingLong(r -> r.getLong(0)));
      return rows;
    } finally {
      session.conf().unset("spark.sql.iceberg.vectorization.enabled");
    }
  }

  private List<Map<String, Object>> events(String op, String principal) {
    return keyServer.auditEvents().stream()
        .filter(e -> op.equals(e.get("op")) && principal.equals(e.get("principal")))
        .collect(Collectors.toList());
  }

  private static long count(List<Map<String, Object>> events) {
    return events.stream().mapToLong(e -> ((Number) e.get("count")).longValue()).sum();
  }

  private static String customers() {
    return "SELECT id, ssn, email FROM prot.db.customers";
  }

  @ParameterizedTest(name = "columnar {0}")
  @ValueSource(booleans = {true, false})
  void eachRoleReadsItsViewAndTheServerDecodesInBatches(boolean columnar) {
    int before = events("decode", "alice").size();
    List<Row> clear = read(server("alice"), customers(), columnar);
    assertThat(clear).hasSize(CUSTOMERS.length);
    for (int i = 0; i < CUSTOMERS.length; i++) {
      assertThat(clear.get(i).getString(1)).isEqualTo(CUSTOMERS[i][1]);
      assertThat(clear.get(i).getString(2)).isEqualTo(CUSTOMERS[i][2]);
    }
    List<Map<String, Object>> decodes = events("decode", "alice");
    List<Map<String, Object>> read = decodes.subList(before, decodes.size());
    // one request per tokenized column and batch (one file of 3 rows: one batch)
    System.out.printf(
        "[it] server-mode read (columnar %s) of %d rows: %d decode requests%n",
        columnar, CUSTOMERS.length, read.size());
    assertThat(read)
        .allSatisfy(
            e -> assertThat(e).containsEntry("decision", "allow").containsEntry("key", "pii"))
        .hasSize(2);
    assertThat(read)
        .anySatisfy(
            e ->
                assertThat(e)
                    .containsEntry("domain", "email")
                    .containsEntry("column", "db.customers.email")
                    .containsEntry("count", 3L))
        .anySatisfy(
            e ->
                assertThat(e)
                    .containsEntry("domain", "ssn")
                    .containsEntry("column", "db.customers.ssn")
                    .containsEntry("count", 3L))
        .noneSatisfy(e -> assertThat(e).containsKey("view"));

    // the token role reads the stored tokens: those local mode computes
    List<Row> tokens = read(server("bob"), customers(), columnar);
    SparkSession lena = session("lena", LOCAL);
    for (int i = 0; i < CUSTOMERS.length; i++) {
      Row local =
          lena.sql(
                  String.format(
                      "SELECT protect('%s', 'ssn'), protect('%s', 'email')",
                      CUSTOMERS[i][1], CUSTOMERS[i][2]))
              .first();
      assertThat(tokens.get(i).getString(1))
          .isEqualTo(local.getString(0))
          .isNotEqualTo(CUSTOMERS[i][1])
          .matches("\\d{3}-\\d{2}-\\d{4}");
      assertThat(tokens.get(i).getString(2))
          .isEqualTo(local.getString(1))
          .isNotEqualTo(CUSTOMERS[i][2]);
    }

    // the masked role gets the server's mask; in local token mode it gets no token key (the key
    // detokenizes the domain), so its tokenized columns read NULL there
    List<Row> masked = read(server("carol"), customers(), columnar);
    List<Row> maskedLocally = read(session("cora", LOCAL), customers(), columnar);
    for (int i = 0; i < CUSTOMERS.length; i++) {
      String ssn = CUSTOMERS[i][1];
      assertThat(masked.get(i).getString(1)).isEqualTo("*******" + ssn.substring(7));
      assertThat(masked.get(i).getString(2)).matches("[0-9a-f]{64}");
      assertThat(maskedLocally.get(i).isNullAt(1)).as("ssn of cora, local mode").isTrue();
      assertThat(maskedLocally.get(i).isNullAt(2)).as("email of cora, local mode").isTrue();
    }
    assertThat(events("token-key", "cora")).as("local mode asked for no token key").isEmpty();
    assertThat(events("decode", "carol"))
        .isNotEmpty()
        .allSatisfy(
            e ->
                assertThat(e)
                    .containsEntry("decision", "allow")
                    .containsEntry("view", "masked")
                    .containsKey("mask"));

    // the denied principal: on-denied, and no token request at all
    List<Row> denied = read(server("mallory"), "SELECT id, ssn FROM prot.db.customers", columnar);
    assertThat(denied)
        .hasSize(CUSTOMERS.length)
        .allSatisfy(r -> assertThat(r.isNullAt(1)).isTrue());
    assertThatThrownBy(
            () -> read(server("mallory"), "SELECT email FROM prot.db.customers", columnar))
        .isInstanceOf(ProtectorException.class)
        .hasMessageContaining("mallory")
        .hasMessageContaining("email");
    for (String principal : List.of("bob", "mallory")) {
      for (String op : List.of("encode", "decode", "token-key")) {
        assertThat(events(op, principal)).as("%s requests of %s", op, principal).isEmpty();
      }
    }
  }

  @Test
  void theWriterEncodedInBatchesAndNoTokenKeyLeftTheServerInServerMode() {
    List<Map<String, Object>> encodes = events("encode", "etl");
    System.out.printf(
        "[it] server-mode writes of 6 rows (2 tables): %d encode requests%n", encodes.size());
    assertThat(encodes).allSatisfy(e -> assertThat(e).containsEntry("decision", "allow"));
    assertThat(count(filter(encodes, "email"))).isEqualTo(3);
    assertThat(count(filter(encodes, "ssn"))).isEqualTo(6);
    // one request per tokenized column and file: 1,024 rows per request at most
    assertThat(encodes).hasSize(3);
    for (String principal : List.of("etl", "alice", "bob", "carol", "mallory")) {
      assertThat(events("token-key", principal))
          .as("token keys released to %s, who uses server mode", principal)
          .isEmpty();
    }
    assertThat(keyServer.auditEvents().toString())
        .doesNotContain("canary.")
        .doesNotContain("123-45-6789");
  }

  private static List<Map<String, Object>> filter(List<Map<String, Object>> events, String domain) {
    return events.stream().filter(e -> domain.equals(e.get("domain"))).collect(Collectors.toList());
  }

  @Test
  void theTokenRoleJoinsTwoTablesOnTheSharedDomainWithoutTheServer() {
    List<Row> joined =
        server("bob")
            .sql(
                "SELECT c.id, o.amount FROM prot.db.customers c JOIN prot.db.orders o"
                    + " ON c.ssn = o.ssn ORDER BY c.id")
            .collectAsList();
    assertThat(joined.stream().map(r -> r.getLong(0) + ":" + r.getLong(1)))
        .containsExactly("2:42", "3:7");
    assertThat(events("decode", "bob")).isEmpty();
    assertThatThrownBy(() -> server("bob").sql("SELECT unprotect('804-19-3327', 'ssn')").collect())
        .isInstanceOf(ProtectorException.class)
        .hasMessageContaining("bob")
        .hasMessageContaining("'ssn'");
  }

  @Test
  void aCsvTheServerTokenizedWithProtectJoinsTheTableTokens(@TempDir Path dir) throws IOException {
    Path clear = dir.resolve("clear.csv");
    Files.write(
        clear,
        List.of(
            "ssn,email,amount",
            "987-65-4321,canary.beta@example.com,42",
            "555-12-3456,someone@example.com,7",
            "000-00-0000,canary.alpha@example.com,1"));
    Path export = dir.resolve("export");
    long encodes = events("encode", "exporter").size();
    // a writer tokenizes the export through the key server: one encode per call and batch...
    server("exporter")
        .read()
        .option("header", "true")
        .csv(clear.toString())
        .coalesce(1)
        .selectExpr("protect(ssn, 'ssn') AS ssn", "protect(email, 'email') AS email", "amount")
        .write()
        .option("header", "true")
        .csv(export.toString());
    assertThat(events("encode", "exporter").size() - encodes).isEqualTo(2);
    try (java.util.stream.Stream<Path> files = Files.walk(export)) {
      String written =
          files
              .filter(Files::isRegularFile)
              .map(
                  f -> {
                    try {
                      return new String(
                          Files.readAllBytes(f), java.nio.charset.StandardCharsets.ISO_8859_1);
                    } catch (IOException e) {
                      throw new java.io.UncheckedIOException(e);
                    }
                  })
              .collect(Collectors.joining());
      assertThat(written)
          .contains("42")
          .doesNotContain("987-65-4321")
          .doesNotContain("canary.beta@example.com");
    }
    // ...and a token reader joins it with the table's tokens, without the server
    SparkSession bob = server("bob");
    bob.read().option("header", "true").csv(export.toString()).createOrReplaceTempView("export");
    Map<String, List<String>> expected =
        Map.of("ssn", List.of("2:42", "3:7"), "email", List.of("1:1", "2:42"));
    expected.forEach(
        (column, pairs) ->
            assertThat(
                    read(
                            bob,
                            "SELECT c.id, e.amount FROM prot.db.customers c JOIN export e ON c."
                                + column
                                + " = e."
                                + column,
                            column.equals("ssn"))
                        .stream()
                        .map(r -> r.getLong(0) + ":" + r.getString(1)))
                .as("joined on " + column)
                .containsExactlyElementsOf(pairs));
    assertThat(events("decode", "bob")).isEmpty();
  }

  @Test
  void theServerHasTheLastWordOnEachColumnsView() {
    // carol's (masked) and tina's (token) catalogs hold a policy that made them clear readers;
    // the server withdrew it
    servePolicy(policy(List.of("alice", "lena", "carol", "tina"), List.of("bob"), List.of("cora")));
    Map<String, String> options = Map.of("protector.kms.token-mode", "server");
    SparkSession carol = spark.newSession();
    configureStaleProt(carol, "carol", options);
    SparkSession tina = spark.newSession();
    configureStaleProt(tina, "tina", options);
    servePolicy(POLICY);
    // the server masks carol's values; her reader refuses a view its policy does not expect
    assertThatThrownBy(() -> carol.sql("SELECT ssn FROM prot.db.customers").collect())
        .hasStackTraceContaining("Cannot read column 'ssn' of table db.customers for principal")
        .hasStackTraceContaining("values masked with partial");
    // tina holds the column key (token roles read PME-encrypted tokens) but no decode grant
    assertThatThrownBy(() -> tina.sql("SELECT ssn FROM prot.db.customers").collect())
        .hasStackTraceContaining("Cannot detokenize column 'ssn' of table db.customers")
        .hasStackTraceContaining("token domain 'ssn'")
        .hasStackTraceContaining("tina");
    assertThat(events("decode", "tina"))
        .isNotEmpty()
        .allSatisfy(
            e ->
                assertThat(e)
                    .containsEntry("decision", "deny")
                    .containsEntry("column", "db.customers.ssn"));
  }

  @Test
  void requestsFollowBatchesNotRows() {
    int rows = 2_500;
    SparkSession loader = server("loader");
    loader.sql(
        "CREATE TABLE prot.db.bulk (id BIGINT, ssn STRING) USING iceberg"
            + " TBLPROPERTIES ('write.parquet.compression-codec'='uncompressed')");
    loader.sql(
        "INSERT INTO prot.db.bulk SELECT /*+ COALESCE(1) */ id,"
            + " format_string('%03d-%02d-%04d', id % 1000, id % 100, id) FROM range("
            + rows
            + ")");
    List<Map<String, Object>> encodes = events("encode", "loader");
    assertThat(encodes.stream().map(e -> e.get("count")))
        .as("one file: batches of 1,024 rows")
        .containsExactly(1024L, 1024L, 452L);

    Map<Boolean, List<Object>> decodes = new HashMap<>();
    for (boolean columnar : new boolean[] {true, false}) {
      int before = events("decode", "alice").size();
      List<Row> read = read(server("alice"), "SELECT id, ssn FROM prot.db.bulk", columnar);
      assertThat(read).hasSize(rows);
      assertThat(read.get(7).getString(1)).isEqualTo("007-07-0007");
      List<Map<String, Object>> all = events("decode", "alice");
      decodes.put(
          columnar,
          all.subList(before, all.size()).stream()
              .map(e -> e.get("count"))
              .collect(Collectors.toList()));
    }
    System.out.printf(
        "[it] %d rows, 1 tokenized column, server mode: %d encode requests; decode requests:"
            + " columnar %s, rows %s (values per request)%n",
        rows, encodes.size(), decodes.get(true), decodes.get(false));
    // the columnar reader: one request per vectorized batch (Iceberg's 5,000 rows by default)
    assertThat(decodes.get(true)).containsExactly((long) rows);
    // the row reader: one request per 1,024 rows read ahead
    assertThat(decodes.get(false)).containsExactly(1024L, 1024L, 452L);
    assertThat(events("token-key", "loader")).isEmpty();
  }

  @Test
  void noFileHoldsAClearCanary() {
    List<Canary> canaries = new ArrayList<>();
    for (String[] r : CUSTOMERS) {
      canaries.add(Canary.text(r[1]));
      canaries.add(Canary.text(r[2]));
    }
    BucketScan scan = BucketScan.of(store);
    assertThat(scan.keys("warehouse/db/customers/", Kind.DATA)).isNotEmpty();
    assertThat(scan.find(canaries)).as("clear values of tokenized columns at rest").isEmpty();
  }
}
