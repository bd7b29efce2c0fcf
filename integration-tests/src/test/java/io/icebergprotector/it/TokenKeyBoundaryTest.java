/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.icebergprotector.it.harness.KeyServerStackTestBase;
import io.icebergprotector.kms.KeyService;
import io.icebergprotector.kms.wire.JsonCodec;
import io.icebergprotector.spark.core.ProtectorException;
import io.icebergprotector.testing.TestPolicy;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Function;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Security round three against a key server process (issue 30 items 1 to 3): a token key goes only
 * to clear readers of its domain, the key of the server's hash masks never leaves it, and {@code
 * protect}/{@code unprotect} run with the keys of the session that runs them. The tables of "Who
 * holds which key" are read from that page (docs/security/keys.md) and each cell is checked against
 * the server (the first table, with direct API calls as each role) and through Spark (the second).
 */
class TokenKeyBoundaryTest extends KeyServerStackTestBase {
  private static final String PIN_METHOD = "fpe(alphabet = digits)";
  private static final String POLICY =
      TestPolicy.builder()
          .role("admin", "alice", "lena")
          .role("analyst", "bob")
          .role("support", "carol")
          .role("etl", "etl")
          .role("ingest", "dan")
          .role("keyadmin", "ops")
          .keys("pii", "footer")
          .table(
              "db.accounts",
              t ->
                  t.footerKey("footer")
                      .writers("etl", "admin")
                      .column(
                          "pin",
                          c ->
                              c.key("pii")
                                  .method(PIN_METHOD)
                                  .domain("pin")
                                  .clear("admin")
                                  .token("analyst", "ingest")
                                  .masked("support", "hash"))
                      .column("name", c -> c.key("pii").clear("admin").masked("support", "hash")))
          .table(
              "db.orders",
              t ->
                  t.footerKey("footer")
                      .writers("ingest")
                      .column(
                          "pin",
                          c ->
                              c.key("pii")
                                  .method(PIN_METHOD)
                                  .domain("pin")
                                  .clear("admin")
                                  .token("ingest")))
          .render();
  private static final String PIN = "042424";
  private static final String NAME = "canary-name-alpha";
  private static final Map<String, String> LOCAL = Map.of("protector.kms.token-mode", "local");
  private static final Map<String, String> SERVER = Map.of("protector.kms.token-mode", "server");

  /** The row labels of the page's tables, and the principal holding each role here. */
  private static final Map<String, String> ROLES =
      Map.of(
          "writer without clear access", "etl",
          "token", "bob",
          "masked", "carol",
          "clear", "alice",
          "none", "mallory");

  private final Map<String, SparkSession> sessions = new HashMap<>();
  private HttpClient http;
  private String storedToken;

  TokenKeyBoundaryTest() {
    super(
        POLICY,
        List.of("alice", "lena", "bob", "carol", "etl", "dan", "mallory"),
        List.of("pii", "footer"));
  }

