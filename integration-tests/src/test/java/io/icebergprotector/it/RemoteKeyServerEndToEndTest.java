/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.icebergprotector.it.harness.BucketScan;
import io.icebergprotector.it.harness.BucketScan.Canary;
import io.icebergprotector.it.harness.BucketScan.Hit;
import io.icebergprotector.it.harness.BucketScan.Kind;
import io.icebergprotector.it.harness.DriverLogCapture;
import io.icebergprotector.it.harness.ItPaths;
import io.icebergprotector.it.harness.ProtectorServerProcess;
import io.icebergprotector.it.harness.StackTestBase;
import io.icebergprotector.kms.KeyAccessDeniedException;
import io.icebergprotector.kms.remote.RemoteKeyService;
import io.icebergprotector.policy.Principal;
import io.icebergprotector.spark.ProtectingSparkCatalog;
import io.icebergprotector.testing.TestPolicy;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.stream.Collectors;
import java.util.stream.LongStream;
import java.util.stream.Stream;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * Spark end to end with the protector key server as a separate process (issue 5 point 8, issue 6
 * point 1): Iceberg REST catalog + S3 server + key server on loopback, and catalogs configured as a
 * user would, one per principal, each with its own token file and no local keys or policy:
 *
 * <pre>
 * spark.sql.catalog.as_bob                            = io.icebergprotector.spark.ProtectingSparkCatalog
 * spark.sql.catalog.as_bob.type                       = rest   (uri, io-impl, s3.* as usual)
 * spark.sql.catalog.as_bob.protector.kms.type         = remote
 * spark.sql.catalog.as_bob.protector.kms.url          = https://127.0.0.1:PORT
 * spark.sql.catalog.as_bob.protector.token-file       = .../tokens/bob.token
 * spark.sql.catalog.as_bob.protector.kms.trust-store  = .../server.pem
 * </pre>
 *
 * The principal comes from the token (whoami) and the policy from the server.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class RemoteKeyServerEndToEndTest extends StackTestBase {
  static final String CATALOG_CLASS = "io.icebergprotector.spark.ProtectingSparkCatalog";
  static final String PLAIN = "plain";
  static final String TABLE = "db.customers";
  static final String TABLE_PROPERTIES =
      " TBLPROPERTIES ('write.parquet.compression-codec'='uncompressed', 'format-version'='2')";
  static final String QUERY_COLUMNS = "id, name, ssn, email, salary, region";

  static final String POLICY =
      TestPolicy.builder()
          .role("admin", "alice")
          .roleGroups("admin", "secops")
          .role("analyst", "bob")
          .role("etl", "etl")
          .role("keyadmin", "ops")
          .keys("pii", "fin", "footer")
          .table(
              "db.customers",
              t ->
                  t.footerKey("footer")
                      .footerMode("encrypted")
                      .algorithm("AES_GCM_V1")
                      .writers("etl")
                      .column(
                          "ssn",
                          c ->
                              c.key("pii").clear("admin").masked("analyst", "partial(keep_last=4)"))
                      .column("email", c -> c.key("pii").clear("admin").masked("analyst", "hash"))
                      // fin: a key of its own, so "denied" is enforced by the key server, not only
                      // by Spark
                      .column("salary", c -> c.key("fin").clear("admin").onDenied("null")))
          // another protected table under the same keys, for the file-swap test
          .table(
              "db.other",
              t ->
                  t.footerKey("footer")
                      .writers("etl")
                      .column("ssn", c -> c.key("pii").clear("admin"))
                      .column("email", c -> c.key("pii").clear("admin"))
                      .column("salary", c -> c.key("fin").clear("admin")))
          .render();

  private ProtectorServerProcess keyServer;
  private DriverLogCapture driverLog;

  /** Every credential used in this class (tokens, JWTs, wrong ones): none may leak. */
  private final List<String> secrets = new ArrayList<>();

  // ------------------------------------------------------------------ canaries

  static String name(long id) {
    return String.format("NAME-RKS-%04d", id);
  }

  static String ssn(long id) {
    return String.format("SSN-RKS-%04d", id);
  }

  static String email(long id) {
    return String.format("r%04d@rks-cnry.io", id);
  }

  static long salary(long id) {
    return 7_300_000_000_000L + id;
  }

  static String sourceQuery(long fromInclusive, long toExclusive) {
    return "SELECT id,"
        + " format_string('NAME-RKS-%04d', id) AS name,"
        + " format_string('SSN-RKS-%04d', id) AS ssn,"
        + " format_string('r%04d@rks-cnry.io', id) AS email,"
        + " 7300000000000 + id AS salary,"
        + " CASE WHEN id % 2 = 0 THEN 'eu' ELSE 'us' END AS region"
        + " FROM range("
        + fromInclusive
        + ", "
        + toExclusive
        + ", 1, 2)";
  }

  static List<Canary> protectedCanaries(long fromInclusive, long toExclusive) {
    List<Canary> canaries = new ArrayList<>();
    LongStream.range(fromInclusive, toExclusive)
        .forEach(
            id -> {
              canaries.add(Canary.text(ssn(id)));
              canaries.add(Canary.text(email(id)));
              canaries.add(Canary.int64(salary(id)));
            });
    return canaries;
  }

  // ------------------------------------------------------------------ setup

  @Override
  protected void startMoreServers() {
    // keytool and the key server's JVM start while s3proxy and the REST catalog boot.
    this.keyServer =
        ProtectorServerProcess.builder(
                getClass().getSimpleName() + ".protector-server", work.resolve("protector-server"))
            .policy(POLICY)
            .token("etl", "etl")
            .token("etl-2", "etl") // a second credential of the same principal: cold caches
            .token("alice", "alice")
            .token("bob", "bob")
            .token("ops", "ops")
            .adminRoles("keyadmin")
            .build()
            .start();
  }

  @BeforeAll
  void setUpKeyServerAndCatalogs() {
    long start = System.nanoTime();
    keyServer.awaitReady();
    secrets.addAll(keyServer.tokens());
    // The operator creates the policy's master keys through the admin API.
    keyServer.createKeys("ops", List.of("pii", "fin", "footer"));
    System.out.printf(
        "[it] key server %s, log %s, audit %s (ready %d ms after the stack)%n",
        keyServer,
        keyServer.process().logFile(),
        keyServer.auditFile(),
        (System.nanoTime() - start) / 1_000_000);
    this.driverLog = DriverLogCapture.start(getClass().getSimpleName() + ".driver");

    for (String user : List.of("etl", "alice", "bob")) {
      configureCatalog(
          "as_" + user, CATALOG_CLASS, remoteCatalogOptions(keyServer.tokenFile(user)));
    }
    configureCatalog(PLAIN, "org.apache.iceberg.spark.SparkCatalog", restCatalogOptions());
    spark.sql("CREATE NAMESPACE IF NOT EXISTS as_etl.db");
  }

  @AfterAll
  void stopKeyServer() {
    if (driverLog != null) {
      driverLog.close();
    }
    if (keyServer != null) {
      keyServer.close();
    }
  }

  /** What a user sets for a protected catalog on the REST catalog and the key server. */
  Map<String, String> remoteCatalogOptions(Path tokenFile) {
    return remoteCatalogOptions(keyServer, tokenFile);
  }

  // ------------------------------------------------------------------ 1. who am I, which policy

  @Test
  @Order(1)
  void catalogsLearnPrincipalAndPolicyFromTheKeyServer() {
    for (String user : List.of("etl", "alice", "bob")) {
      ProtectingSparkCatalog catalog = catalog("as_" + user);
      assertThat(catalog.principal().user()).as("principal of the %s token", user).isEqualTo(user);
      assertThat(catalog.protectorContext().policy().origin())
          .as("no protector.policy option: the policy comes from the key server")
          .isEqualTo(keyServer.url() + "/v1/protector/policy");
      assertThat(catalog.protectorContext().policy().table(TABLE)).isPresent();
    }
  }

  // ------------------------------------------------------------------ 2. etl writes

  @Test
  @Order(2)
  void etlWritesWithCtasAndInsertAndNothingIsAtRest() {
    spark.sql(
        "CREATE TABLE as_etl."
            + TABLE
            + " USING iceberg PARTITIONED BY (region)"
            + TABLE_PROPERTIES
            + " AS "
            + sourceQuery(1, 11));
    assertNothingAtRest("CTAS", 1, 11);
    spark.sql("INSERT INTO as_etl." + TABLE + " " + sourceQuery(11, 21));
    assertNothingAtRest("INSERT INTO", 1, 21);
    assertThat(snapshotIds()).hasSize(2);

    List<Map<String, Object>> wraps = events("etl", "wrap", null, "allow");
    assertThat(wraps.stream().map(e -> e.get("key")).distinct())
        .as("the writer wrapped under every column key and the footer key, audited")
        .containsExactlyInAnyOrder("pii", "fin", "footer");
  }

  // ------------------------------------------------------------------ 3. alice: clear

  @Test
  @Order(3)
  void aliceReadsClearValues() {
    List<Row> rows =
        spark
            .sql("SELECT " + QUERY_COLUMNS + " FROM as_alice." + TABLE + " ORDER BY id")
            .collectAsList();
    assertThat(rows).hasSize(20);
    for (Row r : rows) {
      long id = r.getLong(0);
      assertThat(r.getString(1)).isEqualTo(name(id));
      assertThat(r.getString(2)).isEqualTo(ssn(id));
      assertThat(r.getString(3)).isEqualTo(email(id));
      assertThat(r.getLong(4)).isEqualTo(salary(id));
    }
    assertThat(events("alice", "unwrap", "fin", "allow"))
        .as("alice unwrapped the fin key")
        .isNotEmpty();
  }

  // ------------------------------------------------------------------ 4. bob: masked and denied

  @Test
  @Order(4)
  void bobReadsMaskedValuesAndNullAndNeverGetsTheDeniedKey() {
    int auditBefore = keyServer.auditEvents().size();
    List<Row> rows =
        spark
            .sql("SELECT " + QUERY_COLUMNS + " FROM as_bob." + TABLE + " ORDER BY id")
            .collectAsList();
    assertThat(rows).hasSize(20);
    for (Row r : rows) {
      long id = r.getLong(0);
      String last4 = String.format("%04d", id);
      assertThat(r.getString(1)).isEqualTo(name(id));
      assertThat(r.getString(2))
          .as("ssn, partial mask")
          .endsWith(last4)
          .doesNotContain("RKS")
          .hasSize(ssn(id).length());
      assertThat(r.getString(3)).as("email, hash mask").matches("[0-9a-f]{64}");
      assertThat(r.isNullAt(4)).as("salary is denied to bob: NULL").isTrue();
    }
    assertThat(rows.get(0).getString(3)).isNotEqualTo(rows.get(1).getString(3));
    // SELECT * too: the denied column is in the projection, its key still is never requested
    assertThat(spark.sql("SELECT * FROM as_bob." + TABLE + " WHERE id = 7").collectAsList())
        .singleElement()
        .satisfies(r -> assertThat(r.isNullAt(r.fieldIndex("salary"))).isTrue());

    List<Map<String, Object>> audit = keyServer.auditEvents();
    List<Map<String, Object>> bobs =
        audit.subList(auditBefore, audit.size()).stream()
            .filter(e -> "bob".equals(e.get("principal")))
            .collect(Collectors.toList());
    System.out.println("[it] audit lines for bob's reads: " + bobs);
    assertThat(bobs)
        .as("bob's reads went to the key server (masks need the pii key)")
        .anyMatch(e -> "pii".equals(e.get("key")) && "allow".equals(e.get("decision")))
        .anyMatch(
            e ->
                "footer".equals(e.get("key"))
                    && "unwrap".equals(e.get("op"))
                    && "allow".equals(e.get("decision")));
    assertThat(events("bob", null, "fin", "allow"))
        .as("the audit shows no unwrap (nor any other use) of the fin key by bob")
        .isEmpty();

    // Asking the key server directly does not help bob: the refusal is audited.
    String wrappedFin;
    try (RemoteKeyService etl = keyServer.client("etl")) {
      wrappedFin = etl.wrapKey(new byte[32], "fin");
    }
    try (RemoteKeyService bob = keyServer.client("bob")) {
      assertThat(catchThrowable(() -> bob.unwrapKey(wrappedFin, "fin")))
          .isInstanceOf(KeyAccessDeniedException.class)
          .hasMessageContaining("bob");
    }
    assertThat(events("bob", "unwrap", "fin", "deny")).hasSize(1);
    assertThat(events("bob", "unwrap", "fin", "allow")).isEmpty();
  }

  @Test
  @Order(5)
  void bobMayNotWrite() {
    List<Long> before = snapshotIds();
    Throwable e =
        catchThrowable(
            () -> spark.sql("INSERT INTO as_bob." + TABLE + " " + sourceQuery(100, 102)));
    assertThat(e).isNotNull();
    assertThat(fullText(e)).contains("bob").contains("not a writer");
    assertThat(snapshotIds()).isEqualTo(before);
  }

  // ------------------------------------------------------------------ 5. credentials

  @Test
  @Order(6)
  void wrongTokenAndExpiredJwtFailCatalogInitNamingTheCause() {
    String wrong = "ipt_" + "wrongTokenWrongToken0123456789abcdefABCDEF";
    String expired = keyServer.jwt("alice", List.of(), Instant.now().minusSeconds(600));
    String valid = keyServer.jwt("erin", List.of("secops"), Instant.now().plusSeconds(600));
    secrets.addAll(List.of(wrong, expired, valid));

    assertCatalogInitFails("as_wrong_token", wrong, "authentication failed: unknown token");
    assertCatalogInitFails("as_expired_jwt", expired, "authentication failed: token expired");

    // Positive control: a valid JWT works, and its groups claim counts: erin is in no role by
    // name, only through group secops (admin), so she reads clear values.
    configureCatalog(
        "as_erin_jwt",
        CATALOG_CLASS,
        remoteCatalogOptions(keyServer.writeTokenFile("erin-jwt.token", valid)));
    assertThat(
            spark
                .sql("SELECT ssn, salary FROM as_erin_jwt." + TABLE + " WHERE id = 3")
                .collectAsList())
        .singleElement()
        .satisfies(
            r -> {
              assertThat(r.getString(0)).isEqualTo(ssn(3));
              assertThat(r.getLong(1)).isEqualTo(salary(3));
            });
    assertThat(catalog("as_erin_jwt").principal())
        .isEqualTo(Principal.of("erin", List.of("secops")));
    assertThat(events("erin", "unwrap", "fin", "allow"))
        .as("erin's unwraps, authenticated by JWT")
        .isNotEmpty()
        .allMatch(e -> "jwt".equals(e.get("auth")));
  }

  private void assertCatalogInitFails(String catalog, String token, String expected) {
    configureCatalog(
        catalog,
        CATALOG_CLASS,
        remoteCatalogOptions(keyServer.writeTokenFile(catalog + ".token", token)));
    Throwable e =
        catchThrowable(() -> spark.sql("SELECT * FROM " + catalog + "." + TABLE).collectAsList());
    System.out.println("[it] " + catalog + ": " + e);
    assertThat(e).as("catalog %s with a bad credential", catalog).isNotNull();
    assertThat(fullText(e)).contains(expected).contains(keyServer.url()).doesNotContain(token);
    assertThat(keyServer.auditEvents())
        .as("the server audits the refused authentication")
        .anyMatch(
            ev -> "deny".equals(ev.get("decision")) && Objects.equals(401L, ev.get("status")));
  }

  // ------------------------------------------------------------------ 6. trust store options

  @Test
  @Order(7)
  void trustStoreOptions() {
    // No trust store: the JDK's CAs do not know the self-signed server, and the error says so.
    Map<String, String> untrusted = remoteCatalogOptions(keyServer.tokenFile("alice"));
    untrusted.remove("protector.kms.trust-store");
    configureCatalog("as_alice_untrusted", CATALOG_CLASS, untrusted);
    Throwable e =
        catchThrowable(
            () -> spark.sql("SELECT * FROM as_alice_untrusted." + TABLE).collectAsList());
    System.out.println("[it] as_alice_untrusted: " + e);
    assertThat(e).isNotNull();
    assertThat(fullText(e))
        .contains("TLS connection to key service at " + keyServer.url() + " failed");

    // A PKCS12 trust store whose password comes from an environment variable.
    String passwordEnv = "IT_PROTECTOR_TRUST_STORE_PASSWORD";
    assumeTrue(
        System.getenv(passwordEnv) != null,
        passwordEnv
            + " is not set (Maven's surefire configuration sets it): PKCS12 trust store not tested");
    Map<String, String> p12 = remoteCatalogOptions(keyServer.tokenFile("alice"));
    p12.put("protector.kms.trust-store", keyServer.pkcs12TrustStore(passwordEnv).toString());
    p12.put("protector.kms.trust-store-password-env", passwordEnv);
    configureCatalog("as_alice_p12", CATALOG_CLASS, p12);
    assertThat(spark.sql("SELECT ssn FROM as_alice_p12." + TABLE + " WHERE id = 4").collectAsList())
        .singleElement()
        .satisfies(r -> assertThat(r.getString(0)).isEqualTo(ssn(4)));
  }

  // ------------------------------------------------------------------ 7. outage

  @Test
  @Order(8)
  void keyServerDownDuringAWriteFailsItCleanly() throws Exception {
    // A fresh catalog, with a second etl token: no key caches in this JVM for its credential.
    configureCatalog(
        "as_etl_cold", CATALOG_CLASS, remoteCatalogOptions(keyServer.tokenFile("etl-2")));
    assertThat(catalog("as_etl_cold").principal().user()).isEqualTo("etl"); // init while up
    List<Long> snapshotsBefore = snapshotIds();
    List<String> dataBefore = dataFileKeys();

    keyServer.stop();
    try {
      long start = System.nanoTime();
      Throwable e =
          catchThrowable(
              () -> spark.sql("INSERT INTO as_etl_cold." + TABLE + " " + sourceQuery(21, 31)));
      System.out.printf(
          "[it] write while the key server is down failed after %d ms: %s%n",
          (System.nanoTime() - start) / 1_000_000, rootCause(e));
      assertThat(e).as("the write during the outage").isNotNull();
      assertThat(fullText(e)).contains("key service at " + keyServer.url() + " is unavailable");
    } finally {
      keyServer.start().awaitReady();
    }
    assertThat(snapshotIds()).as("no commit").isEqualTo(snapshotsBefore);
    assertThat(dataFileKeys())
        .as("no data files left behind")
        .containsExactlyInAnyOrderElementsOf(dataBefore);
    assertThat(
            spark.sql("SELECT count(*) FROM as_alice." + TABLE).collectAsList().get(0).getLong(0))
        .isEqualTo(20L);

    // The server is back (same port, same keys): the same write goes through.
    spark.sql("INSERT INTO as_etl_cold." + TABLE + " " + sourceQuery(21, 31));
    assertThat(snapshotIds()).hasSize(snapshotsBefore.size() + 1);
    assertThat(
            spark
                .sql("SELECT ssn, salary FROM as_alice." + TABLE + " WHERE id = 25")
                .collectAsList())
        .singleElement()
        .satisfies(
            r -> {
              assertThat(r.getString(0)).isEqualTo(ssn(25));
              assertThat(r.getLong(1)).isEqualTo(salary(25));
            });
    assertNothingAtRest("INSERT after the outage", 1, 31);
  }

  // ------------------------------------------------------------------ 8. no token anywhere

  @Test
  @Order(9)
  void tokensAreNeverInHadoopConfSparkConfPlansOrLogs() throws IOException {
    assertThat(secrets).hasSizeGreaterThanOrEqualTo(5);

    List<String> hadoop = new ArrayList<>();
    spark
        .sparkContext()
        .hadoopConfiguration()
        .forEach(e -> hadoop.add(e.getKey() + "=" + e.getValue()));
    spark.sessionState().newHadoopConf().forEach(e -> hadoop.add(e.getKey() + "=" + e.getValue()));
    assertThat(hadoop).isNotEmpty();
    assertNoSecretIn("the Hadoop configuration", String.join("\n", hadoop));

    String sqlConf = spark.conf().getAll().toString();
    assertThat(sqlConf)
        .as("control: the catalogs name their token files")
        .contains(keyServer.tokenFile("bob").toString());
    assertNoSecretIn("the Spark SQL conf", sqlConf);
    assertNoSecretIn("the Spark conf", spark.sparkContext().getConf().toDebugString());

    String plans =
        Stream.of(
                "EXPLAIN EXTENDED SELECT * FROM as_alice." + TABLE,
                "EXPLAIN EXTENDED SELECT * FROM as_bob." + TABLE,
                "EXPLAIN EXTENDED INSERT INTO as_etl." + TABLE + " " + sourceQuery(40, 41))
            .map(q -> spark.sql(q).collectAsList().get(0).getString(0))
            .collect(Collectors.joining("\n"));
    assertThat(plans).contains("as_alice");
    assertNoSecretIn("query plans", plans);

    List<Path> logs = new ArrayList<>();
    try (Stream<Path> files = Files.list(ItPaths.logsDir())) {
      files.filter(Files::isRegularFile).forEach(logs::add);
    }
    logs.add(keyServer.auditFile());
    // This JVM's stdout and stderr so far, as Maven's surefire records them.
    Path reports = ItPaths.logsDir().resolveSibling("surefire-reports");
    if (Files.isDirectory(reports)) {
      try (Stream<Path> files = Files.list(reports)) {
        files.filter(f -> f.getFileName().toString().endsWith("-output.txt")).forEach(logs::add);
      }
    }
    assertThat(logs).contains(driverLog.file()).containsAll(keyServer.logFiles());
    assertThat(driverLog.text()).as("the driver log captured something").isNotEmpty();
    for (Path log : logs) {
      String text =
          log.equals(driverLog.file())
              ? driverLog.text()
              : new String(Files.readAllBytes(log), StandardCharsets.ISO_8859_1);
      assertNoSecretIn(log.toString(), text);
    }
    System.out.printf(
        "[it] searched %d files (server and driver logs, test output, the audit of %d"
            + " lines) for %d credentials%n",
        logs.size(), keyServer.auditEvents().size(), secrets.size());
  }

  // ------------------------------------------------------------------ 9. files bound to their
  // place

  @Test
  @Order(10)
  void swappedOrReplayedFilesFailWithTheIntegrityError() {
    // Another protected table under the same keys, with rows shaped as db.customers's first ones
    // (so its files are usually exactly as long, and the AAD check, not the length, catches them).
    spark.sql(
        "CREATE TABLE as_etl.db.other USING iceberg PARTITIONED BY (region)"
            + TABLE_PROPERTIES
            + " AS "
            + sourceQuery(1, 11).replace("RKS", "OTH").replace("rks", "oth"));
    org.apache.iceberg.Table customers = icebergTable(PLAIN + "." + TABLE);
    List<org.apache.iceberg.Snapshot> history = new ArrayList<>();
    customers.snapshots().forEach(history::add);
    history.sort(java.util.Comparator.comparingLong(org.apache.iceberg.Snapshot::sequenceNumber));
    org.apache.iceberg.DataFile target = euFile(customers, history.get(0));

    org.apache.iceberg.Table other = icebergTable(PLAIN + ".db.other");
    org.apache.iceberg.DataFile foreign = euFile(other, other.currentSnapshot());
    List<String> otherCanaries =
        LongStream.range(1, 11)
            .mapToObj(id -> List.of(ssn(id).replace("RKS", "OTH"), email(id).replace("rks", "oth")))
            .flatMap(List::stream)
            .collect(Collectors.toList());
    assertSwapFails(target, objectBytes(foreign), "a file of db.other", otherCanaries);

    // A replay: the second insert's file over the first one's (an older file over a newer
    // one works the same way).
    org.apache.iceberg.DataFile newer = euFile(customers, history.get(1));
    List<String> newerCanaries =
        LongStream.range(11, 21)
            .mapToObj(id -> List.of(ssn(id), email(id)))
            .flatMap(List::stream)
            .collect(Collectors.toList());
    assertSwapFails(target, objectBytes(newer), "a newer file of the same table", newerCanaries);

    assertThat(
            spark.sql("SELECT count(*) FROM as_alice." + TABLE).collectAsList().get(0).getLong(0))
        .as("the table reads again once its file is back")
        .isGreaterThanOrEqualTo(20L);
  }

  private void assertSwapFails(
      org.apache.iceberg.DataFile target, byte[] swapped, String what, List<String> canaries) {
    String key = objectKey(target.location());
    byte[] original = objectBytes(target);
    store.put(key, swapped);
    try {
      List<Row> rows = new ArrayList<>();
      Throwable e =
          catchThrowable(
              () ->
                  rows.addAll(
                      spark
                          .sql("SELECT " + QUERY_COLUMNS + " FROM as_alice." + TABLE)
                          .collectAsList()));
      System.out.printf(
          "[it] %s over %s (%d bytes for %d): %s%n",
          what, key, swapped.length, original.length, rootCause(e));
      assertThat(rows).as("rows returned with %s swapped in", what).isEmpty();
      assertThat(e).as("reading with %s swapped in", what).isNotNull();
      String text = fullText(e);
      assertThat(text)
          .contains(
              "io.icebergprotector.spark.binding.FileIntegrityException: Integrity check"
                  + " failed for data file "
                  + target.location())
          .contains("it is not the file the table expects");
      assertThat(canaries).allSatisfy(c -> assertThat(text).doesNotContain(c));
    } finally {
      store.put(key, original);
    }
  }

  private static org.apache.iceberg.DataFile euFile(
      org.apache.iceberg.Table table, org.apache.iceberg.Snapshot snapshot) {
    for (org.apache.iceberg.DataFile file : snapshot.addedDataFiles(table.io())) {
      if (file.location().contains("/region=eu/")) {
        return file;
      }
    }
    throw new AssertionError("no file of region eu in snapshot " + snapshot.snapshotId());
  }

  org.apache.iceberg.Table icebergTable(String name) {
    try {
      return org.apache.iceberg.spark.Spark3Util.loadIcebergTable(spark, name);
    } catch (Exception e) {
      throw new IllegalStateException("Cannot load " + name, e);
    }
  }

  private static String objectKey(String location) {
    String prefix = "s3://" + BUCKET + "/";
    assertThat(location).startsWith(prefix);
    return location.substring(prefix.length());
  }

  private byte[] objectBytes(org.apache.iceberg.DataFile file) {
    try (software.amazon.awssdk.services.s3.S3Client s3 = store.newClient()) {
      return s3.getObjectAsBytes(b -> b.bucket(store.bucket()).key(objectKey(file.location())))
          .asByteArray();
    }
  }

  // ------------------------------------------------------------------ helpers

  ProtectingSparkCatalog catalog(String name) {
    SparkSession.setActiveSession(spark); // catalogs load with the active session's SQL conf
    return (ProtectingSparkCatalog) spark.sessionState().catalogManager().catalog(name);
  }

  /** Audit events matching every non-null argument. */
  List<Map<String, Object>> events(String principal, String op, String key, String decision) {
    return keyServer.auditEvents().stream()
        .filter(e -> principal == null || principal.equals(e.get("principal")))
        .filter(e -> op == null || op.equals(e.get("op")))
        .filter(e -> key == null || key.equals(e.get("key")))
        .filter(e -> decision == null || decision.equals(e.get("decision")))
        .collect(Collectors.toList());
  }

  private void assertNoSecretIn(String where, String text) {
    for (String secret : secrets) {
      assertThat(text.contains(secret))
          .as("a credential (%s...) appears in %s", secret.substring(0, 6), where)
          .isFalse();
    }
  }

  private void assertNothingAtRest(String entryPoint, long fromId, long toIdExclusive) {
    BucketScan scan = BucketScan.of(store);
    String prefix = "warehouse/db/customers/";
    List<Hit> hits = scan.find(protectedCanaries(fromId, toIdExclusive));
    System.out.printf(
        "[it] after %s: %d objects %s; protected canary hits: %d%n",
        entryPoint, scan.objects().size(), scan.countByKind(), hits.size());
    for (Kind kind : List.of(Kind.DATA, Kind.MANIFEST, Kind.MANIFEST_LIST, Kind.METADATA_JSON)) {
      assertThat(scan.keys(prefix, kind)).as("%s files after %s", kind, entryPoint).isNotEmpty();
    }
    assertThat(hits)
        .as("plaintext of protected columns in the bucket after %s", entryPoint)
        .isEmpty();
    // Positive control: the unprotected column is stored in clear (uncompressed).
    assertThat(scan.find(List.of(Canary.text(name(fromId)))))
        .as("unprotected canary %s in data files", name(fromId))
        .anyMatch(h -> h.kind() == Kind.DATA);
  }

  List<Long> snapshotIds() {
    return spark
        .sql("SELECT snapshot_id FROM " + PLAIN + "." + TABLE + ".snapshots ORDER BY committed_at")
        .collectAsList()
        .stream()
        .map(r -> r.getLong(0))
        .collect(Collectors.toList());
  }

  List<String> dataFileKeys() {
    return store.listKeys().stream()
        .filter(k -> k.startsWith("warehouse/db/customers/data/") && k.endsWith(".parquet"))
        .collect(Collectors.toList());
  }

  /** Messages and stack traces of the whole cause chain. */
  static String fullText(Throwable e) {
    StringWriter out = new StringWriter();
    e.printStackTrace(new PrintWriter(out));
    return out.toString();
  }

  static String rootCause(Throwable e) {
    if (e == null) {
      return "(no error)";
    }
    Throwable t = e;
    while (t.getCause() != null && t.getCause() != t) {
      t = t.getCause();
    }
    return t.getClass().getSimpleName() + ": " + t.getMessage();
  }
}
