/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.spark.tokens;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.icebergprotector.kms.LocalKeyService;
import io.icebergprotector.kms.Passphrase;
import io.icebergprotector.spark.actions.RewriteProtected;
import io.icebergprotector.spark.core.ProtectorException;
import io.icebergprotector.spark.crypto.ColumnTokenizers;
import io.icebergprotector.spark.testing.TestSessions;
import io.icebergprotector.testing.LocalCatalog;
import io.icebergprotector.testing.TestPolicy;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.hadoop.conf.Configuration;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.parquet.hadoop.util.HadoopInputFile;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Tokenized columns of protected tables, end to end through the protected catalog: writes tokenize
 * (and PME-encrypt unless {@code pme = false}), reads return the value, the token, the mask of the
 * value or on-denied per role, in the columnar and the row reader; tables join on a shared domain
 * with tokens only, a CSV tokenized with {@code protect} joins them, files never hold the clear
 * canary, and a rotation is followed by re-tokenizing rewrites.
 */
class TokenizedTablesTest {
  private static final String POLICY =
      TestPolicy.resource(TokenizedTablesTest.class, "policies/TokenizedTablesTest.conf");

  private static final String[][] ROWS = {
    {"1", "123-45-6789", "canary.alpha@example.com", "100000000001"},
    {"2", "987-65-4321", "canary.beta@example.com", "200000000002"},
    {"3", "555-12-3456", "canary.gamma@example.com", "300000000003"},
  };

  private static SparkSession spark;
  private static Path dir;
  private static Path keystore;
  private static Path passphrase;

  @BeforeAll
  static void start() throws IOException {
    dir = Files.createTempDirectory("protector-tokens");
    LocalCatalog files = LocalCatalog.create(dir, POLICY, "tokens-passphrase");
    keystore = files.keystore();
    passphrase = files.passphraseFile();
    spark =
        // the writer of the fixtures reads the domains in clear: local token mode needs the key
        TestSessions.withCatalog(TestSessions.protector("tokenized-tables"), "tk", files, "alice")
            .config("spark.sql.catalog.tk.cache-enabled", "false")
            .getOrCreate();
    spark.sql("CREATE NAMESPACE IF NOT EXISTS tk.db");
    for (String table : List.of("people", "plainpeople")) {
      spark.sql(
          "CREATE TABLE tk.db."
              + table
              + " (id BIGINT, ssn STRING, email STRING, acct BIGINT)"
              + " USING iceberg TBLPROPERTIES ('write.parquet.compression-codec' = 'uncompressed')");
      StringBuilder values = new StringBuilder();
      for (String[] r : ROWS) {
        values.append(values.length() == 0 ? "" : ", ");
        values.append(String.format("(%s, '%s', '%s', %s)", r[0], r[1], r[2], r[3]));
      }
      spark.sql("INSERT INTO tk.db." + table + " VALUES " + values);
    }
  }

  @AfterAll
  static void stop() {
    TestSessions.stop(spark);
  }

  private static List<Row> as(String user, String sql) {
    spark.conf().set("spark.sql.catalog.tk.protector.user", user);
    try {
      return spark.sql(sql).collectAsList();
    } finally {
      spark.conf().set("spark.sql.catalog.tk.protector.user", "alice");
    }
  }

  private static String select(String table, boolean columnar) {
    return String.format(
        "SELECT id, ssn, email, acct FROM tk.db.%s%s ORDER BY id",
        table, columnar ? "" : " /* row */");
  }

  private static List<Row> read(String user, String table, boolean columnar) {
    spark.conf().set("spark.sql.iceberg.vectorization.enabled", String.valueOf(columnar));
    try {
      return as(user, select(table, columnar));
    } finally {
      spark.conf().unset("spark.sql.iceberg.vectorization.enabled");
    }
  }

