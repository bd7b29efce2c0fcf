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
import io.icebergprotector.it.harness.StackTestBase;
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
import java.util.UUID;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import org.apache.hadoop.fs.FileSystem;
import org.apache.spark.sql.Row;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * The plain Spark Parquet path on object storage (issue 6, point 4): {@code df.write.parquet} and
 * {@code spark.read.parquet} over S3A (hadoop-aws) against the S3 server process, with the
 * protector extension and {@code spark.protector.*} session settings. Files under the policy's
 * {@code s3a://<bucket>/pii/} prefix hold no protected value in clear; each role reads its view.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class PlainParquetS3aPathTest extends StackTestBase {
  static final int ROWS = 40;

  Path keystore;
  Path passphraseFile;
  Path policyFile;

  String pii(String name) {
    return "s3a://" + BUCKET + "/pii/" + name;
  }

  String open(String name) {
    return "s3a://" + BUCKET + "/open/" + name;
  }

  String policy() {
    return TestPolicy.builder()
        .role("admin", "alice")
        .role("analyst", "bob")
        .role("etl", "etl")
        .keys("pii", "fin", "footer")
        .path(
            "s3a://" + BUCKET + "/pii/",
            p ->
                p.footerKey("footer")
                    .writers("etl")
                    .column(
                        "ssn",
                        c -> c.key("pii").clear("admin").masked("analyst", "partial(keep_last=4)"))
                    .column("email", c -> c.key("pii").clear("admin", "analyst"))
                    .column("salary", c -> c.key("fin").clear("admin").onDenied("null"))
                    .column("address.zip", c -> c.key("pii").clear("admin")))
        .render();
  }

  static String source(long from, long to) {
    return "SELECT id,"
        + " format_string('NAME-CLR-%04d', id) AS name,"
        + " format_string('SSN-S3A-%04d', id) AS ssn,"
        + " format_string('m%04d@s3a-cnry.io', id) AS email,"
        + " 7200000000000 + id AS salary,"
        + " named_struct('street', concat('street ', id), 'zip', format_string('ZIP-S3A-%04d', id))"
        + " AS address"
        + " FROM range("
        + from
        + ", "
        + to
        + ", 1, 2)";
  }

  static List<Canary> canaries(long from, long to) {
    List<Canary> out = new ArrayList<>();
    for (long id = from; id < to; id++) {
      out.add(Canary.text(String.format("SSN-S3A-%04d", id)));
      out.add(Canary.text(String.format("m%04d@s3a-cnry.io", id)));
      out.add(Canary.text(String.format("ZIP-S3A-%04d", id)));
      out.add(Canary.int64(7_200_000_000_000L + id));
    }
    return out;
  }

  @BeforeAll
  void setUpPaths() throws IOException {
    Path protector = Files.createDirectories(work.resolve("protector-paths"));
    keystore = protector.resolve("keys.p12");
    passphraseFile = protector.resolve("passphrase");
    policyFile = protector.resolve("policy.conf");
    Files.writeString(passphraseFile, "it-paths-" + UUID.randomUUID(), StandardCharsets.UTF_8);
    Files.writeString(policyFile, policy(), StandardCharsets.UTF_8);

    // As a user would configure the session: the protector...
    spark.conf().set("spark.protector.policy", policyFile.toString());
    spark.conf().set("spark.protector.kms.keystore", keystore.toString());
    spark.conf().set("spark.protector.kms.passphrase-file", passphraseFile.toString());
    spark.conf().set("spark.protector.kms.create-missing-keys", "true");
    spark.conf().set("spark.protector.user", "etl");
    // ... S3A on the S3 server (path-style, plain HTTP, static keys) ...
    store.s3aSettings().forEach(spark.conf()::set);
    // ... and uncompressed pages, so that the byte search would see any clear value.
    spark.conf().set("spark.sql.parquet.compression.codec", "uncompressed");

    asUser(
        "etl",
        () -> {
          spark.sql(source(0, ROWS)).write().parquet(pii("customers"));
          spark.sql(source(0, ROWS)).write().parquet(open("customers"));
          return null;
        });
  }

  @AfterAll
  void closeS3a() throws IOException {
    // S3A file systems are cached per bucket: drop this class's (its endpoint dies with the class).
    FileSystem.get(URI.create("s3a://" + BUCKET + "/"), spark.sessionState().newHadoopConf())
        .close();
  }

  <T> T asUser(String user, Supplier<T> action) {
    String previous = spark.conf().get("spark.protector.user");
    spark.conf().set("spark.protector.user", user);
    try {
      return action.get();
    } finally {
      spark.conf().set("spark.protector.user", previous);
    }
  }

  Map<Long, Row> readAs(String user, String location) {
    return asUser(
        user,
        () -> {
          Map<Long, Row> rows = new TreeMap<>();
          for (Row r : spark.read().parquet(location).collectAsList()) {
            rows.put(r.getLong(r.fieldIndex("id")), r);
          }
          return rows;
        });
  }

  @Test
  @Order(1)
  void nothingAtRestUnderThePolicyPrefix() {
    BucketScan scan = BucketScan.of(store);
    List<String> piiData = scan.keys("pii/customers/", Kind.DATA);
    List<String> openData = scan.keys("open/customers/", Kind.DATA);
    List<Hit> hits = scan.find(canaries(0, ROWS));
    System.out.printf(
        "[it] plain Parquet on S3A: %d objects, %d data files under pii/, %d under"
            + " open/; canary hits: %d%n",
        scan.objects().size(), piiData.size(), openData.size(), hits.size());

    assertThat(piiData).isNotEmpty();
    assertThat(openData).isNotEmpty();
    assertThat(hits.stream().filter(h -> h.key().startsWith("pii/")).collect(Collectors.toList()))
        .as("protected values in clear under the policy prefix")
        .isEmpty();
    // Positive controls: the same values outside the prefix, and an unprotected column inside it,
    // are stored in clear, so the scan would have seen a protected value stored the same way.
    assertThat(hits).anyMatch(h -> h.key().startsWith("open/") && h.kind() == Kind.DATA);
    assertThat(scan.find(List.of(Canary.text("NAME-CLR-0003"))))
        .anyMatch(h -> h.key().startsWith("pii/") && h.kind() == Kind.DATA);
    // Encrypted footers: the files end in PARE, not PAR1.
    for (String key : piiData) {
      byte[] bytes = scan.objects().get(key);
      assertThat(new String(bytes, bytes.length - 4, 4, StandardCharsets.US_ASCII))
          .as(key)
          .isEqualTo("PARE");
    }
  }

  @Test
  @Order(2)
  void eachRoleReadsItsView() {
    Row admin = readAs("alice", pii("customers")).get(7L);
    assertThat(admin.<String>getAs("ssn")).isEqualTo("SSN-S3A-0007");
    assertThat(admin.<String>getAs("email")).isEqualTo("m0007@s3a-cnry.io");
    assertThat(admin.<Long>getAs("salary")).isEqualTo(7_200_000_000_007L);
    assertThat(admin.getStruct(admin.fieldIndex("address")).<String>getAs("zip"))
        .isEqualTo("ZIP-S3A-0007");

    Map<Long, Row> analystRows = readAs("bob", pii("customers"));
    assertThat(analystRows).hasSize(ROWS);
    Row analyst = analystRows.get(7L);
    assertThat(analyst.<String>getAs("name")).isEqualTo("NAME-CLR-0007");
    assertThat(analyst.<String>getAs("ssn")).isEqualTo("********0007");
    assertThat(analyst.<String>getAs("email")).isEqualTo("m0007@s3a-cnry.io");
    assertThat(analyst.isNullAt(analyst.fieldIndex("salary"))).isTrue();
    Row address = analyst.getStruct(analyst.fieldIndex("address"));
    assertThat(address.isNullAt(address.fieldIndex("zip"))).isTrue();
    assertThat(address.<String>getAs("street")).isEqualTo("street 7");

    // A principal without any role gets NULLs, and never needed a column key to get them.
    Row nobody = readAs("eve", pii("customers")).get(7L);
    assertThat(nobody.isNullAt(nobody.fieldIndex("ssn"))).isTrue();
    assertThat(nobody.isNullAt(nobody.fieldIndex("email"))).isTrue();
    assertThat(nobody.<String>getAs("name")).isEqualTo("NAME-CLR-0007");

    // Outside the prefix nothing is protected.
    assertThat(readAs("eve", open("customers")).get(7L).<String>getAs("ssn"))
        .isEqualTo("SSN-S3A-0007");
  }

  @Test
  @Order(3)
  void onlyWritersWriteUnderThePrefix() {
    assertThatThrownBy(
            () ->
                asUser(
                    "bob",
                    () -> {
                      spark.sql(source(100, 102)).write().mode("append").parquet(pii("customers"));
                      return null;
                    }))
        .hasMessageContaining("bob")
        .hasMessageContaining(pii("customers"));
    assertThat(readAs("alice", pii("customers"))).hasSize(ROWS);

    asUser(
        "etl",
        () -> {
          spark.sql(source(100, 110)).write().mode("append").parquet(pii("customers"));
          return null;
        });
    assertThat(readAs("bob", pii("customers"))).hasSize(ROWS + 10);
    List<Hit> hits = BucketScan.of(store).find(canaries(100, 110));
    assertThat(hits).isEmpty();
  }
}
