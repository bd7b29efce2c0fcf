/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.spark.rowlevel;

import static org.assertj.core.api.Assertions.assertThat;

import io.icebergprotector.spark.ProtectingSparkCatalog;
import io.icebergprotector.spark.SparkTestBase;
import io.icebergprotector.spark.binding.FileAdmission;
import io.icebergprotector.spark.core.ProtectionSpec;
import io.icebergprotector.spark.crypto.FileBinding;
import io.icebergprotector.spark.crypto.ProtectorCrypto;
import io.icebergprotector.spark.table.ProtectedTable;
import io.icebergprotector.testing.TestPolicy;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.iceberg.ContentFile;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Table;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.shaded.org.apache.parquet.ParquetReadOptions;
import org.apache.iceberg.shaded.org.apache.parquet.column.page.PageReadStore;
import org.apache.iceberg.shaded.org.apache.parquet.example.data.Group;
import org.apache.iceberg.shaded.org.apache.parquet.example.data.simple.convert.GroupRecordConverter;
import org.apache.iceberg.shaded.org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.iceberg.shaded.org.apache.parquet.io.ColumnIOFactory;
import org.apache.iceberg.shaded.org.apache.parquet.io.LocalInputFile;
import org.apache.iceberg.shaded.org.apache.parquet.io.RecordReader;
import org.apache.iceberg.shaded.org.apache.parquet.schema.MessageType;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.connector.catalog.Identifier;
import org.junit.jupiter.api.BeforeAll;

/**
 * A second protecting catalog, {@code rl}, for row-level operation tests, with a policy that has a
 * clear writer (alice, admin), a masked writer (dana, steward: ssn masked, email and salary clear),
 * a denied writer (etl), a masked reader who is no writer (bob, analyst) and a principal without
 * roles (mallory). Every table {@code db.t0} ... {@code db.t19} has the same protection.
 */
abstract class RowLevelTestBase extends SparkTestBase {
  static final String CATALOG = "rl";
  static final int TABLES = 20;

  static Path rlWarehouse;

  static String policy() {
    TestPolicy policy =
        TestPolicy.builder()
            .role("admin", "alice")
            .role("steward", "dana")
            .role("etl", "etl")
            .role("analyst", "bob")
            .keys("pii", "fin", "footer");
    for (int i = 0; i < TABLES; i++) {
      policy.table(
          "db.t" + i,
          t ->
              t.footerKey("footer")
                  .writers("admin", "steward", "etl")
                  .column(
                      "ssn",
                      c ->
                          c.key("pii")
                              .clear("admin")
                              .masked("steward", "partial(keep_last=4)")
                              .masked("analyst", "partial(keep_last=4)"))
                  .column(
                      "email",
                      c -> c.key("pii").clear("admin", "steward").masked("analyst", "hash"))
                  .column("salary", c -> c.key("fin").clear("admin", "steward")));
    }
    return policy.render();
  }

  @BeforeAll
  static void startRowLevelCatalog() throws IOException {
    rlWarehouse = root.resolve("rl-warehouse");
    Path policy = root.resolve("rl-policy.conf");
    Files.writeString(policy, policy());
    String c = "spark.sql.catalog." + CATALOG;
    spark.conf().set(c, ProtectingSparkCatalog.class.getName());
    spark.conf().set(c + ".type", "hadoop");
    spark.conf().set(c + ".warehouse", rlWarehouse.toUri().toString());
    spark.conf().set(c + ".protector.policy", policy.toString());
    spark.conf().set(c + ".protector.kms.keystore", root.resolve("rl-keys.p12").toString());
    spark.conf().set(c + ".protector.kms.passphrase-file", passphraseFile.toString());
    spark.conf().set(c + ".protector.kms.create-missing-keys", "true");
    spark.conf().set(c + ".protector.user", "alice");
    spark.sql("CREATE NAMESPACE IF NOT EXISTS " + CATALOG + ".db");
  }

  /** Runs SQL as {@code user} through catalog {@code rl}. */
  static List<Row> as(String user, String query) {
    String key = "spark.sql.catalog." + CATALOG + ".protector.user";
    String previous = spark.conf().get(key);
    spark.conf().set(key, user);
    try {
      return spark.sql(query).collectAsList();
    } finally {
      spark.conf().set(key, previous);
    }
  }

  static String name(String table) {
    return CATALOG + "." + table;
  }

  /**
   * Creates {@code table} (id, name, ssn, email, salary, dept) with uncompressed Parquet, so a byte
   * search finds any plaintext, and the given extra properties.
   */
  static void create(String table, Map<String, String> properties) {
    StringBuilder props = new StringBuilder("'write.parquet.compression-codec'='uncompressed'");
    properties.forEach((k, v) -> props.append(", '").append(k).append("'='").append(v).append("'"));
    as("alice", "DROP TABLE IF EXISTS " + name(table) + " PURGE");
    as(
        "alice",
        "CREATE TABLE "
            + name(table)
            + " (id BIGINT, name STRING, ssn STRING, email STRING,"
            + " salary DECIMAL(10,2), dept STRING) USING iceberg TBLPROPERTIES ("
            + props
            + ")");
  }

  /** The canary of a protected column of row {@code id}: unique, and never in a log line. */
  static String ssn(long id) {
    return String.format("SSN-CANARY-%04d", id);
  }

  static String email(long id) {
    return String.format("mail-canary-%04d@example.org", id);
  }

  static String salary(long id) {
    return String.format("7%03d%03d.%02d", id, id, id % 100);
  }