  /** The tokens of the rows, computed with protect() by a clear reader. */
  private static List<Row> expectedTokens() {
    List<Row> out = new ArrayList<>();
    for (String[] r : ROWS) {
      out.add(
          as(
                  "alice",
                  String.format(
                      "SELECT protect('%s', 'ssn'), protect('%s', 'email'), protect(%sL, 'acct')",
                      r[1], r[2], r[3]))
              .get(0));
    }
    return out;
  }

  @ParameterizedTest(name = "{0}, columnar {1}")
  @CsvSource({"people, true", "people, false", "plainpeople, true", "plainpeople, false"})
  void eachRoleReadsWhatThePolicySays(String table, boolean columnar) {
    List<Row> clear = read("alice", table, columnar);
    assertThat(clear).hasSize(ROWS.length);
    for (int i = 0; i < ROWS.length; i++) {
      assertThat(clear.get(i).getString(1)).isEqualTo(ROWS[i][1]);
      assertThat(clear.get(i).getString(2)).isEqualTo(ROWS[i][2]);
      assertThat(clear.get(i).getLong(3)).isEqualTo(Long.parseLong(ROWS[i][3]));
    }

    List<Row> tokens = read("tina", table, columnar);
    List<Row> expected = expectedTokens();
    for (int i = 0; i < ROWS.length; i++) {
      Row t = tokens.get(i);
      assertThat(t.getString(1)).matches("\\d{3}-\\d{2}-\\d{4}").isNotEqualTo(ROWS[i][1]);
      assertThat(t.getString(2)).isNotEqualTo(ROWS[i][2]);
      assertThat(t.getLong(3)).isNotEqualTo(Long.parseLong(ROWS[i][3]));
      assertThat(String.valueOf(t.getLong(3)).length()).isLessThanOrEqualTo(12);
      assertThat(t.getString(1)).isEqualTo(expected.get(i).getString(0));
      assertThat(t.getString(2)).isEqualTo(expected.get(i).getString(1));
      assertThat(t.getLong(3)).isEqualTo(expected.get(i).getLong(2));
    }

    // local token mode: a masked reader gets no token key, so its tokenized columns read NULL
    // (the key server masks them in server token mode)
    List<Row> masked = read("bob", table, columnar);
    for (int i = 0; i < ROWS.length; i++) {
      Row m = masked.get(i);
      assertThat(m.getLong(0)).isEqualTo(Long.parseLong(ROWS[i][0]));
      assertThat(m.isNullAt(1)).as("ssn, masked partial(keep_last=4)").isTrue();
      assertThat(m.isNullAt(2)).as("email, masked hash").isTrue();
      assertThat(m.isNullAt(3)).as("acct has no mask for analysts: denied, null").isTrue();
    }

    List<Row> denied = as("dan", "SELECT id, ssn, acct FROM tk.db." + table + " ORDER BY id");
    assertThat(denied).allSatisfy(r -> assertThat(r.isNullAt(1) && r.isNullAt(2)).isTrue());
    assertThatThrownBy(() -> as("dan", "SELECT email FROM tk.db." + table))
        .isInstanceOf(ProtectorException.class)
        .hasMessageContaining("principal dan")
        .hasMessageContaining("column 'email'");
  }

  @Test
  void inLocalTokenModeWritersWithoutClearAccessAreRefusedTheTokenKeyBeforeAnyTaskRuns() {
    // the token key detokenizes every token of its domain: a writer holding it reads clear values
    long files = liveDataFiles("tk.db.people").size();
    assertThatThrownBy(
            () -> as("etl", "INSERT INTO tk.db.people VALUES (9, '111-22-3333', 'e@x.test', 9)"))
        .isInstanceOf(ProtectorException.class)
        .hasMessageContaining("Cannot write to protected table db.people")
        .hasMessageContaining("principal etl (roles [etl])")
        .hasMessageContaining("token key of domain 'ssn'")
        .hasMessageContaining("protector.kms.token-mode = server")
        .hasMessageContaining("clear = [admin]");
    assertThat(liveDataFiles("tk.db.people")).hasSize((int) files);
    assertThatThrownBy(() -> as("etl", "SELECT protect('x@example.com', 'email')"))
        .isInstanceOf(ProtectorException.class)
        .hasMessageContaining("Cannot call protect on token domain 'email'")
        .hasMessageContaining("principal etl");
    assertThat(as("dan", "SELECT 1").size()).as("the session still works").isEqualTo(1);
  }

