/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.spark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.icebergprotector.kms.KeyDestroyedException;
import io.icebergprotector.kms.LocalKeyService;
import io.icebergprotector.kms.Passphrase;
import io.icebergprotector.spark.actions.RewriteProtected;
import io.icebergprotector.spark.core.ProtectionSpec;
import io.icebergprotector.spark.core.ProtectorException;
import io.icebergprotector.spark.core.RecordedColumns;
import io.icebergprotector.spark.crypto.KeyServiceRegistry;
import io.icebergprotector.spark.crypto.ProtectorCrypto;
import io.icebergprotector.spark.inspect.ColumnReport;
import io.icebergprotector.spark.inspect.FooterReport;
import io.icebergprotector.spark.inspect.KeyMaterial;
import io.icebergprotector.spark.inspect.ParquetFooterInspector;
import io.icebergprotector.spark.table.ProtectedTable;
import io.icebergprotector.spark.testing.TestSessions;
import io.icebergprotector.testing.LocalCatalog;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.OptionalInt;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.connector.catalog.Identifier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Keys and policies change under live tables: rotation and re-encryption, protecting existing data,
 * policy and schema evolution, and crypto-shredding. Each policy change is picked up by a new
 * session, whose catalogs read the policy again.
 */
class KeyLifecycleTest {
  private static final String BASE_POLICY =
      String.join(
          "\n",
          "protector {",
          "  roles { admin { users = [\"alice\"] }, analyst { users = [\"bob\"] }, etl { users = [\"etl\"] } }",
          "  keys { pii {}, pii2 {}, fin {}, footer {} }",
          "  tables {",
          "    \"db.rot\" { footer-key = footer, writers = [etl, admin], columns {",
          "      ssn { key = pii, clear = [admin], masked { analyst = \"partial(keep_last=4)\" } }",
          "      salary { key = fin, clear = [admin] } } }",
          "    \"db.evolve\" { footer-key = footer, writers = [etl, admin], columns {",
          "      ssn { key = pii, clear = [admin], masked { analyst = \"partial(keep_last=4)\" } }",
          "      email { key = pii, clear = [admin] }",
          "      age { key = fin, clear = [admin] } } }",
          "    \"db.shred\" { footer-key = footer, writers = [etl, admin], columns {",
          "      ssn { key = pii, clear = [admin] }",
          "      salary { key = fin, clear = [admin], on-denied = fail }",
          "      bonus { key = fin, clear = [admin] } } }",
          "    %EXTRA%",
          "  }",
          "}");

  private static SparkSession root;
  private static SparkSession spark;
  private static Path dir;
  private static Path policy;
  private static Path keystore;
  private static Path passphrase;

  @BeforeAll
  static void start() throws IOException {
    dir = Files.createTempDirectory("protector-lifecycle");
    LocalCatalog files =
        LocalCatalog.create(dir, BASE_POLICY.replace("%EXTRA%", ""), "lifecycle-passphrase");
    policy = files.policyFile();
    keystore = files.keystore();
    passphrase = files.passphraseFile();
    root =
        TestSessions.withCatalog(TestSessions.protector("key-lifecycle"), "lc", files, "alice")
            .config("spark.sql.catalog.lc.cache-enabled", "false")
            .getOrCreate();
    spark = root;
    spark.sql("CREATE NAMESPACE IF NOT EXISTS lc.db");
  }

  @AfterAll
  static void stop() {
    TestSessions.stop(root);
  }

  private static void writePolicy(String extraTables) throws IOException {
    Files.writeString(policy, BASE_POLICY.replace("%EXTRA%", extraTables));
  }

  /** A new session re-reads the policy (catalogs are per session). */
  private static void reloadPolicy(String policyText) throws IOException {
    Files.writeString(policy, policyText);
    spark = root.newSession();
    SparkSession.setActiveSession(spark);
  }

  private static List<Row> as(String user, String sql) {
    spark.conf().set("spark.sql.catalog.lc.protector.user", user);
    try {
      return spark.sql(sql).collectAsList();
    } finally {
      spark.conf().set("spark.sql.catalog.lc.protector.user", "alice");
    }
  }

