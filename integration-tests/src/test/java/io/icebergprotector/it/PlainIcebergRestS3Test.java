/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.icebergprotector.it.harness.BucketScan;
import io.icebergprotector.it.harness.BucketScan.Canary;
import io.icebergprotector.it.harness.BucketScan.Kind;
import io.icebergprotector.it.harness.StackTestBase;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.apache.spark.sql.Row;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * The stack without the protector: Spark's Iceberg catalog on the REST catalog server, data on the
 * S3 server. Proves the harness works, and that the bucket scan finds clear values where they are
 * (the positive control for the protected tests' "nothing at rest" checks).
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class PlainIcebergRestS3Test extends StackTestBase {
  static final List<String> CANARIES = List.of("PLAIN-CANARY-01", "PLAIN-CANARY-02");

  @Test
  @Order(1)
  void writesAndReadsThroughRestCatalogAndS3() {
    configureCatalog("rest", "org.apache.iceberg.spark.SparkCatalog", restCatalogOptions());

    spark.sql("CREATE NAMESPACE IF NOT EXISTS rest.plain");
    spark.sql(
        "CREATE TABLE rest.plain.people (id BIGINT, name STRING, region STRING) USING iceberg"
            + " PARTITIONED BY (region)"
            + " TBLPROPERTIES ('write.parquet.compression-codec'='uncompressed',"
            + " 'write.avro.compression-codec'='uncompressed')");
    spark.sql(
        "INSERT INTO rest.plain.people VALUES (1, '"
            + CANARIES.get(0)
            + "', 'eu'),"
            + " (2, '"
            + CANARIES.get(1)
            + "', 'us')");

    List<Row> rows =
        spark.sql("SELECT id, name, region FROM rest.plain.people ORDER BY id").collectAsList();
    assertThat(rows)
        .extracting(Row::toString)
        .containsExactly("[1," + CANARIES.get(0) + ",eu]", "[2," + CANARIES.get(1) + ",us]");
    assertThat(spark.sql("SELECT * FROM rest.plain.people.snapshots").count()).isEqualTo(1);
  }

  @Test
  @Order(2)
  void serversListenOnLoopbackOnly() throws Exception {
    assertThat(store.endpoint()).startsWith("http://127.0.0.1:");
    assertThat(rest.uri()).startsWith("http://127.0.0.1:");
    String port = rest.uri().substring(rest.uri().lastIndexOf(':') + 1);
    assertThat(java.nio.file.Files.readString(rest.process().logFile()))
        .contains("listening on 127.0.0.1:" + port);
  }

  @Test
  @Order(3)
  void everyTableFileIsInTheBucket() {
    BucketScan scan = BucketScan.of(store);
    String table = "warehouse/plain/people";
    System.out.println(
        "[it] objects in s3://"
            + store.bucket()
            + ": "
            + scan.countByKind()
            + "\n  "
            + String.join("\n  ", scan.objects().keySet()));

    assertThat(scan.keys(table, Kind.DATA))
        .hasSize(2)
        .allSatisfy(k -> assertThat(k).contains("/data/region="));
    assertThat(scan.keys(table, Kind.METADATA_JSON)).hasSizeGreaterThanOrEqualTo(2);
    assertThat(scan.keys(table, Kind.MANIFEST_LIST)).hasSize(1);
    assertThat(scan.keys(table, Kind.MANIFEST)).hasSize(1);
    for (String key : scan.keys(table, Kind.DATA)) {
      byte[] bytes = scan.objects().get(key);
      assertThat(new String(bytes, 0, 4, java.nio.charset.StandardCharsets.US_ASCII))
          .as("Parquet magic of %s", key)
          .isEqualTo("PAR1");
    }
  }

  @Test
  @Order(4)
  void bucketScanFindsClearValuesInDataAndManifests() {
    List<BucketScan.Hit> hits =
        BucketScan.of(store).find(CANARIES.stream().map(Canary::text).collect(Collectors.toList()));
    Map<Kind, List<String>> byKind =
        hits.stream()
            .collect(
                Collectors.groupingBy(
                    BucketScan.Hit::kind,
                    Collectors.mapping(BucketScan.Hit::canary, Collectors.toList())));
    // Unprotected: values in the data files, and as column bounds in the manifest.
    assertThat(byKind.get(Kind.DATA)).containsExactlyInAnyOrderElementsOf(CANARIES);
    assertThat(byKind.get(Kind.MANIFEST)).containsExactlyInAnyOrderElementsOf(CANARIES);
    assertThat(BucketScan.of(store).find(List.of(Canary.int64(2L)))).isNotEmpty();
  }

  @Test
  @Order(5)
  void readsWithCredentialsVendedByTheCatalog() {
    Map<String, String> options = restCatalogOptions();
    options.remove("s3.access-key-id");
    options.remove("s3.secret-access-key");
    options.put("header.X-Iceberg-Access-Delegation", "vended-credentials");
    configureCatalog("vended", "org.apache.iceberg.spark.SparkCatalog", options);

    assertThat(spark.sql("SELECT count(*) FROM vended.plain.people").first().getLong(0))
        .isEqualTo(2L);
    spark.sql("INSERT INTO vended.plain.people VALUES (3, 'c', 'eu')");
    assertThat(spark.sql("SELECT count(*) FROM rest.plain.people").first().getLong(0))
        .isEqualTo(3L);
  }
}
