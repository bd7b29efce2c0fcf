/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.spark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.icebergprotector.spark.actions.RewriteProtected;
import io.icebergprotector.spark.binding.BindingBoundary;
import io.icebergprotector.spark.binding.FileAdmission;
import io.icebergprotector.spark.binding.FileIntegrityException;
import io.icebergprotector.spark.binding.UnverifiedFileException;
import io.icebergprotector.spark.core.CatalogOptions;
import io.icebergprotector.spark.core.ProtectionSpec;
import io.icebergprotector.spark.crypto.FileBinding;
import io.icebergprotector.spark.crypto.FileMarker;
import io.icebergprotector.spark.crypto.ProtectorCrypto;
import io.icebergprotector.spark.inspect.FooterReport;
import io.icebergprotector.spark.inspect.ParquetFooterInspector;
import io.icebergprotector.spark.table.ProtectedTable;
import io.icebergprotector.spark.write.ProtectedParquetAppender;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.stream.Collectors;
import java.util.stream.StreamSupport;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.parquet.ParquetSchemaUtil;
import org.apache.iceberg.shaded.org.apache.parquet.example.data.Group;
import org.apache.iceberg.shaded.org.apache.parquet.example.data.simple.SimpleGroupFactory;
import org.apache.iceberg.shaded.org.apache.parquet.hadoop.ParquetWriter;
import org.apache.iceberg.shaded.org.apache.parquet.hadoop.example.ExampleParquetWriter;
import org.apache.iceberg.shaded.org.apache.parquet.io.LocalOutputFile;
import org.apache.iceberg.shaded.org.apache.parquet.schema.MessageType;
import org.apache.iceberg.spark.Spark3Util;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.connector.catalog.Identifier;
import org.apache.spark.sql.types.Decimal;
import org.apache.spark.unsafe.types.UTF8String;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Files are bound to their place (issue 11, item 2): swapped or replayed files fail with the
 * integrity error, files the protector did not write are refused, legacy files still read, and
 * {@code rewrite_protected} binds them. Local key mode; every catalog here has its own warehouse
 * and no table cache, so commits through one catalog are seen by the others at once.
 */
class FileBindingTest extends SparkTestBase {
  private static final String TABLE = "db.strict"; // salary under key fin, footer key footer
  // Uncompressed, and every write below is 3 rows with one 12-character note. Files then differ in
  // length only by the varint-encoded page CRCs, so equal-length ones are found in a few tries: a
  // swapped file of the same length passes the length the manifest records, and meets the
  // cryptographic checks.
  private static final String CREATE =
      " (id BIGINT, salary DECIMAL(10,2), note STRING) USING iceberg TBLPROPERTIES"
          + " ('format-version'='2', 'write.parquet.compression-codec'='uncompressed')";

  @BeforeAll
  static void catalogs() throws IOException {
    addProtectingCatalog("bind", Files.createTempDirectory(root, "bind"));
    addProtectingCatalog("bind2", Files.createTempDirectory(root, "bind2"));
    Path legacyWarehouse = Files.createTempDirectory(root, "legacy");
    addProtectingCatalog("legacy", legacyWarehouse);
    addPlainCatalog("legacy_plain", legacyWarehouse);
    Path footerWarehouse = Files.createTempDirectory(root, "pf");
    addProtectingCatalog("pf", footerWarehouse);
    addPlainCatalog("pf_plain", footerWarehouse);
    for (String catalog : List.of("bind", "bind2", "legacy", "pf")) {
      spark.sql("CREATE NAMESPACE IF NOT EXISTS " + catalog + ".db");
    }

    spark.sql("CREATE TABLE bind." + TABLE + CREATE);
    spark.sql("CREATE TABLE bind2." + TABLE + CREATE);
    DataFile[] pair =
        equalLengthFiles(
            "bind." + TABLE, n -> insert("bind", 3 * n - 2, 3 * n + 1, "SNAP" + n + "-CANARY"));
    older = pair[0];
    newer = pair[1];
  }

  private static final int MAX_TRIES = 9;
  private static DataFile older;
  private static DataFile newer;

