/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.nimbusds.jose.JOSEException;
import com.nimbusds.jose.JOSEObjectType;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.crypto.RSASSASigner;
import com.nimbusds.jose.jwk.JWK;
import com.nimbusds.jose.jwk.JWKSet;
import com.nimbusds.jose.jwk.RSAKey;
import com.nimbusds.jose.jwk.gen.RSAKeyGenerator;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;
import com.sun.net.httpserver.HttpServer;
import io.icebergprotector.it.harness.KeyServerStackTestBase;
import io.icebergprotector.it.harness.ProtectorServerProcess;
import io.icebergprotector.kms.KmsOptions;
import io.icebergprotector.kms.remote.KeyAuthenticationException;
import io.icebergprotector.spark.core.ProtectorException;
import io.icebergprotector.testing.TestPolicy;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Date;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.spark.SparkException;
import org.apache.spark.TaskContext;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.api.java.UDF1;
import org.apache.spark.sql.types.DataTypes;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Issue 17 item 7 with a Spark job: the identity provider (a JWKS endpoint in this JVM on loopback
 * http) rotates its signing key while alice's read job, authenticated by a JWT signed with the old
 * key, is held mid-job. A session with a token of the new key reads at once (the key server fetches
 * the set again on the unknown key id); the held job finishes with every row in clear, asking the
 * server again after the rotation; once the provider withdraws the old key, its token is refused
 * within the server's JWKS cache lifetime while the new key's session still reads.
 */
class JwksRotationDuringJobTest extends KeyServerStackTestBase {
  private static final String POLICY =
      TestPolicy.resource(
          JwksRotationDuringJobTest.class, "policies/JwksRotationDuringJobTest.conf");

  private static final int FILES = 4;

  /** The key server's JWKS cache lifetime: how long a withdrawn provider key may still verify. */
  private static final Duration JWKS_LIFETIME = Duration.ofSeconds(2);

  /** The readers' key-encryption-key cache lifetime: their executors keep asking the server. */
  private static final Duration KEY_CACHE = Duration.ofSeconds(1);

  private static final Map<String, String> SHORT_KEY_CACHE =
      Map.of(KmsOptions.KEY_CACHE_SECONDS.key(), Long.toString(KEY_CACHE.toSeconds()));

  private final AtomicReference<String> published = new AtomicReference<>("{\"keys\":[]}");
  private final AtomicInteger fetches = new AtomicInteger();
  private HttpServer provider;
  private RSAKey k1;
  private RSAKey k2;

  JwksRotationDuringJobTest() {
    super(POLICY, List.of("etl"), List.of("pii", "footer"));
  }

  @Override
  protected void configureKeyServer(ProtectorServerProcess.Builder builder) {
    try {
      provider = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot start the JWKS provider on loopback", e);
    }
    provider.createContext(
        "/.well-known/jwks.json",
        exchange -> {
          fetches.incrementAndGet();
          byte[] body = published.get().getBytes(StandardCharsets.UTF_8);
          exchange.getResponseHeaders().add("Content-Type", "application/json");
          exchange.sendResponseHeaders(200, body.length);
          exchange.getResponseBody().write(body);
          exchange.close();
        });
    provider.start();
    builder.jwksUrl(
        "http://127.0.0.1:" + provider.getAddress().getPort() + "/.well-known/jwks.json",
        JWKS_LIFETIME);
  }

  @AfterAll
  void stopProvider() {
    if (provider != null) {
      provider.stop(0);
    }
  }

  @BeforeAll
  void setUp() throws JOSEException {
    k1 = new RSAKeyGenerator(2048).keyID("idp-k1").generate();
    k2 = new RSAKeyGenerator(2048).keyID("idp-k2").generate();
    publish(k1);
    configureProt(spark, "etl", Map.of());
    spark.sql("CREATE NAMESPACE IF NOT EXISTS prot.db");
    // two files per task: each file weighs half a split (128 MiB)
    spark.sql(
        "CREATE TABLE prot.db.people (id BIGINT, ssn STRING) USING iceberg"
            + " TBLPROPERTIES ('read.split.open-file-cost'='67108864')");
    for (int i = 1; i <= FILES; i++) {
      spark.sql(String.format("INSERT INTO prot.db.people VALUES (%d, '%s')", i, ssn(i)));
    }
  }