  private static LocalKeyService keys() {
    return LocalKeyService.open(keystore, Passphrase.fromFile(passphrase), false);
  }

  private static List<Path> dataFiles(String table) throws IOException {
    try (Stream<Path> files =
        Files.walk(dir.resolve("warehouse").resolve(table.replace('.', '/')))) {
      return files.filter(f -> f.toString().endsWith(".parquet")).collect(Collectors.toList());
    }
  }

  private static List<Path> liveDataFiles(String table) {
    return spark.sql("SELECT file_path FROM lc." + table + ".files").collectAsList().stream()
        .map(r -> Path.of(java.net.URI.create(r.getString(0))))
        .collect(Collectors.toList());
  }

  /** The file binding of {@code lc.<table>}. */
  private static io.icebergprotector.spark.crypto.FileBinding binding(String table) {
    try {
      return io.icebergprotector.spark.crypto.FileBinding.of(
          org.apache.iceberg.spark.Spark3Util.loadIcebergTable(spark, "lc." + table));
    } catch (Exception e) {
      throw new IllegalStateException("Cannot load lc." + table, e);
    }
  }

  private static ProtectionSpec spec(String table, String user) throws Exception {
    spark.conf().set("spark.sql.catalog.lc.protector.user", user);
    try {
      ProtectingSparkCatalog catalog =
          (ProtectingSparkCatalog) spark.sessionState().catalogManager().catalog("lc");
      return ((ProtectedTable) catalog.loadTable(Identifier.of(new String[] {"db"}, table)))
          .protection();
    } finally {
      spark.conf().set("spark.sql.catalog.lc.protector.user", "alice");
    }
  }

  /** The master-key versions of a column in each live file of a table. */
  private static List<Integer> columnKeyVersions(String table, String column) throws Exception {
    ProtectionSpec alice = spec(table.substring(table.indexOf('.') + 1), "alice");
    List<Integer> versions = new ArrayList<>();
    for (Path file : liveDataFiles(table)) {
      FooterReport report =
          ParquetFooterInspector.inspect(
              file, ProtectorCrypto.fileDecryption(alice, file.toString(), binding(table)));
      OptionalInt version =
          report
              .column(column)
              .flatMap(ColumnReport::keyMaterial)
              .map(KeyMaterial::masterKeyVersion)
              .orElse(OptionalInt.empty());
      versions.add(version.orElse(0));
    }
    Collections.sort(versions);
    return versions;
  }

  private static boolean anyFileContains(String table, String canary) throws IOException {
    byte[] needle = canary.getBytes(StandardCharsets.UTF_8);
    try (Stream<Path> files =
        Files.walk(dir.resolve("warehouse").resolve(table.replace('.', '/')))) {
      for (Path f : files.filter(Files::isRegularFile).collect(Collectors.toList())) {
        if (SparkTestBase.indexOf(Files.readAllBytes(f), needle) >= 0) {
          return true;
        }
      }
    }
    return false;
  }

