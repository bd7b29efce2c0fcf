/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.icebergprotector.kms.KeyService;
import io.icebergprotector.kms.LocalKeyService;
import io.icebergprotector.kms.Passphrase;
import io.icebergprotector.kms.token.TokenMode;
import io.icebergprotector.kms.token.Tokenizer;
import io.icebergprotector.kms.wire.JsonCodec;
import io.icebergprotector.policy.ProtectionMethod;
import io.icebergprotector.testing.TestPolicy;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The token endpoints of the key server: {@code token-key} releases a derived token key (local
 * token mode through the server), {@code encode} and {@code decode} tokenize batches in the style
 * of Vault's transform {@code batch_input} (server token mode), with the server's authentication,
 * role checks, limits, audit and metrics; and the client's server-mode tokenizer on top of them.
 */
class TokenEndpointsTest {
  static final String DETERMINISTIC = "deterministic";
  static final String SSN_METHOD = "fpe(alphabet = digits, keep = \"-\")";
  static final String POLICY =
      TestPolicy.resource(TokenEndpointsTest.class, "policies/TokenEndpointsTest.conf");

  @TempDir static Path dir;
  static ServerFixture fx;
  static LocalKeyService local;

  @BeforeAll
  static void start() throws Exception {
    fx =
        ServerFixture.startWithPolicy(
            dir,
            "protector-server.limits { max-batch-values = 100, max-batch-body-size = 64k }",
            POLICY);
    local =
        LocalKeyService.open(
            fx.keystore, Passphrase.of(ServerFixture.KEYSTORE_PASSPHRASE.toCharArray()), false);
  }

  @AfterAll
  static void stop() {
    local.close();
    fx.close();
  }

  private static String batch(String domain, String method, List<?> values) {
    List<Object> input = new ArrayList<>();
    for (Object v : values) {
      input.add(v == null ? JsonCodec.object("value", null) : JsonCodec.object("value", v));
    }
    return JsonCodec.write(
        JsonCodec.object("domain", domain, "method", method, "batch_input", input));
  }

  @SuppressWarnings("unchecked")
  private static List<Map<String, Object>> results(HttpResponse<String> response) {
    assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
    Map<String, Object> data = JsonCodec.object(JsonCodec.parseObject(response.body()), "data");
    return (List<Map<String, Object>>) data.get("batch_results");
  }

  private static List<Object> values(List<Map<String, Object>> results, String field) {
    return results.stream().map(m -> m.get(field)).collect(Collectors.toList());
  }

  private static Tokenizer localTokenizer(String key, String domain, String method) {
    return local.tokenizer(
        key, KeyService.LATEST_VERSION, domain, ProtectionMethod.parse(method), TokenMode.LOCAL);
  }

  private static List<Map<String, Object>> auditOf(String op, String principal) throws Exception {
    return fx.auditLines().stream()
        .filter(l -> !l.isBlank())
        .map(JsonCodec::parseObject)
        .filter(e -> op.equals(e.get("op")) && principal.equals(e.get("principal")))
        .collect(Collectors.toList());
  }

  @Test
  void encodeAndDecodeGiveTheTokensOfLocalModeInOrderWithNulls() throws Exception {
    List<String> emails = Arrays.asList("a@example.com", null, "b@example.com", "a@example.com");
    List<Object> tokens =
        values(
            results(
                fx.post(
                    "/v1/protector/encode/pii",
                    fx.token("etl"),
                    batch("email", DETERMINISTIC, emails))),
            "encoded_value");
    try (Tokenizer t = localTokenizer("pii", "email", DETERMINISTIC)) {
      assertThat(tokens)
          .containsExactly(
              t.protect("a@example.com"),
              null,
              t.protect("b@example.com"),
              t.protect("a@example.com"));
    }
    List<Object> clear =
        values(
            results(
                fx.post(
                    "/v1/protector/decode/pii",
                    fx.token("alice"),
                    batch("email", DETERMINISTIC, tokens))),
            "decoded_value");
    assertThat(clear).isEqualTo(new ArrayList<>(emails));

    List<String> ssns = List.of("123-45-6789", "987-65-4321");
    List<Object> ssnTokens =
        values(
            results(
                fx.post(
                    "/v1/protector/encode/pii", fx.token("alice"), batch("ssn", SSN_METHOD, ssns))),
            "encoded_value");
    try (Tokenizer t = localTokenizer("pii", "ssn", SSN_METHOD)) {
      assertThat(ssnTokens).containsExactly(t.protect("123-45-6789"), t.protect("987-65-4321"));
    }
    assertThat((String) ssnTokens.get(0)).matches("\\d{3}-\\d{2}-\\d{4}");

    List<Object> accounts =
        values(
            results(
                fx.post(
                    "/v1/protector/encode/fin",
                    fx.token("etl"),
                    batch("account", "fpe(width = 9)", List.of(123456789L, -42L)))),
            "encoded_value");
    try (Tokenizer t = localTokenizer("fin", "account", "fpe(width = 9)")) {
      assertThat(accounts).containsExactly(t.protect(123456789L), t.protect(-42L));
    }
  }

