/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.icebergprotector.it.harness.BucketScan;
import io.icebergprotector.it.harness.BucketScan.Canary;
import io.icebergprotector.it.harness.BucketScan.Kind;
import io.icebergprotector.it.harness.ProtectorServerProcess;
import io.icebergprotector.it.harness.StackTestBase;
import io.icebergprotector.kms.remote.RemoteKeyService;
import io.icebergprotector.spark.core.ProtectorException;
import io.icebergprotector.testing.TestPolicy;
import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Consumer;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.hadoop.fs.FileSystem;
import org.apache.spark.SparkException;
import org.apache.spark.sql.Row;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * The plain-Parquet path findings of issue 18 against the key server as a process: S3A on the S3
 * server and a local directory, each under a {@code paths} prefix of the server's policy, with
 * sessions configured as a user would ({@code spark.protector.kms.type=remote}, a token file per
 * principal, no local policy or keys). Each way around a prefix is refused or answered with the
 * principal's view; nothing under a prefix holds a protected value in clear.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class PlainParquetPathEscapeTest extends StackTestBase {
  static final int ROWS = 12;

  ProtectorServerProcess keyServer;
  Path local;

  String s3a(String relative) {
    return "s3a://" + BUCKET + "/" + relative;
  }

  String local(String relative) {
    return "file:" + local.resolve(relative);
  }

  String policy() {
    Consumer<TestPolicy.Column> ssn =
        c -> c.key("pii").clear("admin").masked("analyst", "partial(keep_last=4)");
    return TestPolicy.builder()
        .role("admin", "alice")
        .role("analyst", "bob")
        .role("etl", "etl")
        .role("keyadmin", "ops")
        .keys("pii", "pii-2019", "footer")
        .path(s3a("prot/"), p -> p.footerKey("footer").writers("etl").column("ssn", ssn))
        .path(local("prot/"), p -> p.footerKey("footer").writers("etl").column("ssn", ssn))
        .path(
            s3a("strict/"),
            p ->
                p.footerKey("footer")
                    .writers("etl")
                    .set("strict", "true")
                    .set("plain-columns", "[id, name]")
                    .column("ssn", ssn))
        .raw("  retired-keys { pii-2019 { decrypt = [admin] } }")
        .render();
  }

  static String source(int from, int to) {
    return "SELECT id, format_string('NAME-%04d', id) AS name,"
        + " format_string('987-65-%04d', id + 4300) AS ssn FROM range("
        + from
        + ", "
        + to
        + ", 1, 2)";
  }

  static List<Canary> canaries(int from, int to) {
    List<Canary> out = new ArrayList<>();
    for (int id = from; id < to; id++) {
      out.add(Canary.text(String.format("987-65-%04d", id + 4300)));
    }
    return out;
  }

  @Override
  protected void startMoreServers() {
    this.local = work.resolve("local");
    this.keyServer =
        ProtectorServerProcess.builder(
                getClass().getSimpleName() + ".protector-server", work.resolve("protector-server"))
            .policy(policy())
            .token("etl", "etl")
            .token("alice", "alice")
            .token("bob", "bob")
            .token("mallory", "mallory")
            .token("ops", "ops")
            .adminRoles("keyadmin")
            .build()
            .start();
  }

  @BeforeAll
  void setUpSession() throws IOException {
    Files.createDirectories(local);
    keyServer.awaitReady();
    keyServer.createKeys("ops", List.of("pii", "pii-2019", "footer"));
    spark.conf().set("spark.protector.kms.type", "remote");
    spark.conf().set("spark.protector.kms.url", keyServer.url());
    spark.conf().set("spark.protector.kms.trust-store", keyServer.certificate().toString());
    spark.conf().set("spark.protector.token-file", keyServer.tokenFile("etl").toString());
    store.s3aSettings().forEach(spark.conf()::set);
    spark.conf().set("spark.sql.parquet.compression.codec", "uncompressed");
    asUser(
        "etl",
        () -> {
          spark.sql(source(0, ROWS)).write().parquet(s3a("prot/base"));
          spark.sql(source(0, ROWS)).write().parquet(local("prot/base"));
          spark.sql(source(100, 104)).write().parquet(s3a("open/plain"));
          return null;
        });
  }

  @AfterAll
  void stopKeyServer() throws IOException {
    FileSystem.get(URI.create(s3a("")), spark.sessionState().newHadoopConf()).close();
    if (keyServer != null) {
      keyServer.close();
    }
  }

  /** Acts as {@code user}: the token decides the principal. */
  <T> T asUser(String user, Supplier<T> action) {
    String previous = spark.conf().get("spark.protector.token-file");
    spark.conf().set("spark.protector.token-file", keyServer.tokenFile(user).toString());
    try {
      return action.get();
    } finally {
      spark.conf().set("spark.protector.token-file", previous);
    }
  }

  void append(String user, String sql, String location, String... partitionBy) {
    asUser(
        user,
        () -> {
          spark.sql(sql).write().mode("append").partitionBy(partitionBy).parquet(location);
          return null;
        });
  }

  Map<Long, String> ssns(String user, String sql) {
    return asUser(
        user,
        () -> {
          Map<Long, String> out = new TreeMap<>();
          for (Row r : spark.sql(sql).collectAsList()) {
            out.put(r.getLong(0), r.isNullAt(1) ? null : r.getString(1));
          }
          return out;
        });
  }

  List<String> localCanaryHits(String relative, int from, int to) throws IOException {
    List<String> hits = new ArrayList<>();
    try (Stream<Path> files = Files.walk(local.resolve(relative))) {
      for (Path file : files.filter(Files::isRegularFile).collect(Collectors.toList())) {
        String bytes = new String(Files.readAllBytes(file), StandardCharsets.ISO_8859_1);
        for (int id = from; id < to; id++) {
          if (bytes.contains(String.format("987-65-%04d", id + 4300))) {
            hits.add(file.toString());
          }
        }
      }
    }
    return hits;
  }

  @Test
  @Order(1)
  void otherSpellingsOfAPrefixGetItsChecks() {
    for (String spelling : List.of(s3a("prot"), s3a("open/../prot"), local("prot"))) {
      assertThatThrownBy(() -> append("etl", source(0, 2), spelling, "ssn"))
          .as(spelling)
          .isInstanceOf(ProtectorException.class)
          .hasMessageContaining("partitioned or bucketed by protected column 'ssn'");
    }
    assertThatThrownBy(() -> append("bob", source(50, 52), s3a("open/../prot/bybob")))
        .isInstanceOf(ProtectorException.class)
        .hasMessageContaining("principal bob");
    assertThat(BucketScan.of(store).objects().keySet())
        .noneMatch(key -> key.contains("ssn=") || key.startsWith("prot/bybob"));
    assertThat(BucketScan.of(store).find(canaries(0, ROWS)))
        .noneMatch(hit -> hit.key().startsWith("prot/"));
  }

  @Test
  @Order(2)
  void aLinkToAProtectedDirectoryIsThatDirectory() throws IOException {
    Path alias = Files.createSymbolicLink(local.resolve("alias"), local.resolve("prot"));
    assertThatThrownBy(() -> append("bob", source(60, 62), "file:" + alias + "/bybob"))
        .isInstanceOf(ProtectorException.class)
        .hasMessageContaining("principal bob");
    append("etl", source(60, 64), "file:" + alias + "/vialink");
    assertThat(localCanaryHits("prot", 0, 64)).isEmpty();
    assertThat(ssns("bob", "SELECT id, ssn FROM parquet.`file:" + alias + "/vialink`").get(61L))
        .isEqualTo("*******4361");
  }

  @Test
  @Order(3)
  void aPartitionLocatedUnderThePrefixGetsTheView() {
    spark.sql(
        "CREATE TABLE esc_parted (id BIGINT, name STRING, ssn STRING, p INT) USING parquet"
            + " PARTITIONED BY (p) LOCATION '"
            + s3a("open/parted")
            + "'");
    try {
      asUser(
          "bob",
          () ->
              spark.sql(
                  "ALTER TABLE esc_parted ADD PARTITION (p = 1) LOCATION '"
                      + s3a("prot/base")
                      + "'"));
      Map<Long, String> bob = ssns("bob", "SELECT id, ssn FROM esc_parted");
      assertThat(bob).hasSize(ROWS);
      assertThat(bob.values()).allSatisfy(s -> assertThat(s).startsWith("*******43"));
      assertThat(ssns("alice", "SELECT id, ssn FROM esc_parted").get(9L)).isEqualTo("987-65-4309");
      assertThatThrownBy(
              () ->
                  asUser(
                      "etl",
                      () ->
                          spark
                              .sql("INSERT INTO esc_parted PARTITION (p = 1) " + source(70, 72))
                              .collectAsList()))
          .isInstanceOf(ProtectorException.class)
          .hasMessageContaining("partition location " + s3a("prot/base"));
    } finally {
      spark.sql("DROP TABLE esc_parted");
    }
  }

  @Test
  @Order(4)
  void plantedPlaintextFilesAreRefusedUnlessAccepted() {
    String plain = BucketScan.of(store).keys("open/plain/", Kind.DATA).get(0);
    String planted = "prot/planted/" + plain.substring(plain.lastIndexOf('/') + 1);
    try (S3Client s3 = store.newClient()) {
      s3.copyObject(
          b ->
              b.sourceBucket(BUCKET)
                  .sourceKey(plain)
                  .destinationBucket(BUCKET)
                  .destinationKey(planted));
    }
    // (SQL on files reports a failed schema inference without its cause; the reader names it)
    for (String user : List.of("alice", "bob")) {
      assertThatThrownBy(
              () -> asUser(user, () -> spark.read().parquet(s3a("prot/planted")).collectAsList()))
          .as(user)
          .isInstanceOf(SparkException.class)
          .hasStackTraceContaining("Refusing to read " + s3a(planted))
          .hasStackTraceContaining("plaintext Parquet file");
    }
    spark.conf().set("spark.protector.paths.accept-plaintext-files", "true");
    try {
      String query = "SELECT id, ssn FROM parquet.`" + s3a("prot/planted") + "`";
      assertThat(ssns("bob", query).values())
          .isNotEmpty()
          .allSatisfy(s -> assertThat(s).startsWith("*******44"));
    } finally {
      spark.conf().unset("spark.protector.paths.accept-plaintext-files");
    }
  }

  @Test
  @Order(5)
  void sqlOnFilesGivesEveryPrincipalItsView() {
    String query = "SELECT id, ssn FROM parquet.`" + s3a("prot/base") + "` WHERE id = 7";
    assertThat(ssns("alice", query).get(7L)).isEqualTo("987-65-4307");
    assertThat(ssns("bob", query).get(7L)).isEqualTo("*******4307");
    assertThat(ssns("mallory", query).get(7L)).isNull();
  }

  @Test
  @Order(6)
  void strictPrefixesRefuseUndecidedAndNestedColumns() {
    String ssn = "format_string('987-65-%04d', id + 4300)";
    assertThatThrownBy(
            () ->
                append(
                    "etl",
                    "SELECT id, " + ssn + " AS ssn, 'x' AS note FROM range(0, 2)",
                    s3a("strict/t")))
        .isInstanceOf(ProtectorException.class)
        .hasMessageContaining("column 'note' is neither protected nor listed in plain-columns");
    assertThatThrownBy(
            () ->
                append(
                    "etl",
                    "SELECT id, named_struct('ssn', " + ssn + ") AS name FROM range(0, 2)",
                    s3a("strict/t")))
        .isInstanceOf(ProtectorException.class)
        .hasMessageContaining("column 'name.ssn' is named like a protected column");
    append("etl", source(0, 4), s3a("strict/t"));
    assertThat(BucketScan.of(store).keys("strict/t/", Kind.DATA)).isNotEmpty();
    assertThat(BucketScan.of(store).find(canaries(0, 4)))
        .noneMatch(hit -> hit.key().startsWith("strict/"));
  }

  @Test
  @Order(7)
  void theKeyServerLetsOnlyTheNamedRolesUnwrapARetiredKey() {
    try (RemoteKeyService alice = keyServer.client("alice");
        RemoteKeyService bob = keyServer.client("bob")) {
      assertThat(alice.whoami().unwrappableKeys()).contains("pii", "pii-2019");
      assertThat(bob.whoami().unwrappableKeys()).contains("pii").doesNotContain("pii-2019");
      assertThat(alice.whoami().wrappableKeys()).doesNotContain("pii-2019");
    }
  }
}