  @Test
  void rotationNewWritesUseTheNewVersionAndRewriteUpgradesOldFiles() throws Exception {
    spark.sql("CREATE TABLE lc.db.rot (id BIGINT, ssn STRING, salary DECIMAL(10,2)) USING iceberg");
    spark.sql("INSERT INTO lc.db.rot VALUES (1, 'ROT-SSN-1', 10.00), (2, 'ROT-SSN-2', 20.00)");
    assertThat(columnKeyVersions("db.rot", "ssn")).containsOnly(1);
    int firstFiles = liveDataFiles("db.rot").size();

    try (LocalKeyService keys = keys()) {
      assertThat(keys.rotateKey("pii").latestVersion()).isEqualTo(2);
    }
    spark.sql("INSERT INTO lc.db.rot VALUES (3, 'ROT-SSN-3', 30.00)");
    assertThat(columnKeyVersions("db.rot", "ssn")).containsOnly(1, 2).contains(1, 2);
    long before =
        spark
            .sql("SELECT snapshot_id FROM lc.db.rot.snapshots ORDER BY committed_at DESC LIMIT 1")
            .first()
            .getLong(0);

    Row result =
        spark
            .sql("CALL lc.system.rewrite_protected(table => 'db.rot', min_key_version => 2)")
            .first();
    assertThat(result.getInt(0)).as("files rewritten").isEqualTo(firstFiles);
    assertThat(result.getLong(1)).as("bytes rewritten").isPositive();
    assertThat(result.getInt(2)).as("files added").isGreaterThanOrEqualTo(1);
    assertThat(columnKeyVersions("db.rot", "ssn")).containsOnly(2);

    // fin was never rotated: min_key_version 2 does not drag its files along forever
    Row again =
        spark
            .sql("CALL lc.system.rewrite_protected(table => 'db.rot', min_key_version => 2)")
            .first();
    assertThat(again.getInt(0)).isZero();

    assertThat(as("alice", "SELECT id, ssn FROM lc.db.rot ORDER BY id"))
        .extracting(r -> r.getString(1))
        .containsExactly("ROT-SSN-1", "ROT-SSN-2", "ROT-SSN-3");
    // readers of the snapshot before the rewrite still see the same rows
    assertThat(as("alice", "SELECT ssn FROM lc.db.rot VERSION AS OF " + before + " ORDER BY id"))
        .extracting(r -> r.getString(0))
        .containsExactly("ROT-SSN-1", "ROT-SSN-2", "ROT-SSN-3");
    assertThat(
            spark
                .sql("SELECT operation FROM lc.db.rot.snapshots ORDER BY committed_at DESC LIMIT 1")
                .first()
                .getString(0))
        .isEqualTo("replace");

    // compaction decrypts and re-encrypts under the current key versions as well
    try (LocalKeyService keys = keys()) {
      assertThat(keys.rotateKey("pii").latestVersion()).isEqualTo(3);
    }
    spark.sql("INSERT INTO lc.db.rot VALUES (4, 'ROT-SSN-4', 40.00)");
    assertThat(columnKeyVersions("db.rot", "ssn")).containsOnly(2, 3).contains(2, 3);
    Row compacted =
        spark
            .sql(
                "CALL lc.system.rewrite_data_files(table => 'db.rot',"
                    + " options => map('rewrite-all', 'true'))")
            .first();
    assertThat(compacted.getInt(1)).as("files added").isEqualTo(1);
    assertThat(columnKeyVersions("db.rot", "ssn")).containsExactly(3);
    assertThat(as("alice", "SELECT id, ssn FROM lc.db.rot ORDER BY id"))
        .extracting(r -> r.getString(1))
        .containsExactly("ROT-SSN-1", "ROT-SSN-2", "ROT-SSN-3", "ROT-SSN-4");
  }

  @Test
  void protectingAnExistingPlainTable() throws Exception {
    spark.sql("CREATE TABLE lc.db.legacy (id BIGINT, ssn STRING, note STRING) USING iceberg");
    spark.sql(
        "INSERT INTO lc.db.legacy VALUES (1, 'LEGACY-SSN-1', 'n1'), (2, 'LEGACY-SSN-2', 'n2')");
    assertThat(anyFileContains("db.legacy", "LEGACY-SSN-1")).isTrue();
    int plaintextFiles = liveDataFiles("db.legacy").size();

    reloadPolicy(
        BASE_POLICY.replace(
            "%EXTRA%",
            "\"db.legacy\" { footer-key = footer, writers = [etl, admin], columns {"
                + " ssn { key = pii, clear = [admin] } } }"));
    spark.sql("INSERT INTO lc.db.legacy VALUES (3, 'LEGACY-SSN-3', 'n3')");
    // mixed plaintext and encrypted files read correctly, per role
    assertThat(as("alice", "SELECT ssn FROM lc.db.legacy ORDER BY id"))
        .extracting(r -> r.getString(0))
        .containsExactly("LEGACY-SSN-1", "LEGACY-SSN-2", "LEGACY-SSN-3");
    assertThat(as("bob", "SELECT ssn FROM lc.db.legacy")).allMatch(r -> r.isNullAt(0));

    RewriteProtected.Result result = RewriteProtected.of(spark, "lc.db.legacy").execute();
    assertThat(result.reasons()).containsKey("plaintext");
    assertThat(result.rewrittenFiles()).isEqualTo(plaintextFiles);
    spark.sql(
        "CALL lc.system.expire_snapshots(table => 'db.legacy', older_than => TIMESTAMP '2999-01-01', retain_last => 1)");
    assertThat(anyFileContains("db.legacy", "LEGACY-SSN-1"))
        .as("plaintext gone after expiry")
        .isFalse();
    assertThat(as("alice", "SELECT ssn FROM lc.db.legacy ORDER BY id"))
        .extracting(r -> r.getString(0))
        .containsExactly("LEGACY-SSN-1", "LEGACY-SSN-2", "LEGACY-SSN-3");
  }

