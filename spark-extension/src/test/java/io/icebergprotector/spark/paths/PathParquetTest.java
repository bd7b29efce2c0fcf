/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.spark.paths;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.icebergprotector.spark.core.ProtectorException;
import io.icebergprotector.spark.crypto.HashMaskKeys;
import io.icebergprotector.spark.crypto.KeyServiceRegistry;
import io.icebergprotector.spark.crypto.ProtectorCrypto;
import io.icebergprotector.spark.crypto.ProtectorUnshadedKmsClient;
import io.icebergprotector.spark.inspect.FooterReport;
import io.icebergprotector.spark.inspect.ParquetFooterInspector;
import io.icebergprotector.spark.masks.ExpectedMasks;
import io.icebergprotector.testing.TestPolicy;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.hadoop.conf.Configuration;
import org.apache.parquet.crypto.keytools.KeyToolkit;
import org.apache.parquet.crypto.keytools.PropertiesDrivenCryptoFactory;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Plain Spark Parquet under the policy's {@code paths}: {@code df.write.parquet} encrypts the
 * policy columns with Spark's own parquet-mr, {@code spark.read.parquet} gives each principal its
 * view, and other paths stay plaintext.
 */
class PathParquetTest extends PathSessionTest {
  static final int ROWS = 20;

  static String policy(Path root) {
    String base = "file:" + root.toAbsolutePath();
    return TestPolicy.builder()
        .role("admin", "alice")
        .role("analyst", "bob")
        .role("etl", "etl")
        .keys("pii", "fin", "footer")
        .path(
            base + "/pii/",
            p ->
                p.footerKey("footer")
                    .writers("etl", "admin")
                    .column(
                        "ssn",
                        c -> c.key("pii").clear("admin").masked("analyst", "partial(keep_last=4)"))
                    .column("email", c -> c.key("pii").clear("admin", "analyst"))
                    .column("phone", c -> c.key("pii").clear("admin").masked("analyst", "hash"))
                    .column("salary", c -> c.key("fin").clear("admin").masked("analyst", "redact"))
                    .column("birth", c -> c.key("pii").clear("admin").masked("analyst", "year"))
                    .column("tags", c -> c.key("pii").clear("admin"))
                    .column("address.zip", c -> c.key("pii").clear("admin")))
        .path(
            base + "/strict/",
            p ->
                p.footerKey("footer")
                    .writers("etl")
                    .column("salary", c -> c.key("fin").clear("admin").onDenied("fail")))
        .path(
            base + "/plainfooter/",
            p ->
                p.footerKey("footer")
                    .footerMode("plaintext")
                    .algorithm("AES_GCM_CTR_V1")
                    .writers("etl")
                    .column("ssn", c -> c.key("pii").clear("admin").masked("analyst", "redact")))
        .render();
  }

  static String source(int from, int to) {
    return "SELECT id,"
        + " format_string('NAME-CLR-%04d', id) AS name,"
        + " format_string('SSN-CNRY-%04d', id) AS ssn,"
        + " format_string('m%04d@cnry.io', id) AS email,"
        + " format_string('PH-CNRY-%04d', id) AS phone,"
        + " 7100000000000 + id AS salary,"
        + " date_add(DATE'1990-06-15', CAST(id AS INT)) AS birth,"
        + " array(format_string('TAG-CNRY-%04d', id)) AS tags,"
        + " named_struct('city', format_string('CITY-CLR-%04d', id),"
        + "   'zip', format_string('ZIP-CNRY-%04d', id)) AS address"
        + " FROM range("
        + from
        + ", "
        + to
        + ", 1, 2)";
  }

  static List<byte[]> canaries(int from, int to) {
    List<byte[]> out = new ArrayList<>();
    for (int id = from; id < to; id++) {
      for (String s :
          List.of(
              "SSN-CNRY-%04d", "m%04d@cnry.io", "PH-CNRY-%04d", "TAG-CNRY-%04d", "ZIP-CNRY-%04d")) {
        out.add(String.format(s, id).getBytes(StandardCharsets.UTF_8));
      }
      out.add(
          ByteBuffer.allocate(8)
              .order(ByteOrder.LITTLE_ENDIAN)
              .putLong(7_100_000_000_000L + id)
              .array());
    }
    return out;
  }