  @Test
  void filtersOnTokenizedColumnsCompareValuesForClearReadersAndTokensForTokenReaders() {
    for (String table : List.of("people", "plainpeople")) {
      assertThat(
              as("alice", "SELECT id FROM tk.db." + table + " WHERE ssn = '987-65-4321'").stream()
                  .map(r -> r.getLong(0))
                  .collect(Collectors.toList()))
          .containsExactly(2L);
      assertThat(as("alice", "SELECT id FROM tk.db." + table + " WHERE acct > 150000000000").size())
          .isEqualTo(2);
      String token = expectedTokens().get(1).getString(1);
      assertThat(
              as("tina", "SELECT id FROM tk.db." + table + " WHERE email = '" + token + "'")
                  .stream()
                  .map(r -> r.getLong(0))
                  .collect(Collectors.toList()))
          .containsExactly(2L);
    }
  }

  @Test
  void tokenRolesJoinTwoTablesOnASharedDomainWithoutAnyTokenKey() {
    List<Row> joined =
        as(
            "tina",
            "SELECT a.id, b.id FROM tk.db.people a JOIN tk.db.plainpeople b"
                + " ON a.email = b.email AND a.ssn = b.ssn AND a.acct = b.acct ORDER BY a.id");
    assertThat(joined).hasSize(ROWS.length);
    assertThat(joined).allSatisfy(r -> assertThat(r.getLong(0)).isEqualTo(r.getLong(1)));
    assertThatThrownBy(() -> as("tina", "SELECT protect('x@example.com', 'email')"))
        .isInstanceOf(ProtectorException.class)
        .hasMessageContaining("tina");
  }

  @Test
  void aCsvTokenizedWithProtectJoinsTheTableTokens() throws IOException {
    Path csv = dir.resolve("export-" + System.nanoTime());
    // a clear reader tokenizes an export with the SQL function...
    spark
        .sql(
            "SELECT * FROM VALUES ('canary.beta@example.com', 42), ('nobody@example.com', 7)"
                + " AS t(email, amount)")
        .selectExpr("protect(email, 'email') AS email", "amount")
        .write()
        .option("header", "true")
        .csv(csv.toString());
    assertThat(filesContaining(csv, "canary.beta@example.com")).isEmpty();
    // ...and a token reader joins it with the table's tokens
    spark.read().option("header", "true").csv(csv.toString()).createOrReplaceTempView("export");
    List<Row> joined =
        as("tina", "SELECT p.id, e.amount FROM tk.db.people p JOIN export e ON p.email = e.email");
    assertThat(joined).hasSize(1);
    assertThat(joined.get(0).getLong(0)).isEqualTo(2L);
    assertThat(joined.get(0).getString(1)).isEqualTo("42");
  }