  /** Runs {@code insert} (1, 2, ...) until two files it added to {@code table} are equally long. */
  private static DataFile[] equalLengthFiles(String table, java.util.function.IntConsumer insert) {
    Map<Long, DataFile> bySize = new java.util.HashMap<>();
    for (int n = 1; n <= MAX_TRIES; n++) {
      insert.accept(n);
      Table iceberg = icebergTable(table);
      DataFile file = added(iceberg, iceberg.currentSnapshot()).get(0);
      DataFile sameSize = bySize.putIfAbsent(file.fileSizeInBytes(), file);
      if (sameSize != null) {
        return new DataFile[] {sameSize, file};
      }
    }
    throw new AssertionError("no two files of " + table + " of equal length in " + MAX_TRIES);
  }

  // ------------------------------------------------------------------ swaps and replays

  @Test
  void newTablesAreBoundFromTheirFirstFile() {
    Table table = icebergTable("bind." + TABLE);
    assertThat(table.properties()).containsEntry(BindingBoundary.PROPERTY, "0");
    List<DataFile> files = liveFiles(table);
    assertThat(files)
        .hasSizeGreaterThanOrEqualTo(2)
        .allMatch(f -> FileMarker.kindOf(f) == FileMarker.Kind.BOUND);
    assertThat(as("bind", "alice", "SELECT id FROM bind." + TABLE)).hasSize(3 * files.size());
  }

  @Test
  void anOlderFileOfTheSameTableCopiedOverANewerOneFails() {
    assertThat(bytesOf(older)).hasSameSizeAs(bytesOf(newer));
    String olderNote =
        as("bind", "alice", "SELECT note, _file FROM bind." + TABLE).stream()
            .filter(r -> r.getString(1).equals(older.location()))
            .map(r -> r.getString(0))
            .findFirst()
            .orElseThrow();
    assertSwapFails("bind." + TABLE, newer, bytesOf(older), olderNote);
  }

  @Test
  void aFileOfAnotherProtectedTableUnderTheSameKeysFails() {
    DataFile target = newer;
    DataFile other = null;
    // Files store their binding, whose file name may differ in length (Spark's task ids): prefer
    // a file as long as the target, so that only the binding tells them apart, if one comes up.
    for (int n = 0; n < MAX_TRIES; n++) {
      insert("bind2", 1, 4, "OTHER-CANARY");
      Table table = icebergTable("bind2." + TABLE);
      other = added(table, table.currentSnapshot()).get(0);
      if (other.fileSizeInBytes() == target.fileSizeInBytes()) {
        break;
      }
    }
    assertSwapFails("bind." + TABLE, target, bytesOf(other), "OTHER-CANARY");
  }

  @Test
  void aFileReEncryptedUnderAnotherTablesIdentityFails() throws IOException {
    Table table = icebergTable("bind." + TABLE);
    DataFile target = newer;
    String name = FileBinding.fileName(target.location());
    // the same file name, keys and layout, bound to another table's UUID
    FileBinding otherTable = FileBinding.of(UUID.randomUUID());
    byte[] foreign = null;
    for (int n = 0; n < 3 * MAX_TRIES && foreign == null; n++) {
      byte[] candidate = writeBound(table, target, otherTable, "REENC-CANARY");
      foreign = candidate.length == target.fileSizeInBytes() ? candidate : null;
    }
    assertThat(foreign).as("a re-encrypted file as long as %s", target.location()).isNotNull();
    assertSwapFails("bind." + TABLE, target, foreign, "REENC-CANARY");

    // Control: bound to this table and this name, the same writer's file reads. Binding stops
    // replays and swaps; a principal who may wrap the table's keys can still write any file.
    byte[] original = bytesOf(target);
    try {
      overwrite(target, writeBound(table, target, FileBinding.of(table), "REENC-CANARY"));
      assertThat(as("bind", "alice", "SELECT note FROM bind." + TABLE))
          .extracting(r -> r.getString(0))
          .contains("REENC-CANARY");
    } finally {
      overwrite(target, original);
    }
  }