  private static String recordedColumns(String table) throws Exception {
    ProtectingSparkCatalog catalog =
        (ProtectingSparkCatalog) spark.sessionState().catalogManager().catalog("lc");
    return ((org.apache.iceberg.spark.source.SparkTable)
            catalog.loadTable(Identifier.of(new String[] {"db"}, table)))
        .table()
        .properties()
        .get(RecordedColumns.PROPERTY);
  }

  private static String refusal(String sql) {
    try {
      spark.sql(sql);
    } catch (ProtectorException e) {
      return e.getMessage();
    }
    throw new AssertionError("not refused: " + sql);
  }

  private static String recEntry(String table, String salaryOptions) {
    return "\"db."
        + table
        + "\" { footer-key = footer, writers = [etl, admin], columns {"
        + " ssn { key = pii, clear = [admin] }"
        + (salaryOptions == null
            ? ""
            : ", salary { key = pii2, clear = [admin]" + salaryOptions + " }")
        + " } }\n";
  }

  /**
   * A table protected by {@code rewrite_protected} and one protected from its creation go through
   * the same policy changes with the same outcome: writes refused, denied readers get NULL, and
   * {@code on-denied = fail} is a one-line error on the driver naming the column and its key.
   */
  @Test
  void rewriteOfAPlaintextTableRecordsProtectionLikeAProtectedWrite() throws Exception {
    spark.sql("CREATE TABLE lc.db.recorded (id BIGINT, ssn STRING, salary INT) USING iceberg");
    spark.sql("INSERT INTO lc.db.recorded VALUES (1, 'REC-SSN-1', 101), (2, 'REC-SSN-2', 102)");
    assertThat(recordedColumns("recorded")).isNull();

    reloadPolicy(BASE_POLICY.replace("%EXTRA%", recEntry("recorded", "") + recEntry("always", "")));
    spark.sql("CREATE TABLE lc.db.always (id BIGINT, ssn STRING, salary INT) USING iceberg");
    spark.sql("INSERT INTO lc.db.always VALUES (1, 'REC-SSN-1', 101), (2, 'REC-SSN-2', 102)");
    RewriteProtected.Result result = RewriteProtected.of(spark, "lc.db.recorded").execute();
    assertThat(result.reasons()).containsKey("plaintext");
    assertThat(recordedColumns("recorded"))
        .isEqualTo(recordedColumns("always"))
        .contains("ssn=", "salary=");
    // a table encrypted before its columns were recorded gets them from a rewrite with nothing to
    // do
    String recorded = recordedColumns("always");
    ProtectingSparkCatalog catalog =
        (ProtectingSparkCatalog) spark.sessionState().catalogManager().catalog("lc");
    ((org.apache.iceberg.spark.source.SparkTable)
            catalog.loadTable(Identifier.of(new String[] {"db"}, "always")))
        .table()
        .updateProperties()
        .remove(RecordedColumns.PROPERTY)
        .commit();
    assertThat(recordedColumns("always")).isNull();
    assertThat(RewriteProtected.of(spark, "lc.db.always").execute().rewrittenFiles()).isZero();
    assertThat(recordedColumns("always")).isEqualTo(recorded);

    reloadPolicy(
        BASE_POLICY.replace(
            "%EXTRA%",
            recEntry("recorded", ", on-denied = fail") + recEntry("always", ", on-denied = fail")));
    for (String table : List.of("recorded", "always")) {
      assertThatThrownBy(() -> as("etl", "SELECT id, salary FROM lc.db." + table))
          .isInstanceOf(ProtectorException.class)
          .hasMessageContaining("column 'salary' (key 'pii2') of table db." + table)
          .hasMessageContaining("on-denied = fail")
          .satisfies(e -> assertThat(e.getMessage()).doesNotContain("\n"));
    }

    // the policy drops salary: both tables refuse writes the same way...
    reloadPolicy(
        BASE_POLICY.replace("%EXTRA%", recEntry("recorded", null) + recEntry("always", null)));
    String rewritten = refusal("INSERT INTO lc.db.recorded VALUES (3, 'REC-SSN-3', 103)");
    String always = refusal("INSERT INTO lc.db.always VALUES (3, 'REC-SSN-3', 103)");
    assertThat(rewritten)
        .contains("Cannot write to db.recorded", "[salary] are no longer protected");
    assertThat(rewritten.replace("db.recorded", "db.always")).isEqualTo(always);
    // ...and a reader that cannot get pii2 reads NULL, not a decryption failure in a task
    for (String table : List.of("recorded", "always")) {
      assertThat(as("etl", "SELECT salary FROM lc.db." + table + " ORDER BY id"))
          .hasSize(2)
          .allMatch(r -> r.isNullAt(0));
      assertThat(as("alice", "SELECT ssn FROM lc.db." + table + " ORDER BY id"))
          .extracting(r -> r.getString(0))
          .containsExactly("REC-SSN-1", "REC-SSN-2");
    }
  }