  @Test
  void filesNeverHoldTheClearCanaryAndPlainTokenColumnsHoldTokens() throws IOException {
    String[] canaries = new String[ROWS.length * 2];
    for (int i = 0; i < ROWS.length; i++) {
      canaries[2 * i] = ROWS[i][1];
      canaries[2 * i + 1] = ROWS[i][2];
    }
    Path warehouse = dir.resolve("warehouse").resolve("db");
    assertThat(filesContaining(warehouse.resolve("people"), canaries)).isEmpty();
    assertThat(filesContaining(warehouse.resolve("plainpeople"), canaries)).isEmpty();

    String token = expectedTokens().get(0).getString(1);
    assertThat(filesContaining(warehouse.resolve("plainpeople"), token))
        .as("pme = false stores the token as a plain column")
        .isNotEmpty();
    assertThat(filesContaining(warehouse.resolve("people"), token))
        .as("pme = true encrypts the token")
        .isEmpty();

    // an engine without any key reads the tokens of pme = false columns (plaintext footer)
    List<Path> plainFiles = parquetFiles(warehouse.resolve("plainpeople"));
    Set<String> emails =
        spark.read().parquet(plainFiles.get(0).toString()).select("email").collectAsList().stream()
            .map(r -> r.getString(0))
            .collect(Collectors.toSet());
    Set<String> expected = new HashSet<>();
    expectedTokens().forEach(r -> expected.add(r.getString(1)));
    assertThat(expected).containsAll(emails);

    // no statistics, page index or bloom filter for tokenized columns; token versions recorded
    for (Path file : plainFiles) {
      try (ParquetFileReader reader =
          ParquetFileReader.open(
              HadoopInputFile.fromPath(
                  new org.apache.hadoop.fs.Path(file.toUri()), new Configuration()))) {
        Map<String, String> kv = reader.getFooter().getFileMetaData().getKeyValueMetaData();
        assertThat(kv.get(ColumnTokenizers.VERSIONS_KEY)).matches("\\d+:1,\\d+:1,\\d+:1");
        for (BlockMetaData block : reader.getFooter().getBlocks()) {
          for (ColumnChunkMetaData column : block.getColumns()) {
            String name = column.getPath().toDotString();
            if (!name.equals("id")) {
              assertThat(column.getStatistics() == null || column.getStatistics().isEmpty())
                  .as("statistics of " + name)
                  .isTrue();
              assertThat(column.getColumnIndexReference()).as("page index of " + name).isNull();
              assertThat(column.getBloomFilterOffset()).as("bloom of " + name).isEqualTo(-1L);
            }
          }
        }
      }
    }
  }