  @Test
  void aBoundFileSwappedForAnUnboundOrAPlaintextFileFails() throws IOException {
    Table table = icebergTable("bind." + TABLE);
    DataFile target = liveFiles(table).get(0);
    // unbound: encrypted the way protector versions before binding did, under the same keys
    Path unbound = root.resolve("unbound-" + UUID.randomUUID() + ".parquet");
    writeUnbound(table, unbound, 900, "UNBOUND-CANARY");
    assertSwapFails("bind." + TABLE, target, Files.readAllBytes(unbound), "UNBOUND-CANARY");

    spark.sql("CREATE TABLE IF NOT EXISTS legacy_plain.db.plainsource" + CREATE);
    spark.sql("INSERT INTO legacy_plain.db.plainsource VALUES (902, 9.02, 'PLAINTEXT-CANARY')");
    DataFile plaintext =
        added(
                icebergTable("legacy_plain.db.plainsource"),
                icebergTable("legacy_plain.db.plainsource").currentSnapshot())
            .get(0);
    assertSwapFails("bind." + TABLE, target, bytesOf(plaintext), "PLAINTEXT-CANARY");
  }

  @Test
  void plaintextFooterModeDetectsSwapsByTheFooterSignature() {
    // db.plainfooter: footer readable and signed, AES_GCM_CTR_V1
    spark.sql(
        "CREATE TABLE pf.db.plainfooter (id BIGINT, ssn STRING) USING iceberg"
            + " TBLPROPERTIES ('write.parquet.compression-codec'='uncompressed')");
    DataFile[] pair =
        equalLengthFiles(
            "pf.db.plainfooter",
            n ->
                spark.sql(
                    "INSERT INTO pf.db.plainfooter VALUES (" + n + ", 'PF-" + n + "-CANARY')"));

    // Iceberg without the protector reads the unprotected column of the marked files: it logs that
    // key metadata is present without table encryption, and ignores it.
    assertThat(spark.sql("SELECT id FROM pf_plain.db.plainfooter").collectAsList())
        .hasSizeGreaterThanOrEqualTo(2);
    assertSwapFails("pf.db.plainfooter", pair[1], bytesOf(pair[0]), "-CANARY");
  }

  @Test
  void parquetMrRefusesAnotherOrAnUnexpectedAadPrefix() throws IOException {
    Table table = icebergTable("bind." + TABLE);
    ProtectionSpec etl = etlSpec(table);
    FileBinding binding = FileBinding.of(table);
    String bound = newer.location();
    // the file stores its binding: a reader without a prefix opens it, one expecting another
    // binding is refused
    openFooter(bound, ProtectorCrypto.fileDecryption(etl, bound));
    FileBinding otherTable = FileBinding.of(UUID.randomUUID());
    assertThat(
            catchThrowable(
                () -> openFooter(bound, ProtectorCrypto.fileDecryption(etl, bound, otherTable))))
        .as("a bound file read with another table's prefix")
        .hasStackTraceContaining("AAD Prefix in file and in decryption properties is not the same");

    Path unbound = root.resolve("unbound-" + UUID.randomUUID() + ".parquet");
    writeUnbound(table, unbound, 1, "UNBOUND-NOTE");
    String location = unbound.toUri().toString();
    assertThat(
            catchThrowable(
                () -> openFooter(location, ProtectorCrypto.fileDecryption(etl, location, binding))))
        .as("an unbound file read with a prefix")
        .hasStackTraceContaining(
            "AAD Prefix set in decryption properties, but was not used for file encryption");

    spark.sql("CREATE TABLE IF NOT EXISTS legacy_plain.db.plainsource" + CREATE);
    spark.sql("INSERT INTO legacy_plain.db.plainsource VALUES (901, 9.01, 'PLAIN-NOTE')");
    String plaintext = liveFiles(icebergTable("legacy_plain.db.plainsource")).get(0).location();
    assertThat(
            catchThrowable(
                () ->
                    openFooter(plaintext, ProtectorCrypto.fileDecryption(etl, plaintext, binding))))
        .as("a plaintext file read as a bound one")
        .hasStackTraceContaining("Applying decryptor on plaintext file");
    // the legacy properties still accept it
    openFooter(plaintext, ProtectorCrypto.fileDecryption(etl, plaintext));
  }

  // ------------------------------------------------------------------ legacy and unverified files