  @Test
  void theProviderRotatesItsSigningKeyWhileAJobReads() throws Exception {
    SparkSession alice = session("alice-k1.jwt", jwt(k1, "alice"));
    alice.udf().register("held", (UDF1<Long, Long>) Hold::pass, DataTypes.LongType);
    int fetchesAtStart = fetches.get();
    int auditAtStart = keyServer.auditEvents().size();

    // alice's job: two tasks of two files each; task 0 opens its first file (unwrapping its keys)
    // and waits in held(), task 1 runs on the other core
    Hold.reset();
    long jobStart = System.nanoTime();
    CompletableFuture<List<Row>> job =
        CompletableFuture.supplyAsync(
            () -> alice.sql("SELECT id, held(id), ssn FROM prot.db.people").collectAsList());
    assertThat(Hold.reached.await(120, TimeUnit.SECONDS)).as("a task of the job is held").isTrue();
    long heldAt = System.nanoTime();
    // task 0 has opened its first file: its keys were unwrapped (by it or by task 1) before now
    List<Map<String, Object>> beforeRotation =
        unwraps("alice", auditAtStart, keyServer.auditEvents().size());

    // the provider rotates, keeping the old key published (the usual OIDC overlap); a session
    // with a token of the new key reads while alice's job is held
    publish(k2, k1);
    int fetchesBeforeK2 = fetches.get();
    SparkSession bob = session("bob-k2.jwt", jwt(k2, "bob"));
    int bobReads = 0;
    Duration firstK2Read = null;
    // bob reads until alice's key-encryption keys, last fetched by task 1, are past their lifetime,
    // so that the held task must ask the server again for its second file, after the rotation
    int aliceUnwraps = -1;
    long aliceLastUnwrap = System.nanoTime();
    do {
      assertThat(ssns(bob, "SELECT id, ssn FROM prot.db.people")).containsExactlyElementsOf(all());
      bobReads++;
      if (firstK2Read == null) {
        firstK2Read = Duration.ofNanos(System.nanoTime() - heldAt);
      }
      int seen = unwraps("alice", auditAtStart, keyServer.auditEvents().size()).size();
      if (seen != aliceUnwraps) {
        aliceUnwraps = seen;
        aliceLastUnwrap = System.nanoTime();
      }
    } while (System.nanoTime() - aliceLastUnwrap < KEY_CACHE.plusMillis(500).toNanos());
    int fetchesAfterK2 = fetches.get();
    assertThat(job).as("alice's job is still held").isNotDone();
    // everything alice's job unwrapped so far came before the held task's second file
    int auditAtRelease = keyServer.auditEvents().size();
    List<Map<String, Object>> beforeRelease = unwraps("alice", auditAtStart, auditAtRelease);

    Hold.release.countDown();
    List<Row> rows = job.get(120, TimeUnit.SECONDS);
    Duration jobTime = Duration.ofNanos(System.nanoTime() - jobStart);
    assertThat(rows).hasSize(FILES);
    assertThat(rows.stream().map(r -> r.isNullAt(2) ? null : r.getString(2)))
        .as("alice's job read every row in clear")
        .containsExactlyInAnyOrderElementsOf(all());
    List<Map<String, Object>> afterRelease =
        unwraps("alice", auditAtRelease, keyServer.auditEvents().size());

    // the provider withdraws the old key: alice's token stops verifying within the JWKS lifetime
    publish(k2);
    long withdrawn = System.nanoTime();
    long deadline = withdrawn + JWKS_LIFETIME.multipliedBy(5).toNanos();
    int readsAfterWithdrawal = 0;
    Exception refusal = null;
    while (refusal == null && System.nanoTime() < deadline) {
      try {
        alice.sql("SELECT ssn FROM prot.db.people").collectAsList();
        readsAfterWithdrawal++;
      } catch (Exception e) { // SparkException is checked, but Scala throws it undeclared
        refusal = e;
      }
    }
    Duration refusedAfter = Duration.ofNanos(System.nanoTime() - withdrawn);
    int fetchesAtEnd = fetches.get();

    System.out.printf(
        "[jwks-job] job of %d files held after %d ms; k2 session's first read %d ms after the"
            + " rotation (%d reads while held); job finished in %d ms with %d unwraps by alice"
            + " before the rotation, %d before and %d after the release; withdrawn key refused after %d ms (%d reads"
            + " still served, JWKS lifetime %d ms); provider fetches: %d at start, %d before the"
            + " k2 token, %d after it, %d at end%n",
        FILES,
        (heldAt - jobStart) / 1_000_000,
        firstK2Read.toMillis(),
        bobReads,
        jobTime.toMillis(),
        beforeRotation.size(),
        beforeRelease.size(),
        afterRelease.size(),
        refusedAfter.toMillis(),
        readsAfterWithdrawal,
        JWKS_LIFETIME.toMillis(),
        fetchesAtStart,
        fetchesBeforeK2,
        fetchesAfterK2,
        fetchesAtEnd);

    assertThat(fetchesAfterK2)
        .as("the key server fetched the set again for the unknown key id")
        .isGreaterThan(fetchesBeforeK2);
    assertThat(beforeRotation).as("the job unwrapped before the rotation").isNotEmpty();
    assertThat(afterRelease)
        .as("the held task unwrapped again after the rotation, with the old key's token")
        .isNotEmpty();
    assertThat(beforeRelease).allMatch(e -> "jwt".equals(e.get("auth")));
    assertThat(afterRelease).allMatch(e -> "jwt".equals(e.get("auth")));

    assertThat(refusal).as("the withdrawn key's token is refused").isNotNull();
    // the server's JWKS cache, then alice's key-encryption-key cache, then one query's time
    assertThat(refusedAfter)
        .isLessThanOrEqualTo(JWKS_LIFETIME.plus(KEY_CACHE).plus(Duration.ofSeconds(3)));
    // refused on the executor, for alice's token, not for anything in the query
    assertThat(refusal)
        .isInstanceOf(SparkException.class)
        .hasMessageContaining("authentication failed: invalid token signature");
    assertThat(rootCause(refusal, ProtectorException.class))
        .as("the reader names the file it could not decrypt and why")
        .isNotNull()
        .satisfies(
            c ->
                assertThat(c.getMessage())
                    .startsWith("Cannot decrypt s3://")
                    .contains("of table db.people")
                    .contains("authentication failed: invalid token signature"));
    assertThat(rootCause(refusal, KeyAuthenticationException.class))
        .as("refused for its token: " + refusal)
        .isNotNull()
        .satisfies(
            c ->
                assertThat(c.getMessage())
                    .startsWith("authentication failed: invalid token signature")
                    .contains(keyServer.url()));
    assertThat(fetchesAtEnd)
        .as("the server refetched after its cache ended")
        .isGreaterThan(fetchesAfterK2);
    assertThat(ssns(bob, "SELECT id, ssn FROM prot.db.people"))
        .as("the new key's session still reads")
        .containsExactlyElementsOf(all());
  }