  @Test
  void rolesDecideWithTheSame403ForEveryKeyAndAreAudited() throws Exception {
    String body = batch("email", DETERMINISTIC, List.of("x@example.com"));
    // token roles never, masked roles never, writers encode but do not decode
    HttpResponse<String> bobEncode = fx.post("/v1/protector/encode/pii", fx.token("bob"), body);
    HttpResponse<String> bobDecode = fx.post("/v1/protector/decode/pii", fx.token("bob"), body);
    HttpResponse<String> bobMissing = fx.post("/v1/protector/encode/nosuch", fx.token("bob"), body);
    HttpResponse<String> etlDecode = fx.post("/v1/protector/decode/pii", fx.token("etl"), body);
    HttpResponse<String> carolDecode =
        fx.post(
            "/v1/protector/decode/pii", fx.token("carol"), batch("ssn", SSN_METHOD, List.of("1")));
    for (HttpResponse<String> r :
        List.of(bobEncode, bobDecode, bobMissing, etlDecode, carolDecode)) {
      assertThat(r.statusCode()).as(r.body()).isEqualTo(403);
    }
    assertThat(bobEncode.body())
        .isEqualTo(bobDecode.body())
        .isEqualTo(bobMissing.body())
        .isEqualTo("{\"errors\":[\"permission denied\"],\"principal\":\"bob\"}");
    // the key must be the domain's key
    assertThat(fx.post("/v1/protector/encode/fin", fx.token("etl"), body).statusCode())
        .isEqualTo(403);
    assertThat(fx.post("/v1/protector/encode/pii", null, body).statusCode()).isEqualTo(401);

    assertThat(auditOf("decode", "etl"))
        .singleElement()
        .satisfies(
            e ->
                assertThat(e)
                    .containsEntry("decision", "deny")
                    .containsEntry("domain", "email")
                    .containsEntry("key", "pii")
                    .containsEntry(
                        "reason",
                        "no role with clear access to a column of this key and token domain"));
    assertThat(fx.audit()).doesNotContain("x@example.com");
  }

  @Test
  void oneAuditLinePerBatchWithTheCountAndACounterOfValues() throws Exception {
    List<String> emails = new ArrayList<>();
    for (int i = 0; i < 37; i++) {
      emails.add("user" + i + "@audit.example");
    }
    int before = auditOf("encode", "alice").size();
    results(
        fx.post(
            "/v1/protector/encode/pii", fx.token("alice"), batch("email", DETERMINISTIC, emails)));
    List<Map<String, Object>> lines = auditOf("encode", "alice");
    assertThat(lines).hasSize(before + 1);
    assertThat(lines.get(lines.size() - 1))
        .containsEntry("decision", "allow")
        .containsEntry("key", "pii")
        .containsEntry("version", 1L)
        .containsEntry("domain", "email")
        .containsEntry("method", "deterministic")
        .containsEntry("count", 37L);
    assertThat(fx.audit()).doesNotContain("@audit.example");
    String metrics = fx.get("/metrics", null).body();
    assertThat(metrics)
        .containsPattern(
            "protector_token_values_total\\{method=\"deterministic\",op=\"encode\"} [0-9.E]+");
  }

  @Test
  void aMalformedTokenIsAnErrorOfItsItemNamingTheIndex() throws Exception {
    String good;
    try (Tokenizer t = localTokenizer("pii", "email", DETERMINISTIC)) {
      good = t.protect("ok@example.com");
    }
    List<Map<String, Object>> results =
        results(
            fx.post(
                "/v1/protector/decode/pii",
                fx.token("alice"),
                batch("email", DETERMINISTIC, Arrays.asList(good, "not-a-token!", null))));
    assertThat(results.get(0)).containsEntry("decoded_value", "ok@example.com");
    assertThat((String) results.get(1).get("error"))
        .startsWith("batch_input[1]: ")
        .contains("token domain email")
        .doesNotContain("not-a-token");
    assertThat(results.get(2)).containsEntry("decoded_value", null);
    assertThat(auditOf("decode", "alice"))
        .anySatisfy(e -> assertThat(e).containsEntry("count", 3L).containsEntry("errors", 1L));

    // a value of the wrong JSON type is an item error too
    List<Map<String, Object>> typed =
        results(
            fx.post(
                "/v1/protector/encode/fin",
                fx.token("alice"),
                batch("account", "fpe(width = 9)", List.of("123"))));
    assertThat((String) typed.get(0).get("error"))
        .isEqualTo("batch_input[0]: Value must be an integer for method fpe(width = 9)");
  }