  @Test
  void legacyFilesReadUnverifiedFilesAreRefusedAndRewriteProtectedBindsThem() throws IOException {
    String t = "legacy." + TABLE;
    // A table protected by an older version: created and filled without the protector (a
    // plaintext file), plus a file encrypted the way versions before binding wrote them.
    spark.sql("CREATE TABLE legacy_plain." + TABLE + CREATE);
    spark.sql("INSERT INTO legacy_plain." + TABLE + " VALUES (1, 1.00, 'legacy-plaintext')");
    Table plainView = icebergTable("legacy_plain." + TABLE);
    appendUnbound(plainView, 2, "legacy-unbound");
    assertThat(plainView.properties()).doesNotContainKey(BindingBoundary.PROPERTY);
    assertThat(ids(as("legacy", "alice", "SELECT id FROM " + t))).containsExactly(1L, 2L);

    // The first protected write puts the table under binding from the next sequence number.
    as("legacy", "etl", "INSERT INTO " + t + " VALUES (3, 3.00, 'BOUND-INSERT-CANARY')");
    Table table = icebergTable(t);
    DataFile boundInsert = added(table, table.currentSnapshot()).get(0);
    long boundary = Long.parseLong(table.properties().get(BindingBoundary.PROPERTY));
    assertThat(boundary).isEqualTo(3L);
    assertThat(ids(as("legacy", "alice", "SELECT id FROM " + t))).containsExactly(1L, 2L, 3L);

    // A plaintext file committed afterwards through a catalog without the protector is refused.
    spark.sql("INSERT INTO legacy_plain." + TABLE + " VALUES (4, 4.00, 'PLANTED-CANARY')");
    DataFile planted = added(icebergTable(t), icebergTable(t).currentSnapshot()).get(0);
    Throwable refused = catchThrowable(() -> as("legacy", "alice", "SELECT * FROM " + t));
    UnverifiedFileException unverified = causeOf(refused, UnverifiedFileException.class);
    assertThat(unverified.getMessage())
        .contains(planted.location())
        .contains("protected table " + TABLE)
        .contains("the protector did not write it")
        .contains("spark.sql.catalog.legacy.protector.accept-unverified-files=true")
        .contains("CALL legacy.system.rewrite_protected(table => '" + TABLE + "')");
    assertThat(stackTrace(refused)).doesNotContain("PLANTED-CANARY");

    // Accepted explicitly: per read, or per session.
    assertThat(
            ids(
                spark
                    .read()
                    .option(CatalogOptions.ACCEPT_UNVERIFIED_FILES.key(), "true")
                    .table(t)
                    .select("id")
                    .collectAsList()))
        .containsExactly(1L, 2L, 3L, 4L);
    spark.conf().set(FileAdmission.sessionSetting("legacy"), "true");
    try {
      assertThat(ids(as("legacy", "alice", "SELECT id FROM " + t))).containsExactly(1L, 2L, 3L, 4L);
    } finally {
      spark.conf().unset(FileAdmission.sessionSetting("legacy"));
    }

    // rewrite_protected will not vouch for the planted file unless told to.
    Throwable rewriteRefused =
        catchThrowable(
            () -> asUser("legacy", "alice", () -> RewriteProtected.of(spark, t).execute()));
    assertThat(causeOf(rewriteRefused, UnverifiedFileException.class).getMessage())
        .contains(planted.location());
    RewriteProtected.Result result =
        asUser(
            "legacy",
            "alice",
            () -> RewriteProtected.of(spark, t).acceptUnverified(true).execute());
    assertThat(result.reasons())
        .containsEntry("plaintext", 1)
        .containsEntry("unbound", 1)
        .containsEntry("unverified", 1)
        .hasSize(3);
    table = icebergTable(t);
    assertThat(liveFiles(table)).allMatch(f -> FileMarker.kindOf(f) == FileMarker.Kind.BOUND);
    assertThat(ids(as("legacy", "alice", "SELECT id FROM " + t))).containsExactly(1L, 2L, 3L, 4L);
    assertThat(
            asUser("legacy", "alice", () -> RewriteProtected.of(spark, t).execute())
                .rewrittenFiles())
        .as("nothing left to bind")
        .isZero();

    // The former legacy rows are bound now: a replay of another file of the table fails on them.
    DataFile rewritten =
        liveFiles(table).stream()
            .filter(f -> !f.location().equals(boundInsert.location()))
            .findFirst()
            .orElseThrow();
    assertSwapFails(t, rewritten, bytesOf(boundInsert), "BOUND-INSERT-CANARY");

    spark.sql(
        "CALL legacy.system.expire_snapshots(table => '"
            + TABLE
            + "', older_than => TIMESTAMP '2999-01-01', retain_last => 1)");
    assertThat(ids(as("legacy", "alice", "SELECT id FROM " + t))).containsExactly(1L, 2L, 3L, 4L);
  }

