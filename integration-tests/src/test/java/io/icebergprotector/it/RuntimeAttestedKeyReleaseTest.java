/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.icebergprotector.it.harness.ProtectorServerProcess;
import io.icebergprotector.it.harness.StackTestBase;
import io.icebergprotector.kms.KeyAccessDeniedException;
import io.icebergprotector.kms.remote.RemoteKeyService;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.apache.spark.sql.Row;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * A key server for shared clusters (issue 34, runtime-attested key release), with Spark, the REST
 * catalog and S3 as processes: bob may read ssn and email only masked, so their key (pii) goes only
 * to the cluster's trusted runtime acting for bob. A catalog holding bob's token and the runtime's
 * credential (protector.runtime-token-file) reads bob's masks; one holding only bob's token, as bob
 * could set up himself, reads what he may read in clear and is refused the masked columns, naming
 * why; and bob's token sent to the key server directly gets no key.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class RuntimeAttestedKeyReleaseTest extends StackTestBase {
  private static final String TABLE = RemoteKeyServerEndToEndTest.TABLE;
  private static final String RUNTIME = "shared-cluster";

  private ProtectorServerProcess keyServer;

  @Override
  protected void startMoreServers() {
    this.keyServer =
        ProtectorServerProcess.builder(
                getClass().getSimpleName() + ".protector-server", work.resolve("protector-server"))
            .policy(RemoteKeyServerEndToEndTest.POLICY)
            .token("etl", "etl")
            .token("bob", "bob")
            .token("ops", "ops")
            .adminRoles("keyadmin")
            .sharedClusterRuntime(RUNTIME)
            .build()
            .start();
  }

  @BeforeAll
  void setUp() {
    keyServer.awaitReady();
    keyServer.createKeys("ops", List.of("pii", "fin", "footer"));
    configureCatalog(
        "sc_etl",
        RemoteKeyServerEndToEndTest.CATALOG_CLASS,
        remoteCatalogOptions(keyServer, keyServer.tokenFile("etl")));
    configureCatalog(
        "sc_bob",
        RemoteKeyServerEndToEndTest.CATALOG_CLASS,
        remoteCatalogOptions(keyServer, keyServer.tokenFile("bob")));
    Map<String, String> runtime =
        new java.util.LinkedHashMap<>(remoteCatalogOptions(keyServer, keyServer.tokenFile("bob")));
    runtime.put("protector.runtime-token-file", keyServer.runtimeTokenFile(RUNTIME).toString());
    configureCatalog("sc_bob_runtime", RemoteKeyServerEndToEndTest.CATALOG_CLASS, runtime);
    spark.sql("CREATE NAMESPACE IF NOT EXISTS sc_etl.db");
    spark.sql(
        "CREATE TABLE sc_etl."
            + TABLE
            + " USING iceberg"
            + RemoteKeyServerEndToEndTest.TABLE_PROPERTIES
            + " AS "
            + RemoteKeyServerEndToEndTest.sourceQuery(1, 11));
  }

  @Test
  @Order(1)
  void theTrustedRuntimeActingForBobReadsBobsMasks() {
    List<Row> rows =
        spark
            .sql("SELECT id, ssn, email, salary FROM sc_bob_runtime." + TABLE + " ORDER BY id")
            .collectAsList();
    assertThat(rows).hasSize(10);
    for (Row r : rows) {
      long id = r.getLong(0);
      assertThat(r.getString(1))
          .as("ssn, partial mask")
          .endsWith(String.format("%04d", id))
          .isNotEqualTo(RemoteKeyServerEndToEndTest.ssn(id));
      assertThat(r.getString(2)).as("email, hash mask").matches("[0-9a-f]{64}");
      assertThat(r.isNullAt(3)).as("salary is denied to bob").isTrue();
    }
    assertThat(events("bob", "unwrap", "pii", "allow"))
        .as("the pii key went to the runtime acting for bob, audited with both")
        .isNotEmpty()
        .allSatisfy(e -> assertThat(e.get("runtime")).isEqualTo("token:" + RUNTIME));
  }

  @Test
  @Order(2)
  void bobsOwnTokenReadsWhatBobReadsInClearAndIsRefusedTheMaskedColumns() {
    assertThat(spark.sql("SELECT id, name FROM sc_bob." + TABLE + " WHERE id = 3").collectAsList())
        .singleElement()
        .satisfies(r -> assertThat(r.getString(1)).isEqualTo(RemoteKeyServerEndToEndTest.name(3)));

    Throwable refused =
        catchThrowable(() -> spark.sql("SELECT id, ssn FROM sc_bob." + TABLE).collectAsList());
    assertThat(refused).as("bob's own token gets no mask-only key").isNotNull();
    String chain = messages(refused);
    assertThat(chain)
        .contains("principal 'bob' is not allowed to unwrap with key 'pii'")
        .contains("only to a trusted runtime acting for it")
        .doesNotContain(RemoteKeyServerEndToEndTest.ssn(3));
    assertThat(events("bob", "unwrap", "pii", "deny"))
        .isNotEmpty()
        .allSatisfy(
            e ->
                assertThat((String) e.get("reason"))
                    .startsWith("masked access only")
                    .doesNotContain("token:"));
  }

  @Test
  @Order(3)
  void bobsTokenSentToTheKeyServerDirectlyGetsNoKey() {
    String wrapped;
    try (RemoteKeyService etl = keyServer.client("etl")) {
      wrapped = etl.wrapKey(new byte[32], "pii");
    }
    try (RemoteKeyService bob = keyServer.client("bob")) {
      assertThat(catchThrowable(() -> bob.unwrapKey(wrapped, "pii")))
          .isInstanceOf(KeyAccessDeniedException.class)
          .hasMessageContaining("principal 'bob' is not allowed to unwrap with key 'pii'");
    }
  }

  private List<Map<String, Object>> events(
      String principal, String op, String key, String decision) {
    return keyServer.auditEvents().stream()
        .filter(e -> principal.equals(e.get("principal")))
        .filter(e -> op.equals(e.get("op")))
        .filter(e -> key.equals(e.get("key")))
        .filter(e -> decision.equals(e.get("decision")))
        .collect(Collectors.toList());
  }

  private static String messages(Throwable t) {
    StringBuilder sb = new StringBuilder();
    for (Throwable c = t; c != null; c = c.getCause()) {
      sb.append(c.getMessage()).append('\n');
    }
    return sb.toString();
  }
}
