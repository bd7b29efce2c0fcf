/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.it.harness;

import io.icebergprotector.kms.remote.RemoteKeyService;
import io.icebergprotector.policy.Policy;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * The stack of {@link StackTestBase} plus a key server process with the subclass's policy, a token
 * per principal (named after it) and the policy's master keys, created by principal {@code ops}
 * (who must hold the server's admin role {@code keyadmin}). Catalog {@code prot} of a session is a
 * protecting catalog on the REST catalog, keyed by the server with one principal's token.
 */
public abstract class KeyServerStackTestBase extends StackTestBase {
  private static final String CATALOG_CLASS = "io.icebergprotector.spark.ProtectingSparkCatalog";

  private final String policy;
  private final List<String> principals;
  private final List<String> keys;
  protected ProtectorServerProcess keyServer;

  /**
   * @param policy the key server's policy
   * @param principals the principals that get a token ({@code ops} is added)
   * @param keys the master keys to create
   */
  protected KeyServerStackTestBase(String policy, List<String> principals, List<String> keys) {
    this.policy = policy;
    this.principals = List.copyOf(principals);
    this.keys = List.copyOf(keys);
  }

  @Override
  protected void startMoreServers() {
    ProtectorServerProcess.Builder builder =
        ProtectorServerProcess.builder(
                getClass().getSimpleName() + ".protector-server", work.resolve("protector-server"))
            .policy(policy)
            .adminRoles("keyadmin");
    for (String principal : principals) {
      builder.token(principal, principal);
    }
    configureKeyServer(builder);
    this.keyServer = builder.token("ops", "ops").build().start();
  }

  /** Hook for subclasses to add to the key server's configuration before it is written. */
  protected void configureKeyServer(ProtectorServerProcess.Builder builder) {}

  @BeforeAll
  void createKeys() {
    keyServer.awaitReady();
    keyServer.createKeys("ops", keys);
  }

  @AfterAll
  void stopKeyServer() {
    if (keyServer != null) {
      keyServer.close();
    }
  }

  /** Catalog {@code prot} of {@code session} as {@code tokenName}, plus {@code more} options. */
  protected void configureProt(SparkSession session, String tokenName, Map<String, String> more) {
    configureProt(session, keyServer.tokenFile(tokenName), more);
  }

  /**
   * Catalog {@code prot} of {@code session} with the token in {@code tokenFile} (e.g. a JWT), plus
   * {@code more} options.
   */
  protected void configureProt(SparkSession session, Path tokenFile, Map<String, String> more) {
    Map<String, String> options = remoteCatalogOptions(keyServer, tokenFile);
    options.putAll(more);
    session.conf().set("spark.sql.catalog.prot", CATALOG_CLASS);
    options.forEach((k, v) -> session.conf().set("spark.sql.catalog.prot." + k, v));
  }

  /**
   * Writes {@code policy} to the key server's policy file and waits until the server decides under
   * it (it re-reads the file every second): each round asks the server for its policy digest.
   */
  protected void servePolicy(String policy) {
    String digest = Policy.parse(policy, "served").contentDigest();
    keyServer.replacePolicy(policy);
    long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    try (RemoteKeyService ops = keyServer.client("ops")) {
      String served = ops.whoami().policyDigest();
      while (!digest.equals(served) && System.nanoTime() < deadline) {
        served = ops.whoami().policyDigest();
      }
      if (!digest.equals(served)) {
        throw new AssertionError(
            "the key server still serves policy " + served + ", not " + digest + ", after 30 s");
      }
    }
  }

  /**
   * Starts catalog {@code prot} of {@code session} now, under the server's current policy, which it
   * then keeps for an hour (its policy refresh): a catalog holding a policy the server withdrew.
   */
  protected void configureStaleProt(
      SparkSession session, String tokenName, Map<String, String> more) {
    Map<String, String> options = new java.util.HashMap<>(more);
    options.put("protector.policy-refresh-seconds", "3600");
    configureProt(session, tokenName, options);
    session.sql("SHOW NAMESPACES IN prot").collect();
  }
}
