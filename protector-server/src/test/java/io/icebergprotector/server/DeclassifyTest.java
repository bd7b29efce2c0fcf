/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.icebergprotector.kms.KeyServiceException;
import io.icebergprotector.kms.remote.DeclassificationDeniedException;
import io.icebergprotector.kms.remote.DeclassifyReceipt;
import io.icebergprotector.kms.remote.RemoteKeyService;
import io.icebergprotector.kms.wire.JsonCodec;
import io.icebergprotector.server.routes.DeclassifyRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * POST /v1/protector/declassify: the server's policy decides whether a principal may write clear
 * values of protected columns to an unprotected destination, and the audit log records each ask.
 */
class DeclassifyTest {
  private static final String PATH = "/v1/protector/declassify";

  @TempDir static Path dir;
  static ServerFixture fx;

  @BeforeAll
  static void start() throws Exception {
    fx = ServerFixture.start(dir);
  }

  @AfterAll
  static void stop() {
    fx.close();
  }

  private static String queryId() {
    return "q-" + UUID.randomUUID();
  }

  /** The audit line of the given query id (each test uses its own). */
  private static Map<String, Object> auditOf(String queryId) throws Exception {
    List<Map<String, Object>> lines =
        fx.auditLines().stream()
            .filter(l -> !l.isBlank())
            .map(JsonCodec::parseObject)
            .filter(e -> queryId.equals(e.get("query_id")))
            .toList();
    assertThat(lines).as("audit lines of %s", queryId).hasSize(1);
    return lines.get(0);
  }

  @Test
  void aDeclassifierIsAllowedAndAudited() throws Exception {
    String q = queryId();
    Instant before = Instant.now();
    DeclassifyReceipt receipt;
    try (RemoteKeyService alice = fx.client("alice")) {
      receipt =
          alice.authorizeDeclassification(
              "DB.Customers", List.of("ssn", "salary"), "parquet file:/tmp/export", q);
    }
    assertThat(receipt.principal()).isEqualTo("alice");
    assertThat(receipt.entry()).isEqualTo("db.customers");
    assertThat(receipt.columns()).containsExactly("ssn", "salary");
    assertThat(receipt.time()).isBetween(before.minusSeconds(1), Instant.now());
    assertThat(receipt.auditId()).isNotBlank();

    Map<String, Object> line = auditOf(q);
    assertThat(line)
        .containsEntry("principal", "alice")
        .containsEntry("auth", "token:alice-token")
        .containsEntry("op", "declassify")
        .containsEntry("source", "DB.Customers")
        .containsEntry("entry", "db.customers")
        .containsEntry("columns", List.of("ssn", "salary"))
        .containsEntry("destination", "parquet file:/tmp/export")
        .containsEntry("decision", "allow")
        .containsEntry("status", 200L)
        .containsEntry("audit_id", receipt.auditId())
        .containsEntry("time", receipt.time().toString());
    assertThat(fx.audit()).doesNotContain(fx.token("alice"));
  }

  @Test
  void aPathPrefixOrALocationUnderItIsASource() throws Exception {
    String q = queryId();
    try (RemoteKeyService bob =
        fx.client("bob")) { // analyst declassifies the prefix, not the table
      DeclassifyReceipt receipt =
          bob.authorizeDeclassification(
              "s3a://bucket/pii/2024/part-0.parquet", List.of("ssn"), "s3a://bucket/public/", q);
      assertThat(receipt.entry()).isEqualTo("s3a://bucket/pii/");
      assertThat(
              bob.authorizeDeclassification("s3a://bucket/pii/", List.of("SSN"), "x", queryId())
                  .entry())
          .isEqualTo("s3a://bucket/pii/");
    }
    assertThat(auditOf(q))
        .containsEntry("entry", "s3a://bucket/pii/")
        .containsEntry("decision", "allow");
  }

  @Test
  void aPrincipalWithoutTheRoleGets403AndADenyLine() throws Exception {
    String q = queryId();
    try (RemoteKeyService bob =
        fx.client("bob")) { // analyst: masked ssn, but no declassify on db.customers
      assertThatThrownBy(
              () -> bob.authorizeDeclassification("db.customers", List.of("ssn"), "db.export", q))
          .isInstanceOf(DeclassificationDeniedException.class)
          .hasMessage(
              "principal 'bob' is not allowed to declassify columns [ssn] of db.customers: none of its"
                  + " roles is in that entry's declassify list (key service at "
                  + fx.url()
                  + ")")
          .hasMessageNotContaining(fx.token("bob"));
    }
    assertThat(auditOf(q))
        .containsEntry("principal", "bob")
        .containsEntry("op", "declassify")
        .containsEntry("entry", "db.customers")
        .containsEntry("columns", List.of("ssn"))
        .containsEntry("destination", "db.export")
        .containsEntry("decision", "deny")
        .containsEntry("status", 403L)
        .doesNotContainKey("audit_id");
    assertThat((String) auditOf(q).get("reason")).contains("declassify list of db.customers");

    // the same shape as every other 403: nothing about the entry or the roles
    String body =
        JsonCodec.write(
            Map.of(
                "source",
                "db.customers",
                "columns",
                List.of("ssn"),
                "destination",
                "d",
                "query-id",
                queryId()));
    HttpResponse<String> raw = fx.post(PATH, fx.token("carol"), body);
    HttpResponse<String> key =
        fx.post("/v1/transit/decrypt/fin", fx.token("carol"), "{\"ciphertext\":\"vault:v1:AAAA\"}");
    assertThat(raw.statusCode()).isEqualTo(403);
    assertThat(raw.body())
        .isEqualTo("{\"errors\":[\"permission denied\"],\"principal\":\"carol\"}")
        .isEqualTo(key.body());
    assertThat(raw.headers().map().keySet()).isEqualTo(key.headers().map().keySet());
  }