  @BeforeAll
  void writeTheTable() {
    http = keyServer.httpClient();
    SparkSession etl = session("etl", SERVER);
    etl.sql("CREATE NAMESPACE IF NOT EXISTS prot.db");
    etl.sql("CREATE TABLE prot.db.accounts (id BIGINT, pin STRING, name STRING) USING iceberg");
    etl.sql("INSERT INTO prot.db.accounts VALUES (1, '" + PIN + "', '" + NAME + "')");
    session("dan", SERVER)
        .sql("CREATE TABLE prot.db.orders (oid BIGINT, pin STRING) USING iceberg");
    storedToken =
        session("alice", LOCAL).sql("SELECT protect('" + PIN + "', 'pin')").first().getString(0);
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

  private HttpResponse<String> post(String principal, String path, Map<String, Object> body) {
    HttpRequest request =
        HttpRequest.newBuilder(URI.create(keyServer.url() + path))
            .timeout(Duration.ofSeconds(10))
            .header("X-Vault-Token", keyServer.token(principal))
            .POST(HttpRequest.BodyPublishers.ofString(JsonCodec.write(body)))
            .build();
    try {
      return http.send(request, HttpResponse.BodyHandlers.ofString());
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  private static String base64(String text) {
    return Base64.getEncoder().encodeToString(text.getBytes(StandardCharsets.UTF_8));
  }

  private Map<String, Object> batch(String value, boolean namesColumn) {
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("domain", "pin");
    body.put("method", PIN_METHOD);
    body.put("batch_input", List.of(Map.of("value", value)));
    if (namesColumn) {
      body.put("table", "db.accounts");
      body.put("column", "pin");
    }
    return body;
  }

  /** Each request of the page's first table, as {@code principal}: whether the server grants it. */
  private Map<String, Boolean> grants(String principal, String ciphertext) {
    Map<String, Function<String, HttpResponse<String>>> requests = new LinkedHashMap<>();
    requests.put(
        "column key (unwrap)",
        p -> post(p, "/v1/transit/decrypt/pii", Map.of("ciphertext", ciphertext)));
    requests.put(
        "token key",
        p -> post(p, "/v1/protector/token-key/pii", Map.of("domain", "pin", "method", "fpe")));
    requests.put("encode", p -> post(p, "/v1/protector/encode/pii", batch(PIN, false)));
    requests.put("decode", p -> post(p, "/v1/protector/decode/pii", batch(storedToken, false)));
    requests.put(
        "decode naming its column",
        p -> post(p, "/v1/protector/decode/pii", batch(storedToken, true)));
    requests.put(
        "hash-mask key of PME columns",
        p ->
            post(p, "/v1/transit/hmac/pii", Map.of("input", base64(KeyService.HASH_MASK_CONTEXT))));
    requests.put(
        "hash-mask key of tokenized columns",
        p ->
            post(
                p,
                "/v1/transit/hmac/pii",
                Map.of("input", base64(KeyService.TOKEN_HASH_MASK_CONTEXT))));
    Map<String, Boolean> out = new LinkedHashMap<>();
    requests.forEach(
        (what, request) -> {
          HttpResponse<String> response = request.apply(principal);
          assertThat(response.statusCode()).as(principal + ": " + what).isIn(200, 403);
          out.put(what, response.statusCode() == 200);
        });
    return out;
  }

  /**
   * The rows of the table of docs/security/keys.md between {@code <!-- name -->} markers: header to
   * cells.
   */
  private static List<Map<String, String>> readmeTable(String name) throws IOException {
    String readme =
        Files.readString(Path.of("..", "docs", "security", "keys.md"), StandardCharsets.UTF_8);
    int start = readme.indexOf("<!-- " + name + " -->");
    int end = readme.indexOf("<!-- /" + name + " -->");
    assertThat(start).as("table " + name + " of docs/security/keys.md").isNotNegative();
    List<String> lines =
        readme.substring(start, end).lines().filter(l -> l.startsWith("|")).toList();
    List<String> header = cells(lines.get(0));
    List<Map<String, String>> rows = new ArrayList<>();
    for (String line : lines.subList(2, lines.size())) {
      List<String> cells = cells(line);
      Map<String, String> row = new LinkedHashMap<>();
      for (int i = 0; i < header.size(); i++) {
        row.put(header.get(i), cells.get(i));
      }
      rows.add(row);
    }
    return rows;
  }

  private static List<String> cells(String line) {
    String inner = line.substring(1, line.length() - 1);
    List<String> out = new ArrayList<>();
    for (String cell : inner.split("\\|")) {
      out.add(cell.strip());
    }
    return out;
  }

  @Test
  void everyCellOfTheReadmeKeyTableIsWhatTheKeyServerGrants() throws IOException {
    String ciphertext =
        (String)
            JsonCodec.object(
                    JsonCodec.parseObject(
                        post(
                                "etl",
                                "/v1/transit/encrypt/pii",
                                Map.of("plaintext", base64("0123456789abcdef")))
                            .body()),
                    "data")
                .get("ciphertext");
    List<Map<String, String>> table = readmeTable("key-release-table");
    assertThat(table)
        .extracting(r -> r.get("role"))
        .containsExactlyInAnyOrderElementsOf(ROLES.keySet());
    for (Map<String, String> row : table) {
      String principal = ROLES.get(row.get("role"));
      Map<String, Boolean> granted = grants(principal, ciphertext);
      granted.forEach(
          (what, allowed) ->
              assertThat(row.get(what).toLowerCase(Locale.ROOT))
                  .as(
                      "docs/security/keys.md cell '%s' of role '%s' (%s)",
                      what, row.get("role"), principal)
                  .startsWith(allowed ? "yes" : "no"));
    }
  }

  @Test
  void everyCellOfTheReadmeViewTableIsWhatSparkDoes() throws IOException {
    long id = 100;
    for (Map<String, String> row : readmeTable("token-view-table")) {
      String principal = ROLES.get(row.get("role"));
      for (Map.Entry<String, Map<String, String>> mode :
          Map.of("local", LOCAL, "server", SERVER).entrySet()) {
        SparkSession s = session(principal, mode.getValue());
        String reads =
            row.get("reads `pin`, " + mode.getKey() + " token mode").toLowerCase(Locale.ROOT);
        Row read = s.sql("SELECT pin FROM prot.db.accounts WHERE id = 1").first();
        String seen =
            read.isNullAt(0)
                ? "null"
                : read.getString(0).equals(PIN)
                    ? "clear values"
                    : read.getString(0).equals(storedToken)
                        ? "stored tokens"
                        : read.getString(0).matches("[0-9a-f]{64}") ? "the server's mask" : "?";
        assertThat(reads).as("%s reads in %s mode", principal, mode.getKey()).startsWith(seen);

        String writes =
            row.get("writes, " + mode.getKey() + " token mode").toLowerCase(Locale.ROOT);
        String insert = "INSERT INTO prot.db.accounts VALUES (" + id++ + ", '123456', 'n')";
        String outcome;
        try {
          s.sql(insert);
          outcome = "yes";
        } catch (ProtectorException e) {
          outcome =
              e.getMessage().contains("a token key goes only to principals")
                  ? "refused"
                  : e.getMessage().contains("may not write") ? "not a writer" : e.getMessage();
        }
        assertThat(writes).as("%s writes in %s mode", principal, mode.getKey()).startsWith(outcome);
      }
    }
    assertThat(keyServer.auditEvents())
        .filteredOn(e -> "token-key".equals(e.get("op")) && "allow".equals(e.get("decision")))
        .extracting(e -> e.get("principal"))
        .as("token keys released: to the clear readers only")
        .isSubsetOf("alice", "lena")
        .contains("alice");
  }

  @Test
  void aWriterOrATokenRoleThatWritesAnotherTableOfTheDomainCannotDetokenize() {
    // the attack: fetch the token key, read the stored token, run FF1 backwards
    for (String principal : List.of("etl", "bob", "dan")) {
      HttpResponse<String> refused =
          post(principal, "/v1/protector/token-key/pii", Map.of("domain", "pin", "method", "fpe"));
      assertThat(refused.statusCode()).isEqualTo(403);
      assertThat(refused.body()).contains("permission denied").contains(principal);
    }
    // dan (a token role on db.accounts) writes db.orders, a column of the same domain, through
    // the server and without the key
    session("dan", SERVER).sql("INSERT INTO prot.db.orders VALUES (1, '" + PIN + "')");
    assertThat(session("dan", SERVER).sql("SELECT pin FROM prot.db.orders").first().getString(0))
        .as("dan's token role reads the tokens")
        .isEqualTo(storedToken);
    assertThatThrownBy(
            () -> session("dan", LOCAL).sql("INSERT INTO prot.db.orders VALUES (2, '1')"))
        .isInstanceOf(ProtectorException.class)
        .hasMessageContaining("Cannot write to protected table db.orders")
        .hasMessageContaining("principal dan")
        .hasMessageContaining("token key of domain 'pin'")
        .hasMessageContaining("protector.kms.token-mode = server");
    assertThat(keyServer.auditEvents())
        .filteredOn(e -> "token-key".equals(e.get("op")) && "dan".equals(e.get("principal")))
        .allSatisfy(e -> assertThat(e).containsEntry("decision", "deny"));
  }

  @Test
  void theMaskedAnalystCannotReverseHashMasksOfSixDigitPins() throws Exception {
    Row masked =
        session("carol", SERVER).sql("SELECT pin, name FROM prot.db.accounts WHERE id = 1").first();
    String pinMask = masked.getString(0);
    assertThat(pinMask).matches("[0-9a-f]{64}");
    // every hash-mask key carol can get from the server: the one of the PME column she masks
    List<byte[]> keys = new ArrayList<>();
    for (String context :
        List.of(KeyService.HASH_MASK_CONTEXT, KeyService.TOKEN_HASH_MASK_CONTEXT)) {
      HttpResponse<String> response =
          post("carol", "/v1/transit/hmac/pii", Map.of("input", base64(context)));
      if (response.statusCode() == 200) {
        String hmac =
            (String) JsonCodec.object(JsonCodec.parseObject(response.body()), "data").get("hmac");
        keys.add(Base64.getDecoder().decode(hmac.substring("vault:v1:".length())));
      } else {
        assertThat(response.statusCode()).as(context).isEqualTo(403);
      }
    }
    assertThat(keys).as("only the PME columns' hash-mask key").hasSize(1);
    // with it she recovers her own PME column's values (which she can decrypt anyway) ...
    Mac mac = Mac.getInstance("HmacSHA256");
    mac.init(new SecretKeySpec(keys.get(0), "HmacSHA256"));
    assertThat(HexFormat.of().formatHex(mac.doFinal(NAME.getBytes(StandardCharsets.UTF_8))))
        .isEqualTo(masked.getString(1));
    // ... but hashing all 10^6 PINs under it finds no PIN behind the server's mask
    long start = System.nanoTime();
    int found = -1;
    for (int pin = 0; pin < 1_000_000 && found < 0; pin++) {
      String candidate = String.format("%06d", pin);
      if (HexFormat.of()
          .formatHex(mac.doFinal(candidate.getBytes(StandardCharsets.UTF_8)))
          .equals(pinMask)) {
        found = pin;
      }
    }
    System.out.printf(
        "[it] 10^6 PIN candidates hashed in %d ms: no match%n",
        (System.nanoTime() - start) / 1_000_000);
    assertThat(found).as("a PIN recovered from its mask").isNegative();
  }

  @Test
  void unprotectInAliceViewRunsWithTheKeysOfWhoeverSelectsIt() {
    for (Map<String, String> mode : List.of(SERVER, LOCAL)) {
      String view = "pins_" + mode.get("protector.kms.token-mode");
      session("alice", mode)
          .sql(
              "CREATE OR REPLACE GLOBAL TEMP VIEW "
                  + view
                  + " AS SELECT unprotect('"
                  + storedToken
                  + "', 'pin') AS pin");
      session("alice", mode).sql("CACHE TABLE global_temp." + view);
      int aliceDecodes = decodes("alice");
      assertThatThrownBy(
              () -> session("mallory", mode).sql("SELECT * FROM global_temp." + view).collect())
          .isInstanceOf(ProtectorException.class)
          .hasMessageContaining("Cannot unprotect values of token domain 'pin'")
          .hasMessageContaining("principal mallory");
      assertThat(decodes("alice")).as("nothing decoded in alice's name").isEqualTo(aliceDecodes);
      // another clear reader selects it with her own keys, audited as hers
      int lenaDecodes = decodes("lena");
      assertThat(
              session("lena", mode).sql("SELECT * FROM global_temp." + view).first().getString(0))
          .isEqualTo(PIN);
      if (mode == SERVER) {
        assertThat(decodes("lena")).isGreaterThan(lenaDecodes);
      }
    }
    assertThat(keyServer.auditEvents())
        .filteredOn(e -> "mallory".equals(e.get("principal")))
        .noneSatisfy(
            e -> assertThat(e).containsEntry("decision", "allow").containsEntry("op", "decode"));
  }

  private int decodes(String principal) {
    return (int)
        keyServer.auditEvents().stream()
            .filter(e -> "decode".equals(e.get("op")) && principal.equals(e.get("principal")))
            .filter(e -> "allow".equals(e.get("decision")))
            .count();
  }

  @Test
  void noAuditLineHoldsTheCanaries() {
    assertThat(keyServer.auditEvents())
        .isNotEmpty()
        .allSatisfy(
            e ->
                assertThat(e.values())
                    .noneSatisfy(v -> assertThat(String.valueOf(v)).isEqualTo(PIN))
                    .noneSatisfy(v -> assertThat(String.valueOf(v)).contains(NAME)));
  }
}
