/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.spark.paths;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.icebergprotector.spark.core.CatalogOptions;
import io.icebergprotector.spark.core.ProtectorException;
import io.icebergprotector.testing.TestPolicy;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Consumer;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.hadoop.conf.Configuration;
import org.apache.parquet.crypto.KeyAccessDeniedException;
import org.apache.spark.SparkException;
import org.apache.spark.sql.Row;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Ways around a {@code paths} prefix (issue 18, items 1, 2, 7 and 8 of its list), each reproduced
 * as reported and now refused or answered with the principal's view, never with clear values or
 * plaintext at rest: other spellings of the prefix, symbolic links, a catalog partition located
 * under the prefix, a scan that escaped the plan rules, planted plaintext files, strict entries,
 * and the clear reader of {@code parquet.`...`}.
 */
class PathEscapeTest extends PathSessionTest {
  static final int ROWS = 12;

  static String policy(Path root) {
    Consumer<TestPolicy.Column> ssn =
        c -> c.key("pii").clear("admin").masked("analyst", "partial(keep_last=4)");
    return TestPolicy.builder()
        .role("admin", "alice")
        .role("analyst", "bob")
        .role("etl", "etl")
        .keys("pii", "footer")
        // with the trailing slash, as docs/spark/paths.md writes prefixes
        .path(
            "file:" + root + "/prot/", p -> p.footerKey("footer").writers("etl").column("ssn", ssn))
        .path(
            "file:" + root + "/strict/",
            p ->
                p.footerKey("footer")
                    .writers("etl")
                    .set("strict", "true")
                    .set("plain-columns", "[id, name, person]")
                    .column("ssn", ssn))
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

  static List<byte[]> canaries(int from, int to) {
    List<byte[]> out = new ArrayList<>();
    for (int id = from; id < to; id++) {
      out.add(String.format("987-65-%04d", id + 4300).getBytes(StandardCharsets.UTF_8));
    }
    return out;
  }

  @BeforeAll
  static void start() throws IOException {
    startSession("protector-escape", PathEscapeTest::policy);
    asUser(
        "etl",
        () -> {
          spark.sql(source(0, ROWS)).write().parquet(dir("prot/base"));
          spark.sql(source(0, ROWS)).write().parquet(dir("open/plain"));
          return null;
        });
  }

  static void write(String user, String sql, String location) {
    asUser(
        user,
        () -> {
          spark.sql(sql).write().mode("append").parquet(location);
          return null;
        });
  }

  static Map<Long, String> ssns(String user, String location) {
    return asUser(
        user,
        () -> {
          Map<Long, String> out = new TreeMap<>();
          for (Row r : spark.read().parquet(location).select("id", "ssn").collectAsList()) {
            out.put(r.getLong(0), r.getString(1));
          }
          return out;
        });
  }

  static List<Path> files(String relative) {
    Path start = root.resolve(relative);
    if (!Files.exists(start)) {
      return List.of();
    }
    try (Stream<Path> files = Files.walk(start)) {
      return files.filter(Files::isRegularFile).collect(Collectors.toList());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static List<String> canaryHits(String relative, List<byte[]> needles) throws IOException {
    List<String> hits = new ArrayList<>();
    for (Path file : files(relative)) {
      byte[] bytes = Files.readAllBytes(file);
      for (byte[] needle : needles) {
        if (PathParquetTest.indexOf(bytes, needle) >= 0) {
          hits.add(root.relativize(file).toString());
        }
      }
    }
    return hits;
  }

  static List<String> directoriesNamed(String prefix) throws IOException {
    try (Stream<Path> all = Files.walk(root)) {
      return all.filter(Files::isDirectory)
          .map(p -> p.getFileName().toString())
          .filter(name -> name.startsWith(prefix))
          .collect(Collectors.toList());
    }
  }

  // ------------------------------------------------------------------ spellings of the prefix

  @Test
  void partitioningByAProtectedColumnAtThePrefixRootIsRefused() throws IOException {
    // Hadoop prints the prefix root without the policy's trailing slash: as the issue saw it,
    // write().partitionBy("ssn") at the root of the prefix, and other spellings of it.
    for (String spelling :
        List.of(
            root + "/prot",
            "file://" + root + "/prot/",
            root + "/open/../prot",
            root + "//prot/.")) {
      assertThatThrownBy(
              () ->
                  asUser(
                      "etl",
                      () -> {
                        spark
                            .sql(source(0, 2))
                            .write()
                            .mode("append")
                            .partitionBy("ssn")
                            .parquet(spelling);
                        return null;
                      }))
          .as(spelling)
          .isInstanceOf(ProtectorException.class)
          .hasMessageContaining("partitioned or bucketed by protected column 'ssn'")
          .hasMessageContaining("prefix file:" + root + "/prot/");
    }
    assertThat(directoriesNamed("ssn=")).isEmpty();
  }

  @Test
  void otherSpellingsOfAProtectedLocationGetTheChecksAndTheView() {
    assertThatThrownBy(() -> write("bob", source(50, 52), "file:///" + root + "/open/../prot/more"))
        .isInstanceOf(ProtectorException.class)
        .hasMessageContaining("principal bob")
        .hasMessageContaining("may not write");
    for (String spelling : List.of("file:///" + root + "/prot/base/", root + "/prot/./base")) {
      assertThat(ssns("bob", spelling).get(3L)).as(spelling).isEqualTo("*******4303");
    }
  }

  // ------------------------------------------------------------------ symbolic links

  @Test
  void aSymbolicLinkToAProtectedDirectoryIsThatDirectory() throws IOException {
    Path alias = Files.createSymbolicLink(root.resolve("alias"), root.resolve("prot"));
    try {
      // a principal that may not write there cannot write through the link either...
      assertThatThrownBy(() -> write("bob", source(60, 62), "file:" + alias + "/bybob"))
          .isInstanceOf(ProtectorException.class)
          .hasMessageContaining("principal bob")
          .hasMessageContaining("prot/");
      assertThat(files("prot/bybob")).isEmpty();
      // ...a writer's files through the link are encrypted like any under the prefix...
      write("etl", source(60, 66), "file:" + alias + "/vialink");
      assertThat(files("prot/vialink")).isNotEmpty();
      assertThat(canaryHits("prot/vialink", canaries(60, 66))).isEmpty();
      // ...and every read through the link gets the principal's view.
      assertThat(ssns("bob", "file:" + alias + "/base").get(5L)).isEqualTo("*******4305");
      assertThat(ssns("bob", "file:" + alias + "/vialink").get(61L)).isEqualTo("*******4361");
      assertThat(ssns("alice", "file:" + alias + "/vialink").get(61L)).isEqualTo("987-65-4361");
    } finally {
      Files.delete(alias);
    }
  }

  // ------------------------------------------------------------------ per file, not per table

  @Test
  void aPartitionLocatedUnderThePrefixGetsTheView() throws IOException {
    spark.sql(
        "CREATE TABLE esc_parted (id BIGINT, name STRING, ssn STRING, p INT) USING parquet"
            + " PARTITIONED BY (p) LOCATION '"
            + dir("open/parted")
            + "'");
    try {
      asUser(
          "bob",
          () ->
              spark.sql(
                  "ALTER TABLE esc_parted ADD PARTITION (p = 1) LOCATION '"
                      + dir("prot/base")
                      + "'"));
      for (String query :
          List.of("SELECT id, ssn FROM esc_parted", "SELECT id, ssn FROM esc_parted WHERE p = 1")) {
        List<Row> rows = asUser("bob", () -> spark.sql(query).collectAsList());
        assertThat(rows).as(query).hasSize(ROWS);
        assertThat(rows)
            .as(query)
            .allSatisfy(r -> assertThat(r.getString(1)).startsWith("*******43"));
        assertThat(rows.stream().map(Row::toString).collect(Collectors.joining()))
            .doesNotContain("987-65");
      }
      List<Row> clear =
          asUser(
              "alice",
              () -> spark.sql("SELECT id, ssn FROM esc_parted WHERE id = 9").collectAsList());
      assertThat(clear.get(0).getString(1)).isEqualTo("987-65-4309");
      // writing the table would stage that partition's files outside the prefix, unencrypted
      assertThatThrownBy(
              () ->
                  asUser(
                      "etl",
                      () ->
                          spark
                              .sql("INSERT INTO esc_parted PARTITION (p = 1) " + source(70, 72))
                              .collectAsList()))
          .isInstanceOf(ProtectorException.class)
          .hasMessageContaining("partition location")
          .hasMessageContaining("prot/base");
      assertThat(canaryHits("prot/base", canaries(70, 72))).isEmpty();
    } finally {
      spark.sql("DROP TABLE esc_parted");
    }
  }

  @Test
  void aScanWithoutThePrincipalsViewGetsNoColumnKey() throws IOException {
    // Spark's reader, its Parquet crypto factory and bob's settings, as a scan that escaped the
    // plan rules would have them: the footer (schema) decrypts, the protected column does not.
    Configuration conf = new Configuration();
    conf.set(PathProtection.FACTORY_PROPERTY, PathPolicyCryptoFactory.class.getName());
    options("bob").forEach((k, v) -> conf.set("spark." + k, v));
    Path file =
        files("prot/base").stream()
            .filter(f -> f.toString().endsWith(".parquet"))
            .findFirst()
            .orElseThrow();
    assertThatThrownBy(() -> readStrings(file, conf, "ssn"))
        .hasRootCauseInstanceOf(KeyAccessDeniedException.class)
        .hasStackTraceContaining("Refusing to decrypt columns of file:" + file)
        .hasStackTraceContaining("did not get the principal's view");
    // The same read marked with bob's view (what the plan rule does) gets bob's key.
    String identity = PathScope.fromHadoop(conf).orElseThrow().identity();
    conf.set(PathViewMark.OPTION, PathViewMark.issue(identity));
    assertThat(readStrings(file, conf, "ssn")).isNotEmpty();
  }

  @Test
  void aForgedViewMarkIsRefused() {
    assertThatThrownBy(
            () ->
                asUser(
                    "bob",
                    () ->
                        spark
                            .read()
                            .option(PathViewMark.OPTION, "ks-made-up.x")
                            .parquet(dir("prot/base"))
                            .collectAsList()))
        .isInstanceOf(ProtectorException.class)
        .hasMessageContaining("which only Iceberg Protector sets");
    spark.conf().set(PathViewMark.OPTION, "ks-made-up.x");
    try {
      assertThatThrownBy(
              () ->
                  asUser(
                      "bob",
                      () ->
                          spark
                              .sql("SELECT ssn FROM parquet.`" + dir("prot/base") + "`")
                              .collectAsList()))
          .isInstanceOf(ProtectorException.class)
          .hasMessageContaining("sets " + PathViewMark.OPTION);
    } finally {
      spark.conf().unset(PathViewMark.OPTION);
    }
  }

  // ------------------------------------------------------------------ files the protector did not
  // write

  @Test
  void plaintextFilesUnderThePrefixAreRefusedUnlessAccepted() throws IOException {
    Path planted = Files.createDirectories(root.resolve("prot/planted"));
    Path source =
        files("open/plain").stream()
            .filter(f -> f.toString().endsWith(".parquet"))
            .findFirst()
            .orElseThrow();
    Path plantedFile = Files.copy(source, planted.resolve(source.getFileName()));
    for (String user : List.of("alice", "bob", "mallory")) {
      assertThatThrownBy(() -> ssns(user, dir("prot/planted")))
          .as(user)
          .isInstanceOf(SparkException.class)
          .hasStackTraceContaining("Refusing to read file:" + plantedFile)
          .hasStackTraceContaining("plaintext Parquet file")
          .hasStackTraceContaining(
              "spark." + CatalogOptions.ACCEPT_PLAINTEXT_FILES.key() + "=true");
    }
    spark.conf().set("spark." + CatalogOptions.ACCEPT_PLAINTEXT_FILES.key(), "true");
    try {
      Map<Long, String> bob = ssns("bob", dir("prot/planted"));
      assertThat(bob).isNotEmpty();
      assertThat(bob.values()).allSatisfy(s -> assertThat(s).startsWith("*******43"));
      assertThat(ssns("mallory", dir("prot/planted")).values()).containsOnlyNulls();
    } finally {
      spark.conf().unset("spark." + CatalogOptions.ACCEPT_PLAINTEXT_FILES.key());
    }
  }

  // ------------------------------------------------------------------ strict entries

  @Test
  void strictEntriesRefuseColumnsNobodyDecidedAbout() throws IOException {
    String ssn = "format_string('987-65-%04d', id + 4300)";
    String person = "named_struct('city', 'CITY', 'ssn', " + ssn + ")";
    Map<String, String> refused =
        Map.of(
            "SELECT id, " + ssn + " AS ssn, 'x' AS note FROM range(0, 2)",
            "column 'note' is neither protected nor listed in plain-columns",
            "SELECT id, " + ssn + " AS SSN_ FROM range(0, 2)",
            "column 'SSN_' is neither protected nor listed in plain-columns",
            "SELECT id, " + person + " AS person FROM range(0, 2)",
            "column 'person.ssn' is named like a protected column",
            "SELECT id, map('k', " + person + ") AS m FROM range(0, 2)",
            "column 'm.value.ssn' is named like a protected column",
            "SELECT id, array(" + person + ") AS people FROM range(0, 2)",
            "column 'people.ssn' is named like a protected column");
    refused.forEach(
        (sql, message) ->
            assertThatThrownBy(() -> write("etl", sql, dir("strict/t")))
                .as(sql)
                .isInstanceOf(ProtectorException.class)
                .hasMessageContaining(message)
                .hasMessageContaining("strict entry"));
    assertThat(files("strict/t")).isEmpty();
    // protected and plain columns only: written, the protected one encrypted
    write(
        "etl",
        "SELECT id, format_string('NAME-%04d', id) AS name,"
            + " format_string('987-65-%04d', id + 4300) AS ssn, named_struct('city', 'CITY') AS person"
            + " FROM range(0, 4)",
        dir("strict/t"));
    assertThat(canaryHits("strict/t", canaries(0, 4))).isEmpty();
    assertThat(ssns("bob", dir("strict/t")).get(2L)).isEqualTo("*******4302");
  }

  // ------------------------------------------------------------------ the clear reader

  @Test
  void sqlOnFilesGivesEveryPrincipalItsView() {
    String sql = "SELECT id, ssn FROM parquet.`" + dir("prot/base") + "` WHERE id = 7";
    assertThat(asUser("alice", () -> spark.sql(sql).collectAsList()).get(0).getString(1))
        .isEqualTo("987-65-4307");
    assertThat(asUser("bob", () -> spark.sql(sql).collectAsList()).get(0).getString(1))
        .isEqualTo("*******4307");
    assertThat(asUser("mallory", () -> spark.sql(sql).collectAsList()).get(0).isNullAt(1)).isTrue();
  }
}