  /** A VALUES list of rows {@code from..to} with canaries. */
  static String values(long from, long to) {
    List<String> rows = new ArrayList<>();
    for (long id = from; id <= to; id++) {
      rows.add(
          String.format(
              "(%d, 'name-%d', '%s', '%s', CAST(%s AS DECIMAL(10,2)), '%s')",
              id, id, ssn(id), email(id), salary(id), id % 2 == 0 ? "even" : "odd"));
    }
    return "VALUES " + String.join(", ", rows);
  }

  static void insert(String table, long from, long to) {
    as("alice", "INSERT INTO " + name(table) + " " + values(from, to));
  }

  static Table iceberg(String table) {
    try {
      ProtectingSparkCatalog catalog =
          (ProtectingSparkCatalog) spark.sessionState().catalogManager().catalog(CATALOG);
      String[] parts = table.split("\\.");
      ProtectedTable loaded =
          (ProtectedTable) catalog.loadTable(Identifier.of(new String[] {parts[0]}, parts[1]));
      Table iceberg = loaded.table();
      iceberg.refresh();
      return iceberg;
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  static ProtectionSpec specOf(String table, String user) {
    String key = "spark.sql.catalog." + CATALOG + ".protector.user";
    String previous = spark.conf().get(key);
    spark.conf().set(key, user);
    try {
      ProtectingSparkCatalog catalog =
          (ProtectingSparkCatalog) spark.sessionState().catalogManager().catalog(CATALOG);
      String[] parts = table.split("\\.");
      return ((ProtectedTable) catalog.loadTable(Identifier.of(new String[] {parts[0]}, parts[1])))
          .protectionFor(spark);
    } catch (Exception e) {
      throw new IllegalStateException(e);
    } finally {
      spark.conf().set(key, previous);
    }
  }

  static Path dir(String table) {
    return rlWarehouse.resolve(table.replace('.', '/'));
  }

  /** Every file under the table's location. */
  static List<Path> files(String table) {
    try (Stream<Path> files = Files.walk(dir(table))) {
      return files.filter(Files::isRegularFile).collect(Collectors.toList());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Files under the table whose bytes hold a canary; names only, never the canary. */
  static List<String> filesHolding(String table, List<String> canaries) {
    List<String> hits = new ArrayList<>();
    for (Path file : files(table)) {
      byte[] bytes;
      try {
        bytes = Files.readAllBytes(file);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      for (int i = 0; i < canaries.size(); i++) {
        if (indexOf(bytes, canaries.get(i).getBytes(StandardCharsets.UTF_8)) >= 0) {
          hits.add(file.getFileName() + " holds canary #" + i);
        }
      }
    }
    return hits;
  }

  static List<String> canaries(long from, long to) {
    List<String> canaries = new ArrayList<>();
    for (long id = from; id <= to; id++) {
      canaries.add(ssn(id));
      canaries.add(email(id));
    }
    return canaries;
  }

  /** Live data and delete files of the table's current snapshot. */
  static List<ContentFile<?>> liveFiles(Table table) {
    List<ContentFile<?>> files = new ArrayList<>();
    if (table.currentSnapshot() == null) {
      return files;
    }
    try (CloseableIterable<FileScanTask> tasks = table.newScan().includeColumnStats().planFiles()) {
      Set<String> seen = new java.util.HashSet<>();
      for (FileScanTask task : tasks) {
        if (seen.add(task.file().location())) {
          files.add(task.file());
        }
        for (DeleteFile delete : task.deletes()) {
          if (seen.add(delete.location())) {
            files.add(delete);
          }
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return files;
  }

  /** Asserts no live file's manifest entry has metrics of a protected column. */
  static void assertNoProtectedMetrics(String table) {
    Table iceberg = iceberg(table);
    Set<Integer> protectedIds =
        Set.of(
            iceberg.schema().findField("ssn").fieldId(),
            iceberg.schema().findField("email").fieldId(),
            iceberg.schema().findField("salary").fieldId());
    for (ContentFile<?> file : liveFiles(iceberg)) {
      for (Map<Integer, ?> metrics :
          java.util.Arrays.asList(
              file.lowerBounds(),
              file.upperBounds(),
              file.valueCounts(),
              file.nullValueCounts(),
              file.nanValueCounts(),
              file.columnSizes())) {
        if (metrics != null) {
          assertThat(metrics.keySet())
              .as("metrics of %s", file.location())
              .doesNotContainAnyElementsOf(protectedIds);
        }
      }
    }
  }

  /**
   * Every row of a Parquet data file, decrypted with {@code spec}'s keys and printed by
   * parquet-mr's example reader (all columns, deleted rows included: this is what storage holds).
   */
  static List<String> decryptedRows(ProtectionSpec spec, Table table, DataFile file) {
    Path path = Path.of(java.net.URI.create(file.location()));
    ParquetReadOptions options =
        ParquetReadOptions.builder()
            .withDecryption(
                ProtectorCrypto.fileDecryption(
                    spec,
                    file.location(),
                    FileAdmission.bound(file) ? FileBinding.of(table) : null))
            .build();
    List<String> rows = new ArrayList<>();
    try (ParquetFileReader reader = ParquetFileReader.open(new LocalInputFile(path), options)) {
      MessageType schema = reader.getFooter().getFileMetaData().getSchema();
      PageReadStore pages;
      while ((pages = reader.readNextRowGroup()) != null) {
        RecordReader<Group> records =
            new ColumnIOFactory()
                .getColumnIO(schema)
                .getRecordReader(pages, new GroupRecordConverter(schema));
        for (long i = 0; i < pages.getRowCount(); i++) {
          rows.add(records.read().toString());
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read " + path, e);
    }
    return rows;
  }
}