  // ------------------------------------------------------------------ helpers

  /** A session whose catalog {@code prot} authenticates with {@code jwt}, from a token file. */
  private SparkSession session(String fileName, String jwt) {
    SparkSession session = spark.newSession();
    Path tokenFile = keyServer.writeTokenFile(fileName, jwt);
    configureProt(session, tokenFile, SHORT_KEY_CACHE);
    return session;
  }

  private void publish(RSAKey... keys) {
    List<JWK> publicKeys = new ArrayList<>();
    for (RSAKey key : keys) {
      publicKeys.add(key.toPublicJWK());
    }
    published.set(new JWKSet(publicKeys).toString());
  }

  private static String jwt(RSAKey key, String subject) throws JOSEException {
    SignedJWT jwt =
        new SignedJWT(
            new JWSHeader.Builder(JWSAlgorithm.RS256)
                .keyID(key.getKeyID())
                .type(JOSEObjectType.JWT)
                .build(),
            new JWTClaimsSet.Builder()
                .subject(subject)
                .issuer(ProtectorServerProcess.JWT_ISSUER)
                .audience(ProtectorServerProcess.JWT_AUDIENCE)
                .expirationTime(Date.from(Instant.now().plusSeconds(600)))
                .build());
    jwt.sign(new RSASSASigner(key));
    return jwt.serialize();
  }

  private static String ssn(int id) {
    return String.format("SSN-JWKS-%04d", id);
  }

  private static List<String> all() {
    List<String> ssns = new ArrayList<>();
    for (int i = 1; i <= FILES; i++) {
      ssns.add(ssn(i));
    }
    return ssns;
  }

  private static List<String> ssns(SparkSession session, String query) {
    return session.sql(query + " ORDER BY id").collectAsList().stream()
        .map(r -> r.isNullAt(1) ? null : r.getString(1))
        .toList();
  }

  /** The allowed unwraps of {@code principal} in audit events {@code [from, to)}. */
  private List<Map<String, Object>> unwraps(String principal, int from, int to) {
    return keyServer.auditEvents().subList(from, to).stream()
        .filter(e -> principal.equals(e.get("principal")))
        .filter(e -> "unwrap".equals(e.get("op")) && "allow".equals(e.get("decision")))
        .toList();
  }

  private static <T extends Throwable> T rootCause(Throwable t, Class<T> type) {
    for (Throwable c = t; c != null; c = c.getCause()) {
      if (type.isInstance(c)) {
        return type.cast(c);
      }
    }
    return null;
  }

  /**
   * Holds a job's task 0 in a UDF at its first row: executors run in this JVM (local mode), so the
   * UDF and the test share these latches. Other tasks pass, so the second core stays free.
   */
  static final class Hold {
    static volatile CountDownLatch reached = new CountDownLatch(1);
    static volatile CountDownLatch release = new CountDownLatch(1);

    static void reset() {
      reached = new CountDownLatch(1);
      release = new CountDownLatch(1);
    }

    static Long pass(Long id) throws InterruptedException {
      TaskContext task = TaskContext.get();
      if (task == null || task.partitionId() != 0) {
        return id;
      }
      reached.countDown();
      if (!release.await(120, TimeUnit.SECONDS)) {
        throw new IllegalStateException("Cannot hold the job: not released within 120 s");
      }
      return id;
    }
  }
}