  @Test
  void filesBoundWithoutTheirBindingStoredReadAsBeforeAndRewriteProtectedStoresIt()
      throws IOException {
    String t = "bind2." + TABLE;
    insert("bind2", 800, 801, "STORED-NOTE");
    Table table = icebergTable(t);
    DataFile stored = added(table, table.currentSnapshot()).get(0);
    String uuid = table.uuid().toString();
    FooterReport storedReport =
        ParquetFooterInspector.inspect(table.io().newInputFile(stored.location()));
    assertThat(storedReport.aadPrefixRequired()).isFalse();
    assertThat(storedReport.storedAadPrefix())
        .contains(
            "iceberg-protector/file-binding/v1:"
                + uuid
                + ":"
                + FileBinding.fileName(stored.location()));
    assertThat(storedReport.toText())
        .contains("(AAD prefix stored: iceberg-protector/file-binding/v1:");

    // a file as this project wrote them before bindings were stored, marked as bound
    DataFile older = appendBoundWithoutStoring(table, 801, "OLDER-NOTE");
    FooterReport olderReport =
        ParquetFooterInspector.inspect(table.io().newInputFile(older.location()));
    assertThat(olderReport.aadPrefixRequired()).isTrue();
    assertThat(olderReport.storedAadPrefix()).isEmpty();
    assertThat(olderReport.toText()).contains("AAD prefix not stored: readers must supply it");
    assertThat(ids(as("bind2", "alice", "SELECT id FROM " + t + " WHERE id >= 800")))
        .containsExactly(800L, 801L);

    RewriteProtected.Result result =
        asUser("bind2", "alice", () -> RewriteProtected.of(spark, t).execute());
    assertThat(result.reasons()).containsEntry("binding-not-stored", 1).hasSize(1);
    table = icebergTable(t);
    for (DataFile file : liveFiles(table)) {
      FooterReport report =
          ParquetFooterInspector.inspect(table.io().newInputFile(file.location()));
      assertThat(report.aadPrefixRequired()).as("%s after the rewrite", file.location()).isFalse();
      assertThat(report.storedAadPrefix()).isPresent();
    }
    assertThat(ids(as("bind2", "alice", "SELECT id FROM " + t + " WHERE id >= 800")))
        .containsExactly(800L, 801L);
    as("bind2", "etl", "DELETE FROM " + t + " WHERE id >= 800");
  }

  /** Appends a file bound as versions before stored bindings wrote it: the prefix not stored. */
  private static DataFile appendBoundWithoutStoring(Table table, long id, String note)
      throws IOException {
    Path file =
        Path.of(URI.create(table.location() + "/data/older-" + UUID.randomUUID() + ".parquet"));
    writeBoundFile(table, file, id, note, FileBinding.of(table), false);
    DataFile data =
        FileMarker.mark(
            DataFiles.builder(table.spec())
                .withPath(file.toUri().toString())
                .withFileSizeInBytes(Files.size(file))
                .withRecordCount(1)
                .withFormat(FileFormat.PARQUET)
                .build(),
            table.spec());
    table.newAppend().appendFile(data).commit();
    return data;
  }

  /** One row under the table's keys, bound with {@code binding}, its prefix stored or not. */
  private static void writeBoundFile(
      Table table, Path file, long id, String note, FileBinding binding, boolean stored)
      throws IOException {
    Files.createDirectories(file.getParent());
    MessageType type = ParquetSchemaUtil.convert(table.schema(), "table");
    org.apache.iceberg.shaded.org.apache.parquet.crypto.FileEncryptionProperties keys =
        ProtectorCrypto.unboundFileEncryption(etlSpec(table), type, file.toUri().toString());
    org.apache.iceberg.shaded.org.apache.parquet.crypto.FileEncryptionProperties.Builder bound =
        org.apache.iceberg.shaded.org.apache.parquet.crypto.FileEncryptionProperties.builder(
                keys.getFooterKey())
            .withFooterKeyMetadata(keys.getFooterKeyMetadata())
            .withAlgorithm(
                org.apache.iceberg.shaded.org.apache.parquet.crypto.ParquetCipher.AES_GCM_V1)
            .withAADPrefix(binding.aadPrefix(file.toUri().toString()));
    if (!stored) {
      bound.withoutAADPrefixStorage();
    }
    if (keys.getEncryptedColumns() != null) {
      bound.withEncryptedColumns(keys.getEncryptedColumns());
    }
    writeRow(file, type, bound.build(), id, note);
  }