  @Test
  void createTableAsSelectRecordsProtection() throws Exception {
    reloadPolicy(BASE_POLICY.replace("%EXTRA%", recEntry("ctas", "")));
    spark.sql(
        "CREATE TABLE lc.db.ctas USING iceberg AS"
            + " SELECT CAST(1 AS BIGINT) AS id, 'CTAS-SSN-1' AS ssn, 7 AS salary");
    assertThat(recordedColumns("ctas")).contains("ssn=", "salary=");
  }

  @Test
  void schemaAndPolicyEvolution() throws Exception {
    spark.sql(
        "CREATE TABLE lc.db.evolve (id BIGINT, ssn STRING, email STRING, age INT, note STRING) USING iceberg");
    spark.sql("INSERT INTO lc.db.evolve VALUES (1, 'EVO-SSN-1', 'evo1@x.test', 41, 'a')");

    // rename: protection follows the field id
    spark.sql("ALTER TABLE lc.db.evolve RENAME COLUMN ssn TO social");
    assertThat(spec("evolve", "bob").renamedColumns()).containsEntry("ssn", "social");
    assertThat(as("bob", "SELECT social FROM lc.db.evolve").get(0).getString(0))
        .isEqualTo("*****SN-1");
    spark.sql("INSERT INTO lc.db.evolve VALUES (2, 'EVO-SSN-2', 'evo2@x.test', 42, 'b')");
    assertThat(anyFileContains("db.evolve", "EVO-SSN-2")).isFalse();

    // type promotion of a protected column
    spark.sql("ALTER TABLE lc.db.evolve ALTER COLUMN age TYPE BIGINT");
    assertThat(as("alice", "SELECT age FROM lc.db.evolve ORDER BY id"))
        .extracting(r -> r.getLong(0))
        .containsExactly(41L, 42L);

    // adding columns and dropping a protected one
    spark.sql("ALTER TABLE lc.db.evolve ADD COLUMN extra STRING");
    spark.sql("ALTER TABLE lc.db.evolve DROP COLUMN age");
    spark.sql("INSERT INTO lc.db.evolve VALUES (3, 'EVO-SSN-3', 'evo3@x.test', 'c', 'x')");
    assertThat(as("alice", "SELECT count(*) FROM lc.db.evolve").get(0).getLong(0)).isEqualTo(3);

    // removing protection from a column with encrypted files is refused until a decrypt-rewrite
    reloadPolicy(
        BASE_POLICY
            .replace("%EXTRA%", "")
            .replace("      email { key = pii, clear = [admin] }\n", ""));
    assertThatThrownBy(
            () ->
                spark.sql(
                    "INSERT INTO lc.db.evolve VALUES (5, 'EVO-SSN-5', 'evo5@x.test', 'e', 'z')"))
        .hasStackTraceContaining("no longer protected")
        .hasStackTraceContaining("email");
    spark.sql("CALL lc.system.rewrite_protected(table => 'db.evolve', decrypt => true)");
    spark.sql("INSERT INTO lc.db.evolve VALUES (5, 'EVO-SSN-5', 'evo5@x.test', 'e', 'z')");
    assertThat(as("bob", "SELECT email FROM lc.db.evolve ORDER BY id"))
        .extracting(r -> r.getString(0))
        .containsExactly("evo1@x.test", "evo2@x.test", "evo3@x.test", "evo5@x.test");

    // a changed key applies to new writes, and the rewrite moves old files over
    reloadPolicy(
        BASE_POLICY
            .replace("%EXTRA%", "")
            .replace("      email { key = pii, clear = [admin] }\n", "")
            .replace(
                "ssn { key = pii, clear = [admin], masked { analyst = \"partial(keep_last=4)\" } }\n      age",
                "ssn { key = pii2, clear = [admin], masked { analyst = \"partial(keep_last=4)\" } }\n      age"));
    spark.sql("INSERT INTO lc.db.evolve VALUES (6, 'EVO-SSN-6', 'evo6@x.test', 'f', 'w')");
    RewriteProtected.Result changed = RewriteProtected.of(spark, "lc.db.evolve").execute();
    assertThat(changed.reasons()).containsKey("policy-change");
    ProtectionSpec alice = spec("evolve", "alice");
    for (Path file : liveDataFiles("db.evolve")) {
      FooterReport report =
          ParquetFooterInspector.inspect(
              file, ProtectorCrypto.fileDecryption(alice, file.toString(), binding("db.evolve")));
      // files keep the column's original name; ssn was renamed to social after they were written
      String ssnPath = report.column("social").isPresent() ? "social" : "ssn";
      assertThat(
              report
                  .column(ssnPath)
                  .flatMap(ColumnReport::keyMaterial)
                  .map(KeyMaterial::masterKeyId))
          .contains("pii2");
    }
  }