  @BeforeAll
  static void start() throws IOException {
    startSession("protector-paths", PathParquetTest::policy);
    asUser(
        "etl",
        () -> {
          spark.sql(source(0, ROWS)).write().parquet(dir("pii/customers"));
          spark.sql(source(0, ROWS)).write().parquet(dir("strict/payroll"));
          spark.sql(source(0, ROWS)).write().parquet(dir("plainfooter/people"));
          spark.sql(source(0, ROWS)).write().parquet(dir("open/people"));
          return null;
        });
  }

  static Map<Long, Row> readAs(String user, String relative) {
    return asUser(
        user,
        () -> {
          Map<Long, Row> rows = new TreeMap<>();
          for (Row r : spark.read().parquet(dir(relative)).collectAsList()) {
            rows.put(r.getLong(r.fieldIndex("id")), r);
          }
          return rows;
        });
  }

  static List<Path> parquetFiles(String relative) {
    try (Stream<Path> files = Files.walk(root.resolve(relative))) {
      return files
          .filter(p -> p.getFileName().toString().endsWith(".parquet"))
          .collect(Collectors.toList());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static List<String> filesContaining(String relative, List<byte[]> needles) throws IOException {
    List<String> hits = new ArrayList<>();
    try (Stream<Path> files = Files.walk(root.resolve(relative))) {
      for (Path file : files.filter(Files::isRegularFile).collect(Collectors.toList())) {
        byte[] bytes = Files.readAllBytes(file);
        for (byte[] needle : needles) {
          if (indexOf(bytes, needle) >= 0) {
            hits.add(
                file.getFileName()
                    + " contains "
                    + new String(needle, StandardCharsets.ISO_8859_1));
          }
        }
      }
    }
    return hits;
  }

  static int indexOf(byte[] haystack, byte[] needle) {
    outer:
    for (int i = 0; i <= haystack.length - needle.length; i++) {
      for (int j = 0; j < needle.length; j++) {
        if (haystack[i + j] != needle[j]) {
          continue outer;
        }
      }
      return i;
    }
    return -1;
  }

  // ------------------------------------------------------------------ at rest

  @Test
  void writeUnderPrefixLeavesNoCanaryAtRest() throws IOException {
    assertThat(parquetFiles("pii/customers")).isNotEmpty();
    assertThat(filesContaining("pii/customers", canaries(0, ROWS))).isEmpty();
    assertThat(
            filesContaining(
                "plainfooter/people", List.of("SSN-CNRY-0003".getBytes(StandardCharsets.UTF_8))))
        .isEmpty();
    // The search does find clear columns, which are stored as written (uncompressed).
    assertThat(
            filesContaining(
                "pii/customers", List.of("CITY-CLR-0003".getBytes(StandardCharsets.UTF_8))))
        .isNotEmpty();
  }

  @Test
  void filesOutsideEveryPrefixStayPlaintext() throws IOException {
    assertThat(
            filesContaining(
                "open/people", List.of("SSN-CNRY-0003".getBytes(StandardCharsets.UTF_8))))
        .isNotEmpty();
    for (Path file : parquetFiles("open/people")) {
      FooterReport report = ParquetFooterInspector.inspect(file);
      assertThat(report.encrypted()).isFalse();
      assertThat(report.footerMode()).isEqualTo(FooterReport.FooterMode.PLAINTEXT);
    }
    // and anyone reads them in full, even a principal without any role
    Map<Long, Row> rows = readAs("eve", "open/people");
    assertThat(rows.get(3L).<String>getAs("ssn")).isEqualTo("SSN-CNRY-0003");
  }

  @Test
  void footerShowsThePolicyColumnsEncrypted() {
    PathScope alice = scopeOf("alice");
    for (Path file : parquetFiles("pii/customers")) {
      FooterReport report =
          ParquetFooterInspector.inspect(
              file,
              ProtectorCrypto.fileDecryption(
                  alice.keyScope(), alice.policy(), file.toUri().toString()));
      assertThat(report.footerMode()).isEqualTo(FooterReport.FooterMode.ENCRYPTED);
      assertThat(report.algorithm()).containsIgnoringCase("GCM");
      assertThat(report.footerKey().orElseThrow().masterKeyId()).isEqualTo("footer");
      Map<String, String> keys = new TreeMap<>();
      report
          .columns()
          .forEach(
              c ->
                  keys.put(
                      c.path(),
                      c.encrypted()
                          ? c.keyMaterial().map(k -> k.masterKeyId()).orElse("footer-key")
                          : "plaintext"));
      assertThat(keys)
          .containsEntry("id", "plaintext")
          .containsEntry("name", "plaintext")
          .containsEntry("address.city", "plaintext")
          .containsEntry("ssn", "pii")
          .containsEntry("email", "pii")
          .containsEntry("phone", "pii")
          .containsEntry("birth", "pii")
          .containsEntry("tags.list.element", "pii")
          .containsEntry("address.zip", "pii")
          .containsEntry("salary", "fin");
    }
    for (Path file : parquetFiles("plainfooter/people")) {
      FooterReport report = ParquetFooterInspector.inspect(file);
      assertThat(report.footerMode()).isEqualTo(FooterReport.FooterMode.PLAINTEXT_SIGNED);
      assertThat(report.algorithm()).containsIgnoringCase("CTR");
      assertThat(report.column("ssn").orElseThrow().encrypted()).isTrue();
      assertThat(report.column("name").orElseThrow().encrypted()).isFalse();
    }
  }

  // ------------------------------------------------------------------ reads per role

  @Test
  void adminReadsEverythingClear() {
    Row r = readAs("alice", "pii/customers").get(3L);
    assertThat(r.<String>getAs("ssn")).isEqualTo("SSN-CNRY-0003");
    assertThat(r.<String>getAs("email")).isEqualTo("m0003@cnry.io");
    assertThat(r.<String>getAs("phone")).isEqualTo("PH-CNRY-0003");
    assertThat(r.<Long>getAs("salary")).isEqualTo(7_100_000_000_003L);
    assertThat(r.<java.sql.Date>getAs("birth").toLocalDate()).isEqualTo(LocalDate.of(1990, 6, 18));
    assertThat(r.getList(r.fieldIndex("tags"))).containsExactly("TAG-CNRY-0003");
    Row address = r.getStruct(r.fieldIndex("address"));
    assertThat(address.<String>getAs("zip")).isEqualTo("ZIP-CNRY-0003");
    assertThat(address.<String>getAs("city")).isEqualTo("CITY-CLR-0003");
  }

  @Test
  void analystSeesMasksAndNoDeniedColumns() {
    Map<Long, Row> rows = readAs("bob", "pii/customers");
    assertThat(rows).hasSize(ROWS);
    Row r = rows.get(3L);
    assertThat(r.<String>getAs("name")).isEqualTo("NAME-CLR-0003");
    assertThat(r.<String>getAs("ssn")).isEqualTo("*********0003");
    assertThat(r.<String>getAs("email")).isEqualTo("m0003@cnry.io");
    PathScope bob = scopeOf("bob");
    byte[] hashKey = HashMaskKeys.get(bob.keyScope(), bob.policy(), "pii");
    assertThat(r.<String>getAs("phone")).isEqualTo(ExpectedMasks.hashHex(hashKey, "PH-CNRY-0003"));
    assertThat(r.<Long>getAs("salary")).isZero();
    assertThat(r.<java.sql.Date>getAs("birth").toLocalDate()).isEqualTo(LocalDate.of(1990, 1, 1));
    assertThat(r.isNullAt(r.fieldIndex("tags"))).isTrue();
    Row address = r.getStruct(r.fieldIndex("address"));
    assertThat(address.isNullAt(address.fieldIndex("zip"))).isTrue();
    assertThat(address.<String>getAs("city")).isEqualTo("CITY-CLR-0003");
    // no clear value of a masked or denied column reaches the analyst
    String all = rows.values().stream().map(Row::toString).collect(Collectors.joining("\n"));
    assertThat(all).doesNotContain("SSN-CNRY", "PH-CNRY", "TAG-CNRY", "ZIP-CNRY", "71000000000");
  }

  @Test
  void principalWithoutRoleGetsNullsAndNeverNeedsTheirKeys() {
    // eve may unwrap no column key at all (only the footer key): had any protected column been
    // read, the key service would have refused its key and the query would have failed.
    Map<Long, Row> rows = readAs("eve", "pii/customers");
    assertThat(rows).hasSize(ROWS);
    Row r = rows.get(3L);
    assertThat(r.<String>getAs("name")).isEqualTo("NAME-CLR-0003");
    for (String column : List.of("ssn", "email", "phone", "salary", "birth", "tags")) {
      assertThat(r.isNullAt(r.fieldIndex(column))).as(column).isTrue();
    }
    Row address = r.getStruct(r.fieldIndex("address"));
    assertThat(address.isNullAt(address.fieldIndex("zip"))).isTrue();
    assertThat(address.<String>getAs("city")).isEqualTo("CITY-CLR-0003");
  }

  @Test
  void deniedColumnsArePrunedFromTheFileScan() {
    String plan =
        asUser(
            "eve",
            () ->
                spark
                    .read()
                    .parquet(dir("pii/customers"))
                    .queryExecution()
                    .executedPlan()
                    .toString());
    String readSchema = plan.substring(plan.indexOf("ReadSchema:"));
    assertThat(readSchema).contains("id:bigint", "name:string", "address:struct<city:string>");
    assertThat(readSchema)
        .doesNotContain("ssn", "email", "phone", "salary", "birth", "tags", "zip");
  }

  @Test
  void filtersOnMaskedOrDeniedColumnsAreNotPushedToParquet() {
    asUser(
        "bob",
        () -> {
          Dataset<Row> masked =
              spark.read().parquet(dir("pii/customers")).filter("ssn = '*********0003'");
          String plan = masked.queryExecution().executedPlan().toString();
          System.out.println("[paths] analyst, filter on masked ssn:\n" + plan);
          assertThat(pushedFilters(plan)).doesNotContain("EqualTo(ssn");
          assertThat(masked.collectAsList()).hasSize(1);
          // a clear value of a masked column matches nothing
          assertThat(
                  spark
                      .read()
                      .parquet(dir("pii/customers"))
                      .filter("ssn = 'SSN-CNRY-0003'")
                      .count())
              .isZero();
          // filters on clear columns are still pushed down
          Dataset<Row> clear =
              spark.read().parquet(dir("pii/customers")).filter("email = 'm0003@cnry.io'");
          assertThat(pushedFilters(clear.queryExecution().executedPlan().toString()))
              .contains("email");
          assertThat(clear.count()).isEqualTo(1);
          return null;
        });
    asUser(
        "eve",
        () -> {
          Dataset<Row> denied =
              spark.read().parquet(dir("pii/customers")).filter("ssn = 'SSN-CNRY-0003'");
          String plan = denied.queryExecution().executedPlan().toString();
          System.out.println("[paths] no role, filter on denied ssn:\n" + plan);
          assertThat(pushedFilters(plan)).doesNotContain("ssn");
          assertThat(plan).doesNotContain("ssn:string");
          assertThat(denied.count()).isZero();
          return null;
        });
  }

  private static String pushedFilters(String plan) {
    int at = plan.indexOf("PushedFilters:");
    return at < 0 ? "" : plan.substring(at, plan.indexOf(']', at) + 1);
  }

  @Test
  void sqlOnFilesAndSelfJoinsGetTheView() {
    List<Row> rows =
        asUser(
            "bob",
            () ->
                spark
                    .sql(
                        "SELECT a.ssn, b.phone FROM parquet.`"
                            + dir("pii/customers")
                            + "` a"
                            + " JOIN parquet.`"
                            + dir("pii/customers")
                            + "` b ON a.id = b.id WHERE a.id = 7")
                    .collectAsList());
    assertThat(rows).hasSize(1);
    assertThat(rows.get(0).getString(0)).isEqualTo("*********0007");
    assertThat(rows.get(0).getString(1)).hasSize(64).doesNotContain("PH-CNRY");

    List<Row> joined =
        asUser(
            "bob",
            () -> {
              Dataset<Row> df = spark.read().parquet(dir("pii/customers"));
              return df.as("a")
                  .join(df.as("b"), df.col("id").equalTo(df.col("id")))
                  .filter("a.id = 9")
                  .select("a.ssn", "b.email")
                  .collectAsList();
            });
    assertThat(joined).hasSize(1);
    assertThat(joined.get(0).getString(0)).isEqualTo("*********0009");
    assertThat(joined.get(0).getString(1)).isEqualTo("m0009@cnry.io");

    // a cached view serves the same principal's view
    asUser(
        "bob",
        () -> {
          Dataset<Row> cached = spark.read().parquet(dir("pii/customers")).cache();
          try {
            assertThat(cached.filter("id = 2").select("ssn").first().getString(0))
                .isEqualTo("*********0002");
          } finally {
            cached.unpersist();
          }
          return null;
        });
  }

  @Test
  void parquetTablesUnderThePrefixAreProtectedToo() {
    spark.sql("CREATE TABLE customers_tbl USING parquet LOCATION '" + dir("pii/customers") + "'");
    try {
      Row r =
          asUser(
              "bob",
              () ->
                  spark
                      .sql("SELECT ssn, salary FROM customers_tbl WHERE id = 4")
                      .collectAsList()
                      .get(0));
      assertThat(r.getString(0)).isEqualTo("*********0004");
      assertThat(r.getLong(1)).isZero();
      assertThatThrownBy(
              () ->
                  asUser(
                      "bob",
                      () ->
                          spark.sql("INSERT INTO customers_tbl " + source(50, 51)).collectAsList()))
          .isInstanceOf(ProtectorException.class)
          .hasMessageContaining("bob");
    } finally {
      spark.sql("DROP TABLE customers_tbl");
    }
  }

  @Test
  void onDeniedFailRefusesQueriesThatReadTheColumn() {
    asUser(
        "bob",
        () -> {
          assertThatThrownBy(() -> spark.read().parquet(dir("strict/payroll")).collectAsList())
              .isInstanceOf(ProtectorException.class)
              .hasMessageContaining("bob")
              .hasMessageContaining("'salary'")
              .hasMessageContaining("strict/payroll")
              .hasMessageContaining("on-denied = fail");
          assertThatThrownBy(
                  () ->
                      spark
                          .read()
                          .parquet(dir("strict/payroll"))
                          .filter("salary > 0")
                          .select("id")
                          .collectAsList())
              .isInstanceOf(ProtectorException.class)
              .hasMessageContaining("'salary'");
          // leaving it out works
          assertThat(spark.read().parquet(dir("strict/payroll")).select("id", "ssn").count())
              .isEqualTo(ROWS);
          return null;
        });
    Row r =
        asUser(
            "alice",
            () ->
                spark
                    .read()
                    .parquet(dir("strict/payroll"))
                    .filter("id = 3")
                    .collectAsList()
                    .get(0));
    assertThat(r.<Long>getAs("salary")).isEqualTo(7_100_000_000_003L);
  }

  @Test
  void plaintextFooterPrefixReadsPerRole() {
    assertThat(readAs("alice", "plainfooter/people").get(5L).<String>getAs("ssn"))
        .isEqualTo("SSN-CNRY-0005");
    assertThat(readAs("bob", "plainfooter/people").get(5L).<String>getAs("ssn")).isEqualTo("****");
    assertThat(readAs("eve", "plainfooter/people").get(5L).isNullAt(2)).isTrue();
  }

  // ------------------------------------------------------------------ writes

  @Test
  void nonWriterCannotWriteUnderThePrefix() {
    assertThatThrownBy(
            () ->
                asUser(
                    "bob",
                    () -> {
                      spark.sql(source(0, 2)).write().mode("append").parquet(dir("pii/customers"));
                      return null;
                    }))
        .isInstanceOf(ProtectorException.class)
        .hasMessageContaining("bob")
        .hasMessageContaining("pii/customers")
        .hasMessageContaining("[etl, admin]");
    assertThat(readAs("alice", "pii/customers")).hasSize(ROWS);
  }

  @Test
  void partitioningByAProtectedColumnIsRefused() {
    assertThatThrownBy(
            () ->
                asUser(
                    "etl",
                    () -> {
                      spark.sql(source(0, 2)).write().partitionBy("ssn").parquet(dir("pii/bypart"));
                      return null;
                    }))
        .isInstanceOf(ProtectorException.class)
        .hasMessageContaining("'ssn'");
    assertThat(Files.exists(root.resolve("pii/bypart"))).isFalse();
  }

  @Test
  void partitionedAndAppendedWritesAreEncryptedToo() throws IOException {
    asUser(
        "etl",
        () -> {
          spark
              .sql(source(100, 110))
              .selectExpr("*", "id % 2 AS part")
              .write()
              .partitionBy("part")
              .parquet(dir("pii/parted"));
          spark
              .sql(source(110, 120))
              .selectExpr("*", "id % 2 AS part")
              .write()
              .mode("append")
              .partitionBy("part")
              .parquet(dir("pii/parted"));
          return null;
        });
    assertThat(filesContaining("pii/parted", canaries(100, 120))).isEmpty();
    Map<Long, Row> rows = readAs("bob", "pii/parted");
    assertThat(rows).hasSize(20);
    assertThat(rows.get(111L).<String>getAs("ssn")).isEqualTo("*********0111");
  }

  @Test
  void aFileWithoutPolicyColumnsIsEncryptedUnderTheFooterKey() {
    asUser(
        "etl",
        () -> {
          spark
              .sql("SELECT id, format_string('NOTE-%04d', id) AS note FROM range(0, 5)")
              .write()
              .parquet(dir("pii/notes"));
          return null;
        });
    PathScope alice = scopeOf("alice");
    for (Path file : parquetFiles("pii/notes")) {
      FooterReport report =
          ParquetFooterInspector.inspect(
              file,
              ProtectorCrypto.fileDecryption(
                  alice.keyScope(), alice.policy(), file.toUri().toString()));
      assertThat(report.footerMode()).isEqualTo(FooterReport.FooterMode.ENCRYPTED);
      assertThat(report.columns()).allMatch(c -> c.encrypted() && c.encryptedWithFooterKey());
    }
    assertThat(readAs("eve", "pii/notes")).hasSize(5);
  }

  @Test
  void theDataFrameMustBeBuiltAgainAfterTheSessionChangesPrincipal() {
    Dataset<Row> asAlice = asUser("alice", () -> spark.read().parquet(dir("pii/customers")));
    assertThatThrownBy(() -> asUser("bob", asAlice::collectAsList))
        .isInstanceOf(ProtectorException.class)
        .hasMessageContaining("another principal");
  }

  // ------------------------------------------------------------------ interop

  @Test
  void plainParquetMrWithOurKmsClientDecrypts() throws IOException {
    PathScope alice = scopeOf("alice");
    KeyServiceRegistry.obtain(alice.keyScope(), alice.policy());
    Configuration conf = new Configuration();
    conf.set("parquet.crypto.factory.class", PropertiesDrivenCryptoFactory.class.getName());
    conf.set(KeyToolkit.KMS_CLIENT_CLASS_PROPERTY_NAME, ProtectorUnshadedKmsClient.class.getName());
    conf.set(KeyToolkit.KEY_ACCESS_TOKEN_PROPERTY_NAME, alice.keyScope().handle());
    assertThat(readSsns(conf)).hasSize(ROWS).allMatch(s -> s.startsWith("SSN-CNRY-"));
  }

  @Test
  void aMadeUpAccessTokenWithAPrincipalInTheConfigurationGetsNoKeys() {
    // A standalone reader cannot name a principal in its configuration: only a scope registered
    // by the protector (under its random handle) releases keys.
    Configuration conf = new Configuration();
    conf.set("parquet.crypto.factory.class", PropertiesDrivenCryptoFactory.class.getName());
    conf.set(KeyToolkit.KMS_CLIENT_CLASS_PROPERTY_NAME, ProtectorUnshadedKmsClient.class.getName());
    conf.set(KeyToolkit.KEY_ACCESS_TOKEN_PROPERTY_NAME, "interop-alice-" + System.nanoTime());
    conf.set("protector.policy", policyFile.toString());
    conf.set("protector.kms.keystore", keystore.toString());
    conf.set("protector.kms.passphrase-file", passphraseFile.toString());
    conf.set("protector.user", "alice");
    conf.set("spark.protector.user", "alice");
    assertThatThrownBy(() -> readSsns(conf))
        .hasRootCauseInstanceOf(org.apache.parquet.crypto.KeyAccessDeniedException.class)
        .hasStackTraceContaining("No Iceberg Protector key scope is registered in this JVM");
  }

  private static List<String> readSsns(Configuration conf) throws IOException {
    List<String> ssns = new ArrayList<>();
    for (Path file : parquetFiles("pii/customers")) {
      ssns.addAll(readStrings(file, conf, "ssn"));
    }
    return ssns;
  }
}