  @Test
  void aFileStoringABindingWhereTheTableExpectsAnUnboundFileFails() throws IOException {
    // an unmarked file, accepted explicitly: it is read without a binding
    String t = "bind2." + TABLE;
    Table table = icebergTable(t);
    Path file =
        Path.of(URI.create(table.location() + "/data/planted-" + UUID.randomUUID() + ".parquet"));
    FileBinding elsewhere = FileBinding.of(UUID.randomUUID());
    writeBoundFile(table, file, 1, "STORED-BINDING-CANARY", elsewhere, true);
    DataFile planted =
        DataFiles.builder(table.spec())
            .withPath(file.toUri().toString())
            .withFileSizeInBytes(Files.size(file))
            .withRecordCount(1)
            .withFormat(FileFormat.PARQUET)
            .build();
    table.newAppend().appendFile(planted).commit();
    try {
      List<Row> rows = new ArrayList<>();
      Throwable failure =
          catchThrowable(
              () ->
                  rows.addAll(
                      asUser(
                          "bind2",
                          "alice",
                          () ->
                              spark
                                  .read()
                                  .option(CatalogOptions.ACCEPT_UNVERIFIED_FILES.key(), "true")
                                  .table(t)
                                  .collectAsList())));
      assertThat(rows).isEmpty();
      assertThat(causeOf(failure, FileIntegrityException.class).getMessage())
          .contains(file.getFileName().toString())
          .contains("lists it as a file without binding")
          .contains(
              "the file stores a binding to table "
                  + elsewhere.tableUuid()
                  + ", file "
                  + file.getFileName());
      assertThat(stackTrace(failure)).doesNotContain("STORED-BINDING-CANARY");
    } finally {
      icebergTable(t).newDelete().deleteFile(planted.location()).commit();
    }
  }

  @Test
  void replacingTheTableKeepsItsIdentityAndItsFilesReadable() {
    spark.sql("CREATE TABLE bind2.db.plainfooter USING iceberg AS SELECT 1L AS id, 'RT-1' AS ssn");
    Table created = icebergTable("bind2.db.plainfooter");
    assertThat(created.properties()).containsEntry(BindingBoundary.PROPERTY, "0");
    spark.sql(
        "CREATE OR REPLACE TABLE bind2.db.plainfooter USING iceberg AS"
            + " SELECT 2L AS id, 'RT-2' AS ssn");
    Table replaced = icebergTable("bind2.db.plainfooter");
    assertThat(replaced.uuid()).isEqualTo(created.uuid());
    assertThat(as("bind2", "alice", "SELECT id, ssn FROM bind2.db.plainfooter"))
        .singleElement()
        .satisfies(r -> assertThat(r.getString(1)).isEqualTo("RT-2"));
    assertThat(
            as(
                "bind2",
                "alice",
                "SELECT ssn FROM bind2.db.plainfooter VERSION AS OF "
                    + snapshots(replaced).get(0).snapshotId()))
        .singleElement()
        .satisfies(r -> assertThat(r.getString(0)).isEqualTo("RT-1"));
  }

  // ------------------------------------------------------------------ helpers

  /** Reads {@code table} as alice with {@code swapped} in place of {@code target}: the failure. */
  private static Throwable swapAndRead(String table, DataFile target, byte[] swapped) {
    String catalog = table.substring(0, table.indexOf('.'));
    byte[] original = bytesOf(target);
    overwrite(target, swapped);
    try {
      List<Row> rows = new ArrayList<>();
      Throwable failure =
          catchThrowable(() -> rows.addAll(as(catalog, "alice", "SELECT * FROM " + table)));
      assertThat(rows).as("rows returned from a swapped file").isEmpty();
      return failure;
    } finally {
      overwrite(target, original);
    }
  }