  @Test
  void rotationIsFollowedByRewritesThatReTokenize() throws IOException {
    spark.sql("CREATE TABLE tk.db.rot (id BIGINT, ssn STRING, email STRING) USING iceberg");
    spark.sql(
        "INSERT INTO tk.db.rot VALUES (1, '123-45-6789', 'rot.canary@example.com'),"
            + " (2, '987-65-4321', 'rot.other@example.com')");
    int firstFiles = liveDataFiles("tk.db.rot").size();
    Path tableDir = dir.resolve("warehouse").resolve("db").resolve("rot");
    assertThat(tokenVersions(tableDir)).containsOnly(1);
    List<Row> before = as("tina", "SELECT ssn, email FROM tk.db.rot ORDER BY id");

    try (LocalKeyService keys = keys()) {
      assertThat(keys.rotateKey("rk").latestVersion()).isEqualTo(2);
    }
    spark.sql("INSERT INTO tk.db.rot VALUES (3, '555-12-3456', 'rot.third@example.com')");
    assertThat(tokenVersions(tableDir)).containsOnly(1, 2).contains(1, 2);
    assertThat(
            as("alice", "SELECT email FROM tk.db.rot ORDER BY id").stream()
                .map(r -> r.getString(0))
                .collect(Collectors.toList()))
        .as("files of both versions detokenize")
        .containsExactly(
            "rot.canary@example.com", "rot.other@example.com", "rot.third@example.com");

    spark.conf().set("spark.sql.catalog.tk.protector.user", "alice");
    RewriteProtected.Result result;
    try {
      result = RewriteProtected.of(spark, "tk.db.rot").execute();
    } finally {
      spark.conf().set("spark.sql.catalog.tk.protector.user", "alice");
    }
    assertThat(result.reasons()).containsOnlyKeys("token-version");
    assertThat(result.rewrittenFiles()).isEqualTo(firstFiles);

    List<Path> live = liveDataFiles("tk.db.rot");
    assertThat(tokenVersions(live)).containsOnly(2);
    List<Row> after = as("tina", "SELECT ssn, email FROM tk.db.rot WHERE id <= 2 ORDER BY id");
    for (int i = 0; i < 2; i++) {
      assertThat(after.get(i).getString(0))
          .as("re-tokenized under version 2")
          .isNotEqualTo(before.get(i).getString(0));
      assertThat(after.get(i).getString(1)).isNotEqualTo(before.get(i).getString(1));
    }
    assertThat(
            as("alice", "SELECT ssn FROM tk.db.rot ORDER BY id").stream()
                .map(r -> r.getString(0))
                .collect(Collectors.toList()))
        .containsExactly("123-45-6789", "987-65-4321", "555-12-3456");
    // nothing stale is left
    spark.conf().set("spark.sql.catalog.tk.protector.user", "alice");
    try {
      assertThat(RewriteProtected.of(spark, "tk.db.rot").execute().rewrittenFiles()).isZero();
    } finally {
      spark.conf().set("spark.sql.catalog.tk.protector.user", "alice");
    }
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource({"copy-on-write", "merge-on-read"})
  void updateMergeAndCompactionKeepValuesTokenized(String mode) {
    String t = "tk.db.changes";
    spark.sql("DROP TABLE IF EXISTS " + t);
    spark.sql(
        "CREATE TABLE "
            + t
            + " (id BIGINT, ssn STRING, email STRING) USING iceberg TBLPROPERTIES"
            + " ('format-version' = '2', 'write.update.mode' = '"
            + mode
            + "',"
            + " 'write.merge.mode' = '"
            + mode
            + "', 'write.delete.mode' = '"
            + mode
            + "')");
    spark.sql(
        "INSERT INTO "
            + t
            + " VALUES (1, '123-45-6789', 'a@example.com'),"
            + " (2, '987-65-4321', 'b@example.com')");
    spark.sql("INSERT INTO " + t + " VALUES (3, '555-12-3456', 'c@example.com')");
    as("alice", "UPDATE " + t + " SET email = 'a2@example.com' WHERE ssn = '123-45-6789'");
    as(
        "alice",
        "MERGE INTO "
            + t
            + " x USING (SELECT 2L AS id, '111-22-3333' AS ssn) s ON x.id = s.id"
            + " WHEN MATCHED THEN UPDATE SET ssn = s.ssn"
            + " WHEN NOT MATCHED THEN INSERT (id, ssn, email) VALUES (s.id, s.ssn, 'n@x.org')");
    as(
        "alice",
        "CALL tk.system.rewrite_data_files(table => 'db.changes',"
            + " options => map('min-input-files', '2'))");
    assertThat(
            as("alice", "SELECT id, ssn, email FROM " + t + " ORDER BY id").stream()
                .map(Row::toString)
                .collect(Collectors.toList()))
        .containsExactly(
            "[1,123-45-6789,a2@example.com]",
            "[2,111-22-3333,b@example.com]",
            "[3,555-12-3456,c@example.com]");
    List<Row> tokens = as("tina", "SELECT ssn, email FROM " + t + " ORDER BY id");
    assertThat(tokens.get(1).getString(0))
        .isEqualTo(as("alice", "SELECT protect('111-22-3333', 'ssn')").get(0).getString(0));
    assertThat(tokens.get(0).getString(1))
        .isEqualTo(as("alice", "SELECT protect('a2@example.com', 'email')").get(0).getString(0));
  }

  @Test
  void protectTakesTheTypesOfTheColumnsOfItsDomain() {
    Row r =
        as(
                "alice",
                "SELECT protect(CAST(42 AS INT), 'acct'), protect(42L, 'acct'),"
                    + " protect(CAST('a@example.com' AS BINARY), 'email'),"
                    + " protect('a@example.com', 'email'),"
                    + " unprotect(protect(CAST('a@example.com' AS BINARY), 'email'), 'email')")
            .get(0);
    assertThat(r.getLong(0)).as("an int is tokenized as the long it is").isEqualTo(r.getLong(1));
    assertThat(new String((byte[]) r.get(2), java.nio.charset.StandardCharsets.US_ASCII))
        .as("a binary's token is the bytes of the string's token")
        .isEqualTo(r.getString(3));
    assertThat((byte[]) r.get(4))
        .isEqualTo("a@example.com".getBytes(java.nio.charset.StandardCharsets.UTF_8));
    assertThatThrownBy(() -> as("alice", "SELECT protect(CAST('a' AS BINARY), 'ssn')"))
        .isInstanceOf(io.icebergprotector.spark.core.ProtectorException.class)
        .hasMessageContaining("Cannot call protect on a value of type binary: token domain 'ssn'");
  }

  @Test
  void aPrincipalWithoutTheTokenKeyCannotWriteAndIsNamed() {
    assertThatThrownBy(
            () -> as("tina", "INSERT INTO tk.db.people VALUES (9, '111-22-3333', 'x@y.z', 1)"))
        .satisfies(e -> assertThat(stackTrace(e)).contains("tina").doesNotContain("111-22-3333"));
  }

  private static List<Path> liveDataFiles(String table) {
    return spark.sql("SELECT file_path FROM " + table + ".files").collectAsList().stream()
        .map(r -> Path.of(java.net.URI.create(r.getString(0))))
        .collect(Collectors.toList());
  }

  private static Set<Integer> tokenVersions(Path tableDir) throws IOException {
    return tokenVersions(parquetFiles(tableDir));
  }

  private static Set<Integer> tokenVersions(List<Path> files) throws IOException {
    Set<Integer> versions = new HashSet<>();
    for (Path file : files) {
      try (ParquetFileReader reader =
          ParquetFileReader.open(
              HadoopInputFile.fromPath(
                  new org.apache.hadoop.fs.Path(file.toUri()), new Configuration()))) {
        String value =
            reader
                .getFooter()
                .getFileMetaData()
                .getKeyValueMetaData()
                .get(ColumnTokenizers.VERSIONS_KEY);
        versions.addAll(ColumnTokenizers.parseVersions(value, file.toString()).values());
      }
    }
    return versions;
  }

  private static List<Path> parquetFiles(Path tableDir) throws IOException {
    try (Stream<Path> files = Files.walk(tableDir)) {
      return files.filter(p -> p.toString().endsWith(".parquet")).collect(Collectors.toList());
    }
  }

  private static List<String> filesContaining(Path root, String... canaries) throws IOException {
    List<String> hits = new ArrayList<>();
    try (Stream<Path> files = Files.walk(root)) {
      for (Path f : files.filter(Files::isRegularFile).collect(Collectors.toList())) {
        byte[] bytes = Files.readAllBytes(f);
        for (String canary : canaries) {
          if (contains(bytes, canary.getBytes(StandardCharsets.UTF_8))) {
            hits.add(f.getFileName() + " contains " + canary);
          }
        }
      }
    }
    return hits;
  }

  private static boolean contains(byte[] haystack, byte[] needle) {
    outer:
    for (int i = 0; i <= haystack.length - needle.length; i++) {
      for (int j = 0; j < needle.length; j++) {
        if (haystack[i + j] != needle[j]) {
          continue outer;
        }
      }
      return true;
    }
    return false;
  }

  private static String stackTrace(Throwable failure) {
    java.io.StringWriter out = new java.io.StringWriter();
    failure.printStackTrace(new java.io.PrintWriter(out));
    return out.toString();
  }

  static LocalKeyService keys() {
    return LocalKeyService.open(keystore, Passphrase.fromFile(passphrase), false);
  }
}
