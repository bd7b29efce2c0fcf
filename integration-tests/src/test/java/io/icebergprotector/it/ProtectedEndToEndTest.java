/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.icebergprotector.it.harness.BucketScan;
import io.icebergprotector.it.harness.BucketScan.Canary;
import io.icebergprotector.it.harness.BucketScan.Hit;
import io.icebergprotector.it.harness.BucketScan.Kind;
import io.icebergprotector.it.harness.SharedSpark;
import io.icebergprotector.it.harness.StackTestBase;
import io.icebergprotector.testing.TestPolicy;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import java.util.stream.LongStream;
import org.apache.spark.TaskFailedReason;
import org.apache.spark.scheduler.SparkListener;
import org.apache.spark.scheduler.SparkListenerTaskEnd;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.api.java.UDF1;
import org.apache.spark.sql.api.java.UDF2;
import org.apache.spark.sql.types.DataTypes;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * The protector end to end, configured as a user would: {@code ProtectingSparkCatalog} over the
 * Iceberg REST catalog server, S3FileIO on the S3 server, a local keystore. Issue 6, point 3.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ProtectedEndToEndTest extends StackTestBase {
  static final String CATALOG = "prod";
  static final String PLAIN = "plain";
  static final String T = CATALOG + ".db.customers";
  static final String COLUMNS = "id, name, ssn, email, salary, address, region";
  static final String TABLE_PROPERTIES =
      " TBLPROPERTIES ('write.parquet.compression-codec'='uncompressed', 'format-version'='2')";
  static final String DDL_COLUMNS =
      "(id BIGINT, name STRING, ssn STRING, email STRING, salary BIGINT,"
          + " address STRUCT<street: STRING, zip: STRING>, region STRING)";

  protected Path keystore;
  protected Path passphraseFile;
  protected Path policyFile;

  // ------------------------------------------------------------------ canaries

  static String ssn(long id) {
    return String.format("SSN-CNRY-%04d", id);
  }

  static String email(long id) {
    return String.format("m%04d@cnry.io", id);
  }

  static long salary(long id) {
    return 7_100_000_000_000L + id;
  }

  static String zip(long id) {
    return String.format("ZIP-CNRY-%04d", id);
  }

  static String name(long id) {
    return String.format("NAME-CLR-%04d", id);
  }

  /** The source rows as SQL over {@code range}: canaries in every protected column. */
  static String sourceQuery(long fromInclusive, long toExclusive, int partitions) {
    return "SELECT id,"
        + " format_string('NAME-CLR-%04d', id) AS name,"
        + " format_string('SSN-CNRY-%04d', id) AS ssn,"
        + " format_string('m%04d@cnry.io', id) AS email,"
        + " 7100000000000 + id AS salary,"
        + " named_struct('street', concat('street ', id), 'zip', format_string('ZIP-CNRY-%04d', id))"
        + " AS address,"
        + " CASE WHEN id % 2 = 0 THEN 'eu' ELSE 'us' END AS region"
        + " FROM range("
        + fromInclusive
        + ", "
        + toExclusive
        + ", 1, "
        + partitions
        + ")";
  }

  static List<Canary> protectedCanaries(long fromInclusive, long toExclusive) {
    List<Canary> canaries = new ArrayList<>();
    LongStream.range(fromInclusive, toExclusive)
        .forEach(
            id -> {
              canaries.add(Canary.text(ssn(id)));
              canaries.add(Canary.text(email(id)));
              canaries.add(Canary.int64(salary(id)));
              canaries.add(Canary.text(zip(id)));
            });
    return canaries;
  }

  // ------------------------------------------------------------------ setup

  static String policy() {
    TestPolicy policy =
        TestPolicy.builder()
            .role("admin", "alice")
            .roleGroups("admin", "secops")
            .role("analyst", "bob")
            .role("etl", "etl")
            .keys("pii", "fin", "footer");
    for (String table :
        List.of("db.customers", "db.customers_fail", "db.customers_conc", "db.customers_outage")) {
      policy.table(table, TestPolicy.customersTable());
    }
    return policy.render();
  }

  @BeforeAll
  void setUpProtector() throws IOException {
    Path protector = Files.createDirectories(work.resolve("protector"));
    this.keystore = protector.resolve("keys.p12");
    this.passphraseFile = protector.resolve("passphrase");
    this.policyFile = protector.resolve("policy.conf");
    Files.writeString(passphraseFile, "it-" + UUID.randomUUID(), StandardCharsets.UTF_8);
    Files.writeString(policyFile, policy(), StandardCharsets.UTF_8);

    configureCatalog(
        CATALOG,
        "io.icebergprotector.spark.ProtectingSparkCatalog",
        protectedCatalogOptions(keystore, passphraseFile, true));
    // Plain Iceberg on the same REST catalog: metadata tables, and "a reader without the
    // protector".
    configureCatalog(PLAIN, "org.apache.iceberg.spark.SparkCatalog", restCatalogOptions());
    spark.conf().set("spark.sql.catalog." + CATALOG + ".protector.user", "etl");
    spark.sql("CREATE NAMESPACE IF NOT EXISTS " + CATALOG + ".db");
  }

  Map<String, String> protectedCatalogOptions(Path keys, Path passphrase, boolean createKeys) {
    Map<String, String> options = new LinkedHashMap<>(restCatalogOptions());
    options.put("protector.policy", policyFile.toString());
    options.put("protector.kms.keystore", keys.toString());
    options.put("protector.kms.passphrase-file", passphrase.toString());
    options.put("protector.kms.create-missing-keys", Boolean.toString(createKeys));
    options.put("protector.user", "etl");
    return options;
  }

  // ------------------------------------------------------------------ 1. nothing at rest

  @Test
  @Order(1)
  void everyWriteEntryPointLeavesNoPlaintextAtRest() throws Exception {
    // CTAS: ids 1..10
    spark.sql(
        "CREATE TABLE "
            + T
            + " USING iceberg PARTITIONED BY (region)"
            + TABLE_PROPERTIES
            + " AS "
            + sourceQuery(1, 11, 2));
    assertNothingAtRest("CTAS", 1, 11);

    // INSERT: ids 11..20
    spark.sql("INSERT INTO " + T + " " + sourceQuery(11, 21, 2));
    assertNothingAtRest("INSERT INTO", 1, 21);

    // DataFrameWriterV2 append: ids 21..30
    spark.sql(sourceQuery(21, 31, 2)).writeTo(T).append();
    assertNothingAtRest("writeTo().append()", 1, 31);

    // DataFrameWriterV2 overwritePartitions: ids 31..40 of region eu replace the eu partition
    spark.sql(sourceQuery(31, 41, 2)).where("region = 'eu'").writeTo(T).overwritePartitions();
    assertNothingAtRest("writeTo().overwritePartitions()", 1, 41);

    // us: odd ids 1..29 (15 rows); eu: 32, 34, 36, 38, 40
    assertThat(sqlAs("alice", "SELECT count(*) FROM " + T).get(0).getLong(0)).isEqualTo(20L);
    assertThat(sqlAs("alice", "SELECT id FROM " + T + " WHERE region = 'eu' ORDER BY id"))
        .extracting(r -> r.getLong(0))
        .containsExactly(32L, 34L, 36L, 38L, 40L);
    assertThat(snapshotIds("db.customers")).hasSize(4);
  }

  @Test
  @Order(2)
  void aReaderWithoutTheProtectorCannotReadTheFiles() {
    // Encrypted footers: plain Iceberg (no keys) cannot even open the data files.
    assertThatThrownBy(() -> spark.sql("SELECT * FROM " + PLAIN + ".db.customers").collectAsList())
        .satisfies(
            e ->
                System.out.println(
                    "[it] plain Iceberg reading the protected table: " + rootCause(e)))
        // parquet-mr's refusal: "Trying to read file with encrypted footer. No keys available"
        .hasStackTraceContaining("encrypted footer");
  }

  private void assertNothingAtRest(String entryPoint, long fromId, long toIdExclusive) {
    BucketScan scan = BucketScan.of(store);
    String prefix = "warehouse/db/customers/";
    Map<Kind, Integer> kinds = scan.countByKind();
    List<Hit> hits = scan.find(protectedCanaries(fromId, toIdExclusive));
    System.out.printf(
        "[it] after %s: %d objects %s; protected canary hits: %d%n",
        entryPoint, scan.objects().size(), kinds, hits.size());

    assertThat(scan.keys(prefix, Kind.DATA)).as("data files after %s", entryPoint).isNotEmpty();
    assertThat(scan.keys(prefix, Kind.MANIFEST)).isNotEmpty();
    assertThat(scan.keys(prefix, Kind.MANIFEST_LIST)).isNotEmpty();
    assertThat(scan.keys(prefix, Kind.METADATA_JSON)).isNotEmpty();
    assertThat(hits)
        .as(
            "plaintext of protected columns in the bucket after %s (data, manifests, manifest"
                + " lists, metadata JSON)",
            entryPoint)
        .isEmpty();
    // Positive control: the unprotected column is stored in clear, uncompressed, so the scan
    // would have seen a protected value stored the same way.
    List<Hit> clear = scan.find(List.of(Canary.text(name(fromId))));
    assertThat(clear)
        .as("unprotected canary %s in data files", name(fromId))
        .anyMatch(h -> h.kind() == Kind.DATA);
  }

  // ------------------------------------------------------------------ 2. per role

  @Test
  @Order(3)
  void eachRoleGetsItsView() {
    String q =
        "SELECT id, name, ssn, email, salary, address.street, address.zip FROM "
            + T
            + " WHERE id IN (7, 32) ORDER BY id";

    List<Row> admin = sqlAs("alice", q);
    assertThat(admin).hasSize(2);
    for (Row r : admin) {
      long id = r.getLong(0);
      assertThat(r.getString(1)).isEqualTo(name(id));
      assertThat(r.getString(2)).isEqualTo(ssn(id));
      assertThat(r.getString(3)).isEqualTo(email(id));
      assertThat(r.getLong(4)).isEqualTo(salary(id));
      assertThat(r.getString(5)).isEqualTo("street " + id);
      assertThat(r.getString(6)).isEqualTo(zip(id));
    }

    List<Row> analyst = sqlAs("bob", q);
    assertThat(analyst).hasSize(2);
    for (Row r : analyst) {
      long id = r.getLong(0);
      assertThat(r.getString(1)).isEqualTo(name(id));
      assertThat(r.getString(2))
          .as("ssn partial mask")
          .isEqualTo("*********" + String.format("%04d", id));
      assertThat(r.getString(3)).as("email hash mask").matches("[0-9a-f]{64}");
      assertThat(r.isNullAt(4)).as("salary denied to analyst").isTrue();
      assertThat(r.getString(5)).isEqualTo("street " + id);
      assertThat(r.isNullAt(6)).as("zip denied to analyst").isTrue();
    }
    assertThat(sqlAs("bob", q).get(0).getString(3))
        .as("hash mask is deterministic")
        .isEqualTo(analyst.get(0).getString(3));
    assertThat(analyst.get(0).getString(3)).isNotEqualTo(analyst.get(1).getString(3));
    assertThat(sqlAs("bob", "SELECT count(*) FROM " + T).get(0).getLong(0)).isEqualTo(20L);

    for (String user : List.of("etl", "mallory")) {
      for (Row r : sqlAs(user, q)) {
        assertThat(r.getString(1)).isEqualTo(name(r.getLong(0)));
        for (int col : new int[] {2, 3, 4, 6}) {
          assertThat(r.isNullAt(col)).as("%s: column %d is denied", user, col).isTrue();
        }
      }
    }
  }

  @Test
  @Order(4)
  void aNonWriterCannotWriteAndNothingIsCommitted() {
    List<Long> before = snapshotIds("db.customers");
    assertThatThrownBy(() -> sqlAs("bob", "INSERT INTO " + T + " " + sourceQuery(100, 102, 1)))
        .hasStackTraceContaining("bob")
        .hasStackTraceContaining("not a writer");
    assertThat(snapshotIds("db.customers")).isEqualTo(before);
  }

  // ------------------------------------------------------------------ 3. failure mid-write

  @Test
  @Order(5)
  void aTaskFailingMidWriteLeavesThePreviousSnapshot() throws Exception {
    String table = CATALOG + ".db.customers_fail";
    // Unpartitioned: no shuffle before the write, so the failing UDF runs inside a write task
    // while the other write tasks of the same stage finish and upload their files.
    spark.sql("CREATE TABLE " + table + " " + DDL_COLUMNS + " USING iceberg" + TABLE_PROPERTIES);
    spark.sql("INSERT INTO " + table + " " + sourceQuery(1, 11, 1));
    List<Long> snapshotsBefore = snapshotIds("db.customers_fail");
    List<String> dataBefore = dataFileKeys("warehouse/db/customers_fail/data/");

    spark
        .udf()
        .register(
            "fail_at",
            (UDF2<Long, Long, Long>)
                (id, at) -> {
                  if (id.equals(at)) {
                    // fail only once a sibling task of this stage has finished its file
                    siblingTaskSucceeded.await(60, TimeUnit.SECONDS);
                    throw new IllegalStateException("injected executor failure at id " + id);
                  }
                  return id;
                },
            DataTypes.LongType);

    siblingTaskSucceeded = new CountDownLatch(1);
    TaskCounter counter = new TaskCounter();
    spark.sparkContext().addSparkListener(counter);
    try {
      // 4 tasks of 10 rows (1000..1039); the last row of the last task fails.
      String failing =
          sourceQuery(1000, 1040, 4).replaceFirst("SELECT id,", "SELECT fail_at(id, 1039L) AS id,");
      assertThatThrownBy(() -> spark.sql("INSERT INTO " + table + " " + failing))
          .hasStackTraceContaining("injected executor failure at id 1039");
    } finally {
      spark.sparkContext().listenerBus().waitUntilEmpty();
      spark.sparkContext().removeSparkListener(counter);
    }
    System.out.printf(
        "[it] failed write: %d write tasks succeeded, %d failed: %s%n",
        counter.succeeded.get(), counter.failed.get(), counter.reasons);
    assertThat(counter.failed.get()).as("the injected task failure").isGreaterThanOrEqualTo(1);
    assertThat(counter.succeeded.get())
        .as("tasks that wrote files before the job failed")
        .isGreaterThanOrEqualTo(1);

    assertThat(snapshotIds("db.customers_fail")).as("no new snapshot").isEqualTo(snapshotsBefore);
    assertThat(sqlAs("alice", "SELECT count(*), max(id) FROM " + table).get(0))
        .satisfies(
            r -> {
              assertThat(r.getLong(0)).isEqualTo(10L);
              assertThat(r.getLong(1)).isEqualTo(10L);
            });
    assertThat(sqlAs("alice", "SELECT ssn FROM " + table + " WHERE id = 3").get(0).getString(0))
        .isEqualTo(ssn(3));
    List<String> dataAfter = dataFileKeys("warehouse/db/customers_fail/data/");
    System.out.printf(
        "[it] data files before %d, after the failed write %d%n",
        dataBefore.size(), dataAfter.size());
    assertThat(dataAfter)
        .as("files of the aborted write are deleted")
        .containsExactlyInAnyOrderElementsOf(dataBefore);
  }

  // Counted down by TaskCounter when a task succeeds; awaited by the failing write task's UDF.
  static volatile CountDownLatch siblingTaskSucceeded = new CountDownLatch(0);

  /** Counts the result-stage tasks of jobs while it is registered. */
  static final class TaskCounter extends SparkListener {
    final AtomicInteger succeeded = new AtomicInteger();
    final AtomicInteger failed = new AtomicInteger();
    final List<String> reasons = new CopyOnWriteArrayList<>();

    @Override
    public void onTaskEnd(SparkListenerTaskEnd end) {
      if (end.reason() instanceof TaskFailedReason) {
        failed.incrementAndGet();
        String text = ((TaskFailedReason) end.reason()).toErrorString();
        reasons.add(text.lines().findFirst().orElse(text));
      } else {
        succeeded.incrementAndGet();
        siblingTaskSucceeded.countDown();
      }
    }
  }

  // ------------------------------------------------------------------ 4. concurrency

  // Set by the concurrency test; read by its UDF inside the write task (local mode: same JVM).
  static volatile CountDownLatch firstWriterRunning = new CountDownLatch(0);
  static volatile CountDownLatch secondWriterCommitted = new CountDownLatch(0);

  @Test
  @Order(6)
  void twoSessionsAppendingConcurrentlyBothLand() throws Exception {
    String table = CATALOG + ".db.customers_conc";
    spark.sql("CREATE TABLE " + table + " " + DDL_COLUMNS + " USING iceberg" + TABLE_PROPERTIES);
    SparkSession first = protectedSession("etl");
    SparkSession second = protectedSession("alice");
    firstWriterRunning = new CountDownLatch(1);
    secondWriterCommitted = new CountDownLatch(1);
    // The first session's write task holds until the second session has committed, so the first
    // commits on a stale base: a real conflict that the commit must resolve, not a lucky order.
    first
        .udf()
        .register(
            "hold_for_other_writer",
            (UDF1<Long, Long>)
                id -> {
                  firstWriterRunning.countDown();
                  if (!secondWriterCommitted.await(120, TimeUnit.SECONDS)) {
                    throw new IllegalStateException(
                        "the second writer did not commit within 120 s");
                  }
                  return id;
                },
            DataTypes.LongType);

    ExecutorService pool = Executors.newFixedThreadPool(2);
    try {
      // One task each: local[2] keeps a core free for the second writer while the first waits.
      Future<?> a =
          pool.submit(
              () ->
                  first.sql(
                      "INSERT INTO "
                          + table
                          + " "
                          + sourceQuery(1, 21, 1)
                              .replaceFirst(
                                  "SELECT id,", "SELECT hold_for_other_writer(id) AS id,")));
      Future<?> b =
          pool.submit(
              () -> {
                try {
                  if (!firstWriterRunning.await(120, TimeUnit.SECONDS)) {
                    throw new IllegalStateException("the first writer did not start within 120 s");
                  }
                  second.sql("INSERT INTO " + table + " " + sourceQuery(101, 121, 1));
                } finally {
                  secondWriterCommitted.countDown();
                }
                return null;
              });
      b.get(180, TimeUnit.SECONDS);
      a.get(180, TimeUnit.SECONDS);
    } finally {
      secondWriterCommitted.countDown();
      pool.shutdownNow();
    }

    List<Row> snapshots =
        spark
            .sql(
                "SELECT snapshot_id, parent_id, summary['added-records']"
                    + " FROM "
                    + PLAIN
                    + ".db.customers_conc.snapshots ORDER BY committed_at")
            .collectAsList();
    System.out.println("[it] concurrent appends, snapshots (id, parent, added): " + snapshots);
    assertThat(snapshots).as("one snapshot per append").hasSize(2);
    assertThat(snapshots.get(1).get(1))
        .as("the later commit was rebased on the earlier one")
        .isEqualTo(snapshots.get(0).get(0));
    List<Long> ids =
        sqlAs("alice", "SELECT id FROM " + table + " ORDER BY id").stream()
            .map(r -> r.getLong(0))
            .collect(Collectors.toList());
    List<Long> expected = new ArrayList<>();
    IntStream.range(1, 21).forEach(i -> expected.add((long) i));
    IntStream.range(101, 121).forEach(i -> expected.add((long) i));
    assertThat(ids).containsExactlyElementsOf(expected);
    assertThat(sqlAs("alice", "SELECT ssn FROM " + table + " WHERE id = 115").get(0).getString(0))
        .isEqualTo(ssn(115));
    assertThat(sqlAs("alice", "SELECT ssn FROM " + table + " WHERE id = 5").get(0).getString(0))
        .isEqualTo(ssn(5));
  }

  /**
   * A new session of the shared SparkContext with the protected catalog, acting as {@code user}.
   */
  SparkSession protectedSession(String user) {
    SparkSession session = SharedSpark.newSession();
    String prefix = "spark.sql.catalog." + CATALOG;
    session.conf().set(prefix, "io.icebergprotector.spark.ProtectingSparkCatalog");
    protectedCatalogOptions(keystore, passphraseFile, true)
        .forEach((k, v) -> session.conf().set(prefix + "." + k, v));
    session.conf().set(prefix + ".protector.user", user);
    return session;
  }

  // ------------------------------------------------------------------ 5. key-service outage

  @Test
  @Order(7)
  void keyServiceOutageFailsTheWriteCleanly() throws Exception {
    String table = CATALOG + ".db.customers_outage";
    spark.sql("CREATE TABLE " + table + " " + DDL_COLUMNS + " USING iceberg" + TABLE_PROPERTIES);
    spark.sql("INSERT INTO " + table + " " + sourceQuery(1, 11, 2));
    List<Long> snapshotsBefore = snapshotIds("db.customers_outage");

    // A second catalog on the same warehouse whose key service is a copy of the keystore that
    // this JVM has never opened (no warm key caches), which then goes away.
    Path outageDir = Files.createDirectories(work.resolve("kms-outage"));
    Path keys = outageDir.resolve("keys.p12");
    Path passphrase = outageDir.resolve("passphrase");
    Files.copy(keystore, keys, StandardCopyOption.REPLACE_EXISTING);
    Files.copy(passphraseFile, passphrase, StandardCopyOption.REPLACE_EXISTING);
    SparkSession session = SharedSpark.newSession();
    String prefix = "spark.sql.catalog.kmsdown";
    session.conf().set(prefix, "io.icebergprotector.spark.ProtectingSparkCatalog");
    protectedCatalogOptions(keys, passphrase, false)
        .forEach((k, v) -> session.conf().set(prefix + "." + k, v));

    List<String> dataBefore = dataFileKeys("warehouse/db/customers_outage/data/");
    Path moved = outageDir.resolve("keys.p12.unavailable");
    Files.move(keys, moved);
    try {
      assertThatThrownBy(
              () ->
                  session.sql("INSERT INTO kmsdown.db.customers_outage " + sourceQuery(11, 21, 2)))
          .satisfies(
              e -> System.out.println("[it] write during the key-service outage: " + rootCause(e)))
          .hasStackTraceContaining("keys.p12");
    } finally {
      Files.move(moved, keys);
    }
    assertThat(snapshotIds("db.customers_outage")).as("no commit").isEqualTo(snapshotsBefore);
    assertThat(dataFileKeys("warehouse/db/customers_outage/data/"))
        .as("no files left behind")
        .containsExactlyInAnyOrderElementsOf(dataBefore);
    assertThat(sqlAs("alice", "SELECT count(*) FROM " + table).get(0).getLong(0)).isEqualTo(10L);
    assertThat(sqlAs("alice", "SELECT ssn, salary FROM " + table + " WHERE id = 4").get(0))
        .satisfies(
            r -> {
              assertThat(r.getString(0)).isEqualTo(ssn(4));
              assertThat(r.getLong(1)).isEqualTo(salary(4));
            });

    // Service back: the same write goes through and is readable by the main catalog.
    session.sql("INSERT INTO kmsdown.db.customers_outage " + sourceQuery(11, 21, 2));
    assertThat(snapshotIds("db.customers_outage")).hasSize(snapshotsBefore.size() + 1);
    assertThat(sqlAs("alice", "SELECT count(*) FROM " + table).get(0).getLong(0)).isEqualTo(20L);
    assertThat(sqlAs("alice", "SELECT ssn FROM " + table + " WHERE id = 17").get(0).getString(0))
        .isEqualTo(ssn(17));
  }

  @Test
  @Order(8)
  void finallyNoProtectedValueAnywhereInTheBucket() {
    List<Canary> canaries = new ArrayList<>(protectedCanaries(1, 41));
    canaries.addAll(protectedCanaries(100, 121));
    canaries.addAll(protectedCanaries(1000, 1040));
    BucketScan scan = BucketScan.of(store);
    System.out.printf(
        "[it] final bucket: %d objects %s%n", scan.objects().size(), scan.countByKind());
    assertThat(scan.find(canaries)).isEmpty();
  }

  // ------------------------------------------------------------------ helpers

  /** Runs a query as {@code user} through catalog {@code prod} in this class's session. */
  List<Row> sqlAs(String user, String query) {
    String key = "spark.sql.catalog." + CATALOG + ".protector.user";
    String previous = spark.conf().get(key);
    spark.conf().set(key, user);
    try {
      return spark.sql(query).collectAsList();
    } finally {
      spark.conf().set(key, previous);
    }
  }

  /** Snapshot ids of a table, oldest first, read through plain Iceberg (no protector). */
  List<Long> snapshotIds(String table) {
    return spark
        .sql("SELECT snapshot_id FROM " + PLAIN + "." + table + ".snapshots ORDER BY committed_at")
        .collectAsList()
        .stream()
        .map(r -> r.getLong(0))
        .collect(Collectors.toList());
  }

  List<String> dataFileKeys(String prefix) {
    return store.listKeys().stream()
        .filter(k -> k.startsWith(prefix) && k.endsWith(".parquet"))
        .collect(Collectors.toList());
  }

  static String rootCause(Throwable e) {
    Throwable t = e;
    while (t.getCause() != null && t.getCause() != t) {
      t = t.getCause();
    }
    return t.getClass().getSimpleName() + ": " + t.getMessage();
  }
}