  /**
   * Replaces {@code target}'s bytes with {@code swapped}, reads the table as alice and expects the
   * integrity error naming the file, with no value of the swapped-in file anywhere; then restores.
   */
  private static void assertSwapFails(
      String table, DataFile target, byte[] swapped, String swappedCanary) {
    Throwable failure = swapAndRead(table, target, swapped);
    FileIntegrityException integrity = causeOf(failure, FileIntegrityException.class);
    assertThat(integrity.getMessage())
        .contains(target.location())
        .contains("it is not the file the table expects");
    assertThat(stackTrace(failure)).doesNotContain(swappedCanary);
  }

  private static void insert(String catalog, int from, int to, String note) {
    as(
        catalog,
        "etl",
        String.format(
            "INSERT INTO %s.%s SELECT id, CAST(id * 1.25 AS DECIMAL(10,2)), '%s'"
                + " FROM range(%d, %d, 1, 1)", // one partition: one file per insert
            catalog, TABLE, note, from, to));
  }

  /**
   * Writes 3 rows in the layout of {@code like} (its schema, as the file's footer has it), bound
   * with {@code binding} in a file of the same name.
   */
  private static byte[] writeBound(Table table, DataFile like, FileBinding binding, String note)
      throws IOException {
    return writeBound(table, like, FileBinding.fileName(like.location()), binding, note);
  }

  /** A bound file named {@code name}, with the file schema of {@code like}. */
  private static byte[] writeBound(
      Table table, DataFile like, String name, FileBinding binding, String note)
      throws IOException {
    Path dir = Files.createTempDirectory(root, "rebound");
    Path file = dir.resolve(name);
    ProtectedParquetAppender appender =
        ProtectedParquetAppender.write(org.apache.iceberg.Files.localOutput(file.toFile()))
            .forTable(table)
            .schema(fileSchema(table, like))
            .protection(etlSpec(table))
            .binding(binding)
            .build();
    try (ProtectedParquetAppender closing = appender) {
      for (long id = 10; id < 13; id++) {
        closing.add(
            new GenericInternalRow(
                new Object[] {
                  id,
                  Decimal.apply(new BigDecimal(id * 125).movePointLeft(2), 10, 2),
                  UTF8String.fromString(note)
                }));
      }
    }
    return Files.readAllBytes(file);
  }

  private static void openFooter(
      String location,
      org.apache.iceberg.shaded.org.apache.parquet.crypto.FileDecryptionProperties decryption)
      throws IOException {
    org.apache.iceberg.shaded.org.apache.parquet.ParquetReadOptions options =
        org.apache.iceberg.shaded.org.apache.parquet.ParquetReadOptions.builder()
            .withDecryption(decryption)
            .build();
    org.apache.iceberg.shaded.org.apache.parquet.hadoop.ParquetFileReader.open(
            new io.icebergprotector.spark.read.ParquetInputFileAdapter(
                org.apache.iceberg.Files.localInput(Path.of(URI.create(location)).toFile())),
            options)
        .close();
  }