  @Test
  void cryptoShreddingMakesValuesUnrecoverable() throws Exception {
    spark.sql(
        "CREATE TABLE lc.db.shred (id BIGINT, ssn STRING, salary DECIMAL(10,2), bonus INT, note STRING) USING iceberg");
    spark.sql("INSERT INTO lc.db.shred VALUES (1, 'SHRED-SSN-1', 123.45, 7, 'kept')");
    assertThat(as("alice", "SELECT salary FROM lc.db.shred").get(0).getDecimal(0))
        .isEqualByComparingTo("123.45");
    ProtectionSpec alice = spec("shred", "alice");
    Path file = dataFiles("db.shred").get(0);
    FooterReport report =
        ParquetFooterInspector.inspect(
            file, ProtectorCrypto.fileDecryption(alice, file.toString(), binding("db.shred")));
    String material =
        report.column("salary").flatMap(ColumnReport::keyMaterial).orElseThrow().rawJson();
    String wrappedKek = material.replaceAll(".*\"wrappedKEK\"\\s*:\\s*\"([^\"]+)\".*", "$1");

    try (LocalKeyService keys = keys()) {
      keys.destroyKey("fin");
    }

    // salary says on-denied = fail: a clear "destroyed" error; other columns still read
    assertThatThrownBy(() -> as("alice", "SELECT salary FROM lc.db.shred"))
        .hasStackTraceContaining("destroyed")
        .hasStackTraceContaining("fin");
    assertThat(as("alice", "SELECT ssn, note FROM lc.db.shred").get(0).getString(0))
        .isEqualTo("SHRED-SSN-1");
    // bonus (same key, default on-denied = null) reads as NULL
    assertThat(as("alice", "SELECT bonus FROM lc.db.shred").get(0).isNullAt(0)).isTrue();

    // nothing on disk recovers the key: the keystore holds no material for it...
    KeyStore store = KeyStore.getInstance("PKCS12");
    try (var in = Files.newInputStream(keystore)) {
      store.load(in, Files.readString(passphrase).trim().toCharArray());
    }
    long finEntries =
        Collections.list(store.aliases()).stream()
            .filter(
                a ->
                    a.contains(
                        java.util.HexFormat.of().formatHex("fin".getBytes(StandardCharsets.UTF_8))))
            .filter(
                a -> {
                  try {
                    return store.isKeyEntry(a)
                        && store
                                .getKey(a, Files.readString(passphrase).trim().toCharArray())
                                .getEncoded()
                                .length
                            == 32;
                  } catch (Exception e) {
                    return false;
                  }
                })
            .count();
    assertThat(finEntries).as("AES key entries left for fin").isZero();
    // ...and the wrapped key in the file's footer can no longer be unwrapped, even from a fresh
    // state
    KeyServiceRegistry.clear();
    ProtectorCrypto.forgetAllCachedKeys();
    try (LocalKeyService keys = keys()) {
      assertThatThrownBy(() -> keys.unwrapKey(wrappedKek, "fin"))
          .isInstanceOf(KeyDestroyedException.class)
          .hasMessageContaining("key 'fin' was destroyed");
    }
    assertThatThrownBy(() -> as("alice", "SELECT salary FROM lc.db.shred"))
        .hasStackTraceContaining("destroyed");
  }