  @Test
  void limitsAndMethodMismatchAreRefusedCleanly() throws Exception {
    List<String> many = new ArrayList<>();
    for (int i = 0; i < 101; i++) {
      many.add("v" + i);
    }
    HttpResponse<String> tooMany =
        fx.post("/v1/protector/encode/pii", fx.token("etl"), batch("email", DETERMINISTIC, many));
    assertThat(tooMany.statusCode()).isEqualTo(413);
    assertThat(tooMany.body())
        .contains("batch_input has 101 values, more than limits.max-batch-values = 100");

    HttpResponse<String> tooBig =
        fx.post(
            "/v1/protector/encode/pii",
            fx.token("etl"),
            batch("email", DETERMINISTIC, List.of("x".repeat(70_000))));
    assertThat(tooBig.statusCode()).isEqualTo(413);
    assertThat(tooBig.body()).contains("larger than 65536 bytes (limits.max-batch-body-size)");

    HttpResponse<String> wrongMethod =
        fx.post(
            "/v1/protector/encode/pii",
            fx.token("etl"),
            batch("email", "fpe(alphabet = alnum)", List.of("abc")));
    assertThat(wrongMethod.statusCode()).isEqualTo(400);
    assertThat(wrongMethod.body())
        .contains("token domain 'email' is deterministic in the server's policy");

    HttpResponse<String> noInput =
        fx.post(
            "/v1/protector/encode/pii",
            fx.token("etl"),
            JsonCodec.write(JsonCodec.object("domain", "email", "method", DETERMINISTIC)));
    assertThat(noInput.statusCode()).isEqualTo(400);
    assertThat(noInput.body()).contains("field 'batch_input' is required");

    HttpResponse<String> notAnObject =
        fx.post(
            "/v1/protector/encode/pii",
            fx.token("etl"),
            "{\"domain\":\"email\",\"method\":\"deterministic\",\"batch_input\":[{\"value\":\"a\"},\"secret-b\"]}");
    assertThat(notAnObject.statusCode()).isEqualTo(400);
    assertThat(notAnObject.body())
        .contains("batch_input[1] must be an object")
        .doesNotContain("secret-b");
    HttpResponse<String> duplicate =
        fx.post(
            "/v1/protector/encode/pii",
            fx.token("etl"),
            "{\"domain\":\"email\",\"domain\":\"ssn\",\"batch_input\":[]}");
    assertThat(duplicate.statusCode()).isEqualTo(400);
    assertThat(duplicate.body()).contains("malformed JSON").contains("Duplicate field 'domain'");
    HttpResponse<String> unquoted =
        fx.post(
            "/v1/protector/encode/pii",
            fx.token("etl"),
            "{\"domain\":\"email\",\"batch_input\":[{\"value\":hunter2}]}");
    assertThat(unquoted.statusCode()).isEqualTo(400);
    assertThat(unquoted.body()).contains("malformed JSON").doesNotContain("hunter2");
  }

  private static String columnBatch(String table, String column, List<?> tokens) {
    List<Object> input = new ArrayList<>();
    for (Object v : tokens) {
      input.add(JsonCodec.object("value", v));
    }
    return JsonCodec.write(
        JsonCodec.object(
            "domain", "ssn",
            "method", SSN_METHOD,
            "table", table,
            "column", column,
            "batch_input", input));
  }

  @Test
  void aDecodeNamingAColumnAnswersTheCallersViewAndMasksOnTheServer() throws Exception {
    String token;
    try (Tokenizer t = localTokenizer("pii", "ssn", SSN_METHOD)) {
      token = t.protect("123-45-6789");
    }
    String body = columnBatch("db.customers", "ssn", List.of(token));
    HttpResponse<String> masked = fx.post("/v1/protector/decode/pii", fx.token("carol"), body);
    assertThat(values(results(masked), "decoded_value")).containsExactly("*******6789");
    assertThat(JsonCodec.object(JsonCodec.parseObject(masked.body()), "data"))
        .containsEntry("mask", "partial(keep_last=4)");
    assertThat(masked.body()).doesNotContain("123-45");
    HttpResponse<String> clear = fx.post("/v1/protector/decode/pii", fx.token("alice"), body);
    assertThat(values(results(clear), "decoded_value")).containsExactly("123-45-6789");
    assertThat(JsonCodec.object(JsonCodec.parseObject(clear.body()), "data"))
        .doesNotContainKey("mask");

    // a token role, a column of another domain and no column at all: the same 403
    assertThat(fx.post("/v1/protector/decode/pii", fx.token("bob"), body).statusCode())
        .isEqualTo(403);
    assertThat(
            fx.post(
                    "/v1/protector/decode/pii",
                    fx.token("carol"),
                    columnBatch("db.customers", "email", List.of(token)))
                .statusCode())
        .isEqualTo(403);
    assertThat(
            fx.post(
                    "/v1/protector/decode/pii",
                    fx.token("carol"),
                    batch("ssn", SSN_METHOD, List.of(token)))
                .statusCode())
        .isEqualTo(403);
    assertThat(auditOf("decode", "carol"))
        .anySatisfy(
            e ->
                assertThat(e)
                    .containsEntry("decision", "allow")
                    .containsEntry("view", "masked")
                    .containsEntry("mask", "partial(keep_last=4)")
                    .containsEntry("column", "db.customers.ssn")
                    .containsEntry("count", 1L));
    assertThat(auditOf("decode", "bob"))
        .anySatisfy(
            e ->
                assertThat(e)
                    .containsEntry("decision", "deny")
                    .containsEntry("column", "db.customers.ssn"));
  }
}