  /** The Iceberg schema of a bound data file, from its footer (nullability as written). */
  private static org.apache.iceberg.Schema fileSchema(Table table, DataFile file) {
    org.apache.iceberg.shaded.org.apache.parquet.ParquetReadOptions options =
        org.apache.iceberg.shaded.org.apache.parquet.ParquetReadOptions.builder()
            .withDecryption(
                ProtectorCrypto.fileDecryption(
                    etlSpec(table), file.location(), FileBinding.of(table)))
            .build();
    try (org.apache.iceberg.shaded.org.apache.parquet.hadoop.ParquetFileReader reader =
        org.apache.iceberg.shaded.org.apache.parquet.hadoop.ParquetFileReader.open(
            new io.icebergprotector.spark.read.ParquetInputFileAdapter(
                table.io().newInputFile(file.location())),
            options)) {
      return ParquetSchemaUtil.convert(reader.getFileMetaData().getSchema());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** A file as protector versions before file binding wrote it: same keys, no AAD prefix. */
  private static void writeUnbound(Table table, Path file, long id, String note)
      throws IOException {
    MessageType type = ParquetSchemaUtil.convert(table.schema(), "table");
    writeRow(
        file,
        type,
        ProtectorCrypto.unboundFileEncryption(etlSpec(table), type, file.toString()),
        id,
        note);
  }

  /** One row (id, salary, note) written by parquet-mr's example writer. */
  private static void writeRow(
      Path file,
      MessageType type,
      org.apache.iceberg.shaded.org.apache.parquet.crypto.FileEncryptionProperties encryption,
      long id,
      String note)
      throws IOException {
    SimpleGroupFactory groups = new SimpleGroupFactory(type);
    try (ParquetWriter<Group> out =
        ExampleParquetWriter.builder(new LocalOutputFile(file))
            .withType(type)
            .withEncryption(encryption)
            .build()) {
      Group g = groups.newGroup();
      g.append("id", id);
      g.append("salary", id * 100);
      g.append("note", note);
      out.write(g);
    }
  }

  /** Appends an unbound file through Iceberg's API, as an older protector version committed it. */
  private static void appendUnbound(Table table, long id, String note) throws IOException {
    Path file =
        Path.of(URI.create(table.location() + "/data/unbound-" + UUID.randomUUID() + ".parquet"));
    Files.createDirectories(file.getParent());
    writeUnbound(table, file, id, note);
    table
        .newAppend()
        .appendFile(
            DataFiles.builder(table.spec())
                .withPath(file.toUri().toString())
                .withFileSizeInBytes(Files.size(file))
                .withRecordCount(1)
                .withFormat(FileFormat.PARQUET)
                .build())
        .commit();
  }

  /** The writer's protection of the table in the catalog where it is protected. */
  private static ProtectionSpec etlSpec(Table table) {
    String catalog =
        table.name().startsWith("legacy_plain.") || table.name().startsWith("legacy.")
            ? "legacy"
            : "bind";
    return asUser(
        catalog,
        "etl",
        () -> {
          try {
            ProtectingSparkCatalog protecting =
                (ProtectingSparkCatalog) spark.sessionState().catalogManager().catalog(catalog);
            return ((ProtectedTable)
                    protecting.loadTable(Identifier.of(new String[] {"db"}, "strict")))
                .protection();
          } catch (Exception e) {
            throw new IllegalStateException(e);
          }
        });
  }

  private static List<Row> as(String catalog, String user, String query) {
    return asUser(catalog, user, () -> spark.sql(query).collectAsList());
  }

  private static Table icebergTable(String name) {
    try {
      return Spark3Util.loadIcebergTable(spark, name);
    } catch (Exception e) {
      throw new IllegalStateException("Cannot load " + name, e);
    }
  }

  private static List<Snapshot> snapshots(Table table) {
    return StreamSupport.stream(table.snapshots().spliterator(), false)
        .sorted(java.util.Comparator.comparingLong(Snapshot::sequenceNumber))
        .collect(Collectors.toList());
  }

  private static List<DataFile> added(Table table, Snapshot snapshot) {
    List<DataFile> files = new ArrayList<>();
    snapshot.addedDataFiles(table.io()).forEach(files::add);
    return files;
  }

  private static List<DataFile> liveFiles(Table table) {
    List<DataFile> files = new ArrayList<>();
    try (CloseableIterable<org.apache.iceberg.FileScanTask> tasks = table.newScan().planFiles()) {
      tasks.forEach(t -> files.add(t.file()));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return files;
  }

  private static Path pathOf(DataFile file) {
    return Path.of(URI.create(file.location()));
  }

  private static byte[] bytesOf(DataFile file) {
    try {
      return Files.readAllBytes(pathOf(file));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * Overwrites a data file in place. Hadoop's local file system would notice through its {@code
   * .crc} sidecar, which object stores do not have: drop it so the read reaches Parquet.
   */
  private static void overwrite(DataFile file, byte[] bytes) {
    Path path = pathOf(file);
    try {
      Files.write(path, bytes);
      Files.deleteIfExists(path.resolveSibling("." + path.getFileName() + ".crc"));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static List<Long> ids(List<Row> rows) {
    return rows.stream().map(r -> r.getLong(0)).sorted().collect(Collectors.toList());
  }
}