  @Test
  void badBodiesGet400NamingTheField() throws Exception {
    String alice = fx.token("alice");
    String longText = "x".repeat(DeclassifyRequest.MAX_DESTINATION + 1);
    Map<String, String> cases = new java.util.LinkedHashMap<>();
    cases.put("{}", "Field 'source' is required and must be a non-empty string");
    cases.put(
        body("db.nope", "[\"ssn\"]", "d", "q"),
        "Field 'source': 'db.nope' is neither a table nor a location protected by the server's policy");
    cases.put(
        body("db.customers", "[]", "d", "q"),
        "Field 'columns' must name at least one protected column");
    cases.put(
        body("db.customers", "\"ssn\"", "d", "q"),
        "Field 'columns' is required and must be a list of column names");
    cases.put(
        body("db.customers", "[\"ssn\", 7]", "d", "q"),
        "Field 'columns' element 2 must be a non-empty string");
    cases.put(
        body("db.customers", "[\"name\"]", "d", "q"),
        "Field 'columns': 'name' is not a protected column of db.customers (protected: ssn, salary)");
    cases.put(
        body("db.customers", "[\"ssn\", \"SSN\"]", "d", "q"),
        "Field 'columns': 'SSN' is listed twice");
    cases.put(
        body("db.customers", "[\"ssn\"]", "", "q"),
        "Field 'destination' is required and must be a non-empty string");
    cases.put(
        body("db.customers", "[\"ssn\"]", longText, "q"),
        "Field 'destination' is 1025 characters long; at most 1024");
    cases.put(
        body("db.customers", "[\"ssn\"]", "d", "q".repeat(DeclassifyRequest.MAX_QUERY_ID + 1)),
        "Field 'query-id' is 257 characters long; at most 256");
    cases.put(
        body("db.customers", "[\"ssn\"]", "line\\nbreak", "q"),
        "Field 'destination' contains a control character");
    cases.put(
        "{\"source\":\"db.customers\",\"columns\":[\"ssn\"],\"destination\":\"d\",\"query_id\":\"q\"}",
        "Unknown field 'query_id'; valid fields: source, columns, destination, query-id");
    cases.put("[1,2]", "malformed JSON: Invalid JSON: expected an object");
    for (Map.Entry<String, String> c : cases.entrySet()) {
      HttpResponse<String> r = fx.post(PATH, alice, c.getKey());
      assertThat(r.statusCode()).as(c.getKey()).isEqualTo(400);
      assertThat(r.body())
          .as(c.getKey())
          .isEqualTo(JsonCodec.write(Map.of("errors", List.of(c.getValue()))));
    }
    // an unauthorized caller learns the same: the body is checked first
    assertThat(fx.post(PATH, fx.token("carol"), "{}").statusCode()).isEqualTo(400);

    // oversized bodies, missing tokens and other methods keep the usual answers
    assertThat(fx.post(PATH, alice, "{\"source\":\"" + "x".repeat(5000) + "\"}").statusCode())
        .isEqualTo(413);
    assertThat(fx.post(PATH, null, body("db.customers", "[\"ssn\"]", "d", "q")).statusCode())
        .isEqualTo(401);
    assertThat(fx.get(PATH, alice).statusCode()).isEqualTo(405);

    // the client names the field too, and 400s are audited as errors
    try (RemoteKeyService client =
        fx.clientBuilder(fx.url(), alice).requestTimeout(Duration.ofSeconds(5)).build()) {
      assertThatThrownBy(
              () -> client.authorizeDeclassification("db.customers", List.of(), "d", "q"))
          .isInstanceOf(KeyServiceException.class)
          .hasMessage(
              "declassify rejected: Field 'columns' must name at least one protected column");
    }
    assertThat(fx.auditLines())
        .anySatisfy(
            l ->
                assertThat(JsonCodec.parseObject(l))
                    .containsEntry("op", "declassify")
                    .containsEntry("decision", "error")
                    .containsEntry("status", 400L)
                    .containsEntry(
                        "reason",
                        "Field 'columns': 'name' is not a protected column of db.customers"
                            + " (protected: ssn, salary)"));
  }

  private static String body(
      String source, String columnsJson, String destination, String queryId) {
    return "{\"source\":"
        + JsonCodec.write(source)
        + ",\"columns\":"
        + columnsJson
        + ",\"destination\":"
        + (destination.contains("\\") ? "\"" + destination + "\"" : JsonCodec.write(destination))
        + ",\"query-id\":"
        + JsonCodec.write(queryId)
        + "}";
  }
}