  /**
   * Issue 18: after a policy drops the only column of a key, nobody could unwrap the key any more,
   * so the documented decrypt-rewrite failed; {@code retired-keys} names who still may.
   */
  @Test
  void aRetiredKeyDecryptsForTheDecryptRewrite() throws Exception {
    String withSalary =
        "\"db.retire\" { footer-key = footer, writers = [etl, admin], columns {"
            + " ssn { key = pii, clear = [admin] }, salary { key = pii2, clear = [admin] } } }";
    String withoutSalary =
        "\"db.retire\" { footer-key = footer, writers = [etl, admin], columns {"
            + " ssn { key = pii, clear = [admin] } } }";
    String keys = "  keys { pii {}, pii2 {}, fin {}, footer {} }";
    reloadPolicy(BASE_POLICY.replace("%EXTRA%", withSalary));
    spark.sql("CREATE TABLE lc.db.retire (id BIGINT, ssn STRING, salary INT) USING iceberg");
    spark.sql("INSERT INTO lc.db.retire VALUES (1, 'RET-SSN-1', 4242), (2, 'RET-SSN-2', 4343)");
    try {
      // the policy drops salary: pii2 protects nothing any more, and nobody may unwrap it
      reloadPolicy(BASE_POLICY.replace("%EXTRA%", withoutSalary));
      assertThatThrownBy(
              () ->
                  spark.sql(
                      "CALL lc.system.rewrite_protected(table => 'db.retire', decrypt => true)"))
          .isInstanceOf(ProtectorException.class)
          .hasMessageContaining("may not decrypt retired column salary")
          .hasMessageContaining("cannot unwrap key 'pii2'")
          .hasMessageContaining(
              "no column uses key 'pii2' any more, so only a retired-keys entry lets anyone unwrap"
                  + " it; add one to the policy: retired-keys { pii2 { decrypt = [");
      assertThat(as("alice", "SELECT salary FROM lc.db.retire")).allMatch(r -> r.isNullAt(0));

      // an entry that lists none of the principal's roles says which one to add
      reloadPolicy(
          BASE_POLICY
              .replace("%EXTRA%", withoutSalary)
              .replace(keys, keys + "\n  retired-keys { pii2 { decrypt = [analyst] } }"));
      assertThatThrownBy(
              () ->
                  spark.sql(
                      "CALL lc.system.rewrite_protected(table => 'db.retire', decrypt => true)"))
          .isInstanceOf(ProtectorException.class)
          .hasMessageContaining("cannot unwrap key 'pii2': retired-keys lists [analyst] for key")
          .hasMessageContaining("retired-keys { pii2 { decrypt = [admin, analyst] } }");
      // the policy keeps pii2 as a retired key that admins may still unwrap
      reloadPolicy(
          BASE_POLICY
              .replace("%EXTRA%", withoutSalary)
              .replace(keys, keys + "\n  retired-keys { pii2 { decrypt = [admin] } }"));
      assertThat(as("bob", "SELECT salary FROM lc.db.retire")).allMatch(r -> r.isNullAt(0));
      spark.sql("CALL lc.system.rewrite_protected(table => 'db.retire', decrypt => true)");
      // salary is a plain column now, for everyone; ssn is still protected
      assertThat(as("bob", "SELECT salary, ssn FROM lc.db.retire ORDER BY id"))
          .extracting(r -> r.getInt(0), r -> r.isNullAt(1))
          .containsExactly(
              org.assertj.core.groups.Tuple.tuple(4242, true),
              org.assertj.core.groups.Tuple.tuple(4343, true));
      spark.sql("INSERT INTO lc.db.retire VALUES (3, 'RET-SSN-3', 4444)");
      assertThat(anyFileContains("db.retire", "RET-SSN-3")).isFalse();
    } finally {
      reloadPolicy(BASE_POLICY.replace("%EXTRA%", ""));
    }
  }

  /** Issue 18: a strict table accepts writes of protected and plain columns only. */
  @Test
  void strictTablesRefuseColumnsNobodyDecidedAbout() throws Exception {
    reloadPolicy(
        BASE_POLICY.replace(
            "%EXTRA%",
            "\"db.strict\" { footer-key = footer, writers = [etl, admin], strict = true,"
                + " plain-columns = [id], columns { ssn { key = pii, clear = [admin] } } }"));
    try {
      spark.sql("CREATE TABLE lc.db.strict (id BIGINT, ssn STRING, note STRING) USING iceberg");
      assertThatThrownBy(
              () -> spark.sql("INSERT INTO lc.db.strict VALUES (1, 'STRICT-SSN-1', 'n')"))
          .isInstanceOf(ProtectorException.class)
          .hasMessageContaining(
              "Cannot write table db.strict: column 'note' is neither protected"
                  + " nor listed in plain-columns");
      spark.sql("ALTER TABLE lc.db.strict DROP COLUMN note");
      spark.sql("ALTER TABLE lc.db.strict ADD COLUMN person STRUCT<ssn: STRING>");
      assertThatThrownBy(
              () ->
                  spark.sql(
                      "INSERT INTO lc.db.strict VALUES (1, 'STRICT-SSN-1', named_struct('ssn', 'STRICT-SSN-1'))"))
          .isInstanceOf(ProtectorException.class)
          .hasMessageContaining("column 'person.ssn' is named like a protected column");
      assertThat(anyFileContains("db.strict", "STRICT-SSN-1")).isFalse();
      spark.sql("ALTER TABLE lc.db.strict DROP COLUMN person");
      spark.sql("INSERT INTO lc.db.strict VALUES (1, 'STRICT-SSN-1')");
      assertThat(as("alice", "SELECT ssn FROM lc.db.strict").get(0).getString(0))
          .isEqualTo("STRICT-SSN-1");
      assertThat(anyFileContains("db.strict", "STRICT-SSN-1")).isFalse();
    } finally {
      reloadPolicy(BASE_POLICY.replace("%EXTRA%", ""));
    }
  }
}
