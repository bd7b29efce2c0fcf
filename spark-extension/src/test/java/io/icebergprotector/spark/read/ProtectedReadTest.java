/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.spark.read;

import static io.icebergprotector.spark.read.ProtectedFiltersTest.eq;
import static io.icebergprotector.spark.read.ProtectedFiltersTest.isNull;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.icebergprotector.spark.core.ProtectionSpec;
import io.icebergprotector.spark.core.ProtectorException;
import io.icebergprotector.spark.crypto.ProtectorCrypto;
import io.icebergprotector.spark.masks.ExpectedMasks;
import io.icebergprotector.spark.read.TestTables.Person;
import io.icebergprotector.spark.testing.TestSessions;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.io.RandomAccessFile;
import java.lang.ref.Reference;
import java.math.BigDecimal;
import java.nio.file.Path;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Table;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.hadoop.HadoopTables;
import org.apache.iceberg.parquet.ParquetReader;
import org.apache.iceberg.shaded.org.apache.parquet.ParquetReadOptions;
import org.apache.iceberg.shaded.org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.iceberg.shaded.org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.iceberg.shaded.org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.iceberg.spark.SparkSchemaUtil;
import org.apache.iceberg.spark.data.SparkParquetReaders;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.CatalystTypeConverters;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.connector.expressions.filter.Predicate;
import org.apache.spark.sql.connector.read.Batch;
import org.apache.spark.sql.connector.read.InputPartition;
import org.apache.spark.sql.connector.read.PartitionReader;
import org.apache.spark.sql.connector.read.PartitionReaderFactory;
import org.apache.spark.sql.connector.read.Statistics;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import scala.Function1;

/**
 * Reads through the protected scan (builder, planning, partitions, reader) without the catalog: a
 * table with a plaintext file written by plain Iceberg before protection and a PME-encrypted file,
 * read as a clear reader (alice), a masked reader (bob: salary denied) and a reader without any
 * role (carol).
 */
class ProtectedReadTest {
  static final List<Person> PLAIN =
      List.of(
          new Person(
              1,
              "Ann",
              "123-45-6789",
              "ann@example.com",
              new BigDecimal("1234.50"),
              LocalDate.of(1990, 5, 17),
              "Berlin",
              "10115",
              List.of("a", "b")),
          new Person(
              2,
              "Bob",
              "987-65-4321",
              "bob@example.com",
              new BigDecimal("99.99"),
              LocalDate.of(1985, 12, 1),
              "Paris",
              "75001",
              null),
          new Person(3, "Cid", null, null, null, null, null, null, null));
  static final List<Person> ENCRYPTED =
      List.of(
          new Person(
              11,
              "Dan",
              "111-22-3333",
              "dan@example.com",
              new BigDecimal("500.00"),
              LocalDate.of(1970, 1, 2),
              "Rome",
              "00100",
              List.of("t1")),
          new Person(
              12,
              "Eve",
              "444-55-6666",
              "eve@example.com",
              new BigDecimal("1234.50"),
              LocalDate.of(2001, 2, 3),
              "Oslo",
              "0150",
              List.of()),
          new Person(13, "Fay", null, null, null, null, null, null, null));

  @TempDir static Path dir;
  static ReadFixture fixture;
  static SparkSession spark;
  static HadoopTables tables;
  static Table people;
  static long plaintextSnapshot;
  static DataFile encryptedFile;

  @BeforeAll
  static void setUp() {
    fixture = new ReadFixture(dir.resolve("keys"));
    spark = TestSessions.local("protected-read-test").getOrCreate();
    spark.conf().set("spark.sql.datetime.java8API.enabled", "true");
    tables = new HadoopTables(new Configuration());
    people = newTable("people");
    TestTables.appendPlaintext(people, PLAIN);
    plaintextSnapshot = people.currentSnapshot().snapshotId();
    encryptedFile = TestTables.appendEncrypted(people, writer(people), ENCRYPTED, 1);
  }

  @AfterAll
  static void tearDown() {
    TestSessions.stop(spark);
  }

  static Table newTable(String name) {
    return tables.create(
        ReadFixture.SCHEMA, PartitionSpec.unpartitioned(), dir.resolve(name).toString());
  }

  static ProtectionSpec writer(Table table) {
    return fixture.spec("db.people", table.schema(), "etl");
  }

  static ProtectionSpec reader(String user) {
    return fixture.spec("db.people", people.schema(), user);
  }

  static ProtectedScan scan(
      Table table,
      ProtectionSpec spec,
      Map<String, String> options,
      StructType requested,
      Predicate... predicates) {
    ProtectedScanBuilder builder =
        new ProtectedScanBuilder(
            spark,
            table,
            null,
            null,
            table.schema(),
            new CaseInsensitiveStringMap(options),
            spec,
            null,
            false);
    Predicate[] postScan = builder.pushPredicates(predicates);
    assertThat(postScan).containsExactly(predicates); // Spark re-evaluates every predicate
    if (requested != null) {
      builder.pruneColumns(requested);
    }
    return (ProtectedScan) builder.build();
  }

  static List<Row> read(ProtectionSpec spec, Predicate... predicates) {
    return collect(scan(people, spec, Map.of(), null, predicates));
  }

  /** Plans, ships (Java serialization, as to executors) and reads every partition. */
  static List<Row> collect(ProtectedScan scan) {
    Batch batch = scan.toBatch();
    // The driver's factory holds the broadcasts; kept reachable until the reads end (as Spark's
    // plan keeps them while its tasks run), or the context cleaner may drop their blocks once GC
    // collects it, and the shipped copy fails with "Failed to get broadcast_N_piece0".
    PartitionReaderFactory driverFactory = batch.createReaderFactory();
    PartitionReaderFactory factory = roundTrip(driverFactory);
    Function1<Object, Object> toRow =
        CatalystTypeConverters.createToScalaConverter(scan.readSchema());
    List<Row> rows = new ArrayList<>();
    for (InputPartition partition : batch.planInputPartitions()) {
      try (PartitionReader<InternalRow> reader = factory.createReader(roundTrip(partition))) {
        while (reader.next()) {
          rows.add((Row) toRow.apply(reader.get().copy()));
        }
      } catch (IOException e) {
        throw new RuntimeException(e);
      }
    }
    Reference.reachabilityFence(driverFactory);
    rows.sort(Comparator.comparingLong(r -> r.getLong(r.fieldIndex("id"))));
    return rows;
  }

  @SuppressWarnings("unchecked")
  static <T> T roundTrip(T value) {
    try {
      ByteArrayOutputStream bytes = new ByteArrayOutputStream();
      try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
        out.writeObject(value);
      }
      try (ObjectInputStream in =
          new ObjectInputStream(new ByteArrayInputStream(bytes.toByteArray()))) {
        return (T) in.readObject();
      }
    } catch (IOException | ClassNotFoundException e) {
      throw new RuntimeException("not serializable: " + value, e);
    }
  }

  static Row byId(List<Row> rows, long id) {
    return rows.stream().filter(r -> r.getLong(r.fieldIndex("id")) == id).findFirst().orElseThrow();
  }

  static List<Long> ids(List<Row> rows) {
    return rows.stream().map(r -> r.getLong(r.fieldIndex("id"))).toList();
  }

  @Test
  void clearReaderReadsExactValuesFromPlaintextAndEncryptedFiles() {
    List<Row> rows = read(reader("alice"));

    assertThat(ids(rows)).containsExactly(1L, 2L, 3L, 11L, 12L, 13L);
    for (Person p : concat(PLAIN, ENCRYPTED)) {
      Row row = byId(rows, p.id());
      assertThat(row.getString(1)).isEqualTo(p.name());
      assertThat(row.getString(2)).isEqualTo(p.ssn());
      assertThat(row.getString(3)).isEqualTo(p.email());
      assertThat((BigDecimal) row.get(4)).isEqualTo(p.salary());
      assertThat(row.get(5)).isEqualTo(p.birth());
      if (p.hasAddress()) {
        assertThat(row.getStruct(6).getString(0)).isEqualTo(p.city());
        assertThat(row.getStruct(6).getString(1)).isEqualTo(p.zip());
      } else {
        assertThat(row.isNullAt(6)).isTrue();
      }
      assertThat(row.isNullAt(7) ? null : row.getList(7)).isEqualTo(p.tags());
    }
  }

  @Test
  void maskedReaderGetsMasksAndNullForDeniedColumns() {
    ProtectionSpec bob = reader("bob");
    List<Row> rows = read(bob);
    byte[] hashKey = ProtectorCrypto.hashMaskKey(bob, "pii");

    assertThat(ids(rows)).containsExactly(1L, 2L, 3L, 11L, 12L, 13L);
    for (Person p : concat(PLAIN, ENCRYPTED)) {
      Row row = byId(rows, p.id());
      assertThat(row.getString(1)).isEqualTo(p.name());
      assertThat(row.getString(2))
          .isEqualTo(p.ssn() == null ? null : ExpectedMasks.partial(p.ssn(), 4));
      assertThat(row.getString(3))
          .isEqualTo(p.email() == null ? null : ExpectedMasks.hashHex(hashKey, p.email()));
      assertThat(row.isNullAt(4)).as("salary is denied").isTrue();
      assertThat(row.get(5)).isEqualTo(p.birth() == null ? null : p.birth().withDayOfYear(1));
      if (p.hasAddress()) {
        assertThat(row.getStruct(6).getString(0)).isEqualTo(p.city());
        assertThat(row.getStruct(6).getString(1)).isEqualTo("****");
      } else {
        assertThat(row.isNullAt(6)).isTrue();
      }
    }
    assertThat(byId(rows, 1).getString(2)).isEqualTo("*******6789");
  }

  @Test
  void readerWithoutRoleGetsNullForEveryProtectedColumnWithoutRequestingTheirKeys() {
    // carol may only unwrap the footer key: any request for pii or fin would fail the read
    List<Row> rows = read(reader("carol"));

    assertThat(ids(rows)).containsExactly(1L, 2L, 3L, 11L, 12L, 13L);
    for (Person p : concat(PLAIN, ENCRYPTED)) {
      Row row = byId(rows, p.id());
      assertThat(row.getString(1)).isEqualTo(p.name());
      for (int i = 2; i <= 5; i++) {
        assertThat(row.isNullAt(i)).isTrue();
      }
      if (p.hasAddress()) {
        assertThat(row.getStruct(6).getString(0)).isEqualTo(p.city());
        assertThat(row.getStruct(6).isNullAt(1)).as("address.zip is denied").isTrue();
      }
    }
  }

  @Test
  void readSchemaReportsProtectedColumnsNullable() {
    StructType schema = scan(people, reader("carol"), Map.of(), null).readSchema();

    assertThat(schema.apply("id").nullable()).isFalse();
    assertThat(schema.apply("ssn").nullable()).isTrue();
    StructType address = (StructType) schema.apply("address").dataType();
    assertThat(address.apply("zip").nullable()).isTrue();
  }

  @Test
  void filtersOnVisibleColumnsPruneRowGroupsOfEncryptedFilesForADeniedReader() {
    // one row per row group; file metrics of the plaintext file prune it entirely
    ProtectedScan scan = scan(people, reader("carol"), Map.of(), null, eq("name", "Eve"));

    assertThat(scan.planningFilter().toString()).contains("name");
    assertThat(ids(collect(scan))).containsExactly(12L);
  }

  @Test
  void filtersOnHiddenColumnsAreLeftToSparkAndNeverPrune() {
    ProtectedScan bySsn = scan(people, reader("bob"), Map.of(), null, eq("ssn", "444-55-6666"));
    ProtectedScan bySalary = scan(people, reader("bob"), Map.of(), null, isNull("salary"));

    assertThat(bySsn.planningFilter()).isEqualTo(Expressions.alwaysTrue());
    // all rows come back: Spark then filters the masked (or NULL) values
    assertThat(ids(collect(bySsn))).containsExactly(1L, 2L, 3L, 11L, 12L, 13L);
    assertThat(ids(collect(bySalary))).containsExactly(1L, 2L, 3L, 11L, 12L, 13L);
    assertThat(bySsn.description()).doesNotContain("444-55-6666").contains("filtersLeftToSpark=1");
  }

  @Test
  void aClearReaderPushesFiltersOnProtectedColumns() {
    ProtectedScan scan = scan(people, reader("alice"), Map.of(), null, eq("ssn", "444-55-6666"));

    assertThat(scan.planningFilter().toString()).contains("ssn");
    // the plaintext file's one row group has bounds around the value and is kept whole; the
    // encrypted file's row groups are pruned by their (decrypted) statistics
    assertThat(ids(collect(scan))).containsExactly(1L, 2L, 3L, 12L);
  }

  @Test
  void icebergParquetReaderWithAFilterWouldRequestDeniedColumnKeys() {
    // Why the reader plans row groups itself: Iceberg's row-group filters read every chunk's
    // metadata, which for bob asks the key service for salary's key (fin) and is refused.
    ProtectionSpec bob = reader("bob");
    org.apache.iceberg.Schema readSchema =
        ProtectedProjection.of(people.schema(), bob).fileSchema();
    ParquetReadOptions options =
        ParquetReadOptions.builder()
            .withDecryption(ProtectorCrypto.fileDecryption(bob, encryptedFile.location()))
            .build();
    ParquetReader<InternalRow> reader =
        new ParquetReader<>(
            people.io().newInputFile(encryptedFile.location()),
            readSchema,
            options,
            fileSchema -> SparkParquetReaders.buildReader(readSchema, fileSchema),
            null,
            Expressions.equal("name", "Eve"),
            false,
            true);

    assertThatThrownBy(() -> reader.iterator().hasNext())
        .hasStackTraceContaining("Column [salary]: key access denied")
        .hasStackTraceContaining("ParquetMetricsRowGroupFilter");
  }

  @Test
  void onDeniedFailRefusesTheQueryAtPlanning() {
    ProtectionSpec strict = fixture.spec("db.strict", people.schema(), "bob");
    StructType idAndSalary =
        new StructType()
            .add("id", DataTypes.LongType, false)
            .add("salary", DataTypes.createDecimalType(10, 2));

    assertThatThrownBy(() -> scan(people, strict, Map.of(), idAndSalary))
        .isInstanceOf(ProtectorException.class)
        .hasMessageContaining("bob")
        .hasMessageContaining("salary")
        .hasMessageContaining("db.strict")
        .hasMessageContaining("on-denied = fail");

    StructType idAndSsn =
        new StructType().add("id", DataTypes.LongType, false).add("ssn", DataTypes.StringType);
    List<Row> rows = collect(scan(people, strict, Map.of(), idAndSsn));
    assertThat(byId(rows, 1).getString(1)).isEqualTo("123-45-6789");
  }

  @Test
  void projectionPruningReadsOnlyTheRequestedColumns() {
    StructType zipOnly =
        new StructType()
            .add("id", DataTypes.LongType, false)
            .add("address", new StructType().add("zip", DataTypes.StringType));
    List<Row> rows = collect(scan(people, reader("bob"), Map.of(), zipOnly));

    assertThat(byId(rows, 1).length()).isEqualTo(2);
    assertThat(byId(rows, 1).getStruct(1).getString(0)).isEqualTo("****");
    assertThat(byId(rows, 1).getStruct(1).length()).isEqualTo(1);
  }

  @Test
  void metadataColumnsWorkAsInIceberg() {
    StructType requested =
        new StructType()
            .add("id", DataTypes.LongType, false)
            .add("ssn", DataTypes.StringType)
            .add("_file", DataTypes.StringType, false)
            .add("_pos", DataTypes.LongType, false)
            .add("_spec_id", DataTypes.IntegerType, false);
    List<Row> rows = collect(scan(people, reader("carol"), Map.of(), requested));

    Row eve = byId(rows, 12);
    assertThat(eve.isNullAt(1)).isTrue();
    assertThat(eve.getString(2)).isEqualTo(encryptedFile.location());
    assertThat(eve.getLong(3)).isEqualTo(1L);
    assertThat(eve.getInt(4)).isEqualTo(0);
    assertThat(byId(rows, 3).getLong(3)).isEqualTo(2L);
  }

  @Test
  void timeTravelReadsTheSelectedSnapshot() {
    List<Row> bySnapshotOption =
        collect(
            scan(
                people,
                reader("alice"),
                Map.of("snapshot-id", Long.toString(plaintextSnapshot)),
                null));
    assertThat(ids(bySnapshotOption)).containsExactly(1L, 2L, 3L);

    ProtectedScanBuilder versionAsOf =
        new ProtectedScanBuilder(
            spark,
            people,
            plaintextSnapshot,
            null,
            people.schema(),
            CaseInsensitiveStringMap.empty(),
            reader("alice"),
            null,
            false);
    assertThat(ids(collect((ProtectedScan) versionAsOf.build()))).containsExactly(1L, 2L, 3L);

    long afterFirst = people.snapshot(plaintextSnapshot).timestampMillis();
    List<Row> byTimestamp =
        collect(
            scan(
                people,
                reader("alice"),
                Map.of("as-of-timestamp", Long.toString(afterFirst)),
                null));
    assertThat(ids(byTimestamp)).containsExactly(1L, 2L, 3L);
  }

  @Test
  void statisticsAndDescriptionNeverShowValues() {
    ProtectedScan scan =
        scan(people, reader("bob"), Map.of(), null, eq("name", "Eve"), eq("ssn", "111-22-3333"));
    Statistics stats = scan.estimateStatistics();
    String description = scan.description();

    assertThat(stats.numRows().getAsLong()).isEqualTo(3L); // the encrypted file only
    assertThat(description)
        .contains("people")
        .contains("principal=bob")
        .contains("masked=[")
        .contains("ssn:partial(keep_last=4)")
        .contains("denied=[salary:on-denied=null]")
        .doesNotContain("111-22-3333");
  }

  @Test
  void tamperedEncryptedColumnChunkFailsWithAnIntegrityError() throws IOException {
    Table table = newTable("tampered");
    DataFile file = TestTables.appendEncrypted(table, writer(table), ENCRYPTED, 10);
    flipByteInChunk(file.location(), "ssn", reader("alice"));

    ProtectionSpec alice = fixture.spec("db.people", table.schema(), "alice");
    assertThatThrownBy(() -> collect(scan(table, alice, Map.of(), null)))
        .isInstanceOf(ProtectorException.class)
        .hasMessageContaining("Integrity check failed")
        .hasMessageContaining(file.location());

    // a reader who never reads ssn is not affected
    ProtectionSpec carol = fixture.spec("db.people", table.schema(), "carol");
    assertThat(ids(collect(scan(table, carol, Map.of(), null)))).containsExactly(11L, 12L, 13L);
  }

  @Test
  void plaintextFooterAndCtrModeReadAndDetectTampering() throws IOException {
    Table table = newTable("ctr");
    ProtectionSpec etl = fixture.spec("db.pf", table.schema(), "etl");
    DataFile file = TestTables.appendEncrypted(table, etl, ENCRYPTED, 1);

    ProtectionSpec alice = fixture.spec("db.pf", table.schema(), "alice");
    ProtectionSpec bob = fixture.spec("db.pf", table.schema(), "bob");
    ProtectionSpec carol = fixture.spec("db.pf", table.schema(), "carol");
    assertThat(byId(collect(scan(table, alice, Map.of(), null)), 11).getString(2))
        .isEqualTo("111-22-3333");
    assertThat(byId(collect(scan(table, bob, Map.of(), null)), 11).getString(2)).isEqualTo("****");
    List<Row> carolRows = collect(scan(table, carol, Map.of(), null, eq("name", "Dan")));
    assertThat(ids(carolRows)).containsExactly(11L);
    assertThat(carolRows.get(0).isNullAt(2)).isTrue();

    // CTR leaves page payloads unauthenticated; the sealed page header's CRC catches the change
    flipByteInChunk(file.location(), "ssn", alice);
    assertThatThrownBy(() -> collect(scan(table, alice, Map.of(), null)))
        .isInstanceOf(ProtectorException.class)
        .hasMessageContaining("Integrity check failed")
        .hasMessageContaining(file.location());
    assertThat(ids(collect(scan(table, carol, Map.of(), null)))).containsExactly(11L, 12L, 13L);
  }

  /** Flips the second-to-last byte of a column chunk: inside its last data page's payload. */
  static void flipByteInChunk(String location, String column, ProtectionSpec reader)
      throws IOException {
    long position;
    ParquetReadOptions options =
        ParquetReadOptions.builder()
            .withDecryption(ProtectorCrypto.fileDecryption(reader, location))
            .build();
    try (ParquetFileReader parquet =
        ParquetFileReader.open(
            new ParquetInputFileAdapter(org.apache.iceberg.Files.localInput(location)), options)) {
      BlockMetaData rowGroup = parquet.getRowGroups().get(0);
      ColumnChunkMetaData chunk =
          rowGroup.getColumns().stream()
              .filter(c -> c.getPath().toDotString().equals(column))
              .findFirst()
              .orElseThrow();
      position = chunk.getStartingPos() + chunk.getTotalSize() - 2;
    }
    try (RandomAccessFile raf = new RandomAccessFile(location, "rw")) {
      raf.seek(position);
      int b = raf.read();
      raf.seek(position);
      raf.write(b ^ 0x5a);
    }
  }

  @Test
  void smallSplitsReadEveryRowExactlyOnce() {
    Table table = newTable("splits");
    DataFile file = TestTables.appendEncrypted(table, writer(table), ENCRYPTED, 1);
    ProtectionSpec alice = fixture.spec("db.people", table.schema(), "alice");
    long splitSize = Math.max(1, file.fileSizeInBytes() / 7);
    ProtectedScan scan =
        scan(
            table,
            alice,
            Map.of("split-size", Long.toString(splitSize), "file-open-cost", "1"),
            null);

    assertThat(scan.tasks().stream().mapToInt(List::size).sum()).isGreaterThan(1);
    assertThat(ids(collect(scan))).containsExactly(11L, 12L, 13L);
  }

  @Test
  void equalityDeletesOnProtectedColumnsAreRefusedAtPlanning() {
    Table table =
        tables.create(
            ReadFixture.SCHEMA,
            PartitionSpec.unpartitioned(),
            Map.of("format-version", "2"),
            dir.resolve("eq-deletes").toString());
    DataFile data = TestTables.appendPlaintext(table, PLAIN);
    // as another engine would write it: the deleted rows' ssn values, in plaintext
    org.apache.iceberg.DeleteFile deletes =
        org.apache.iceberg.FileMetadata.deleteFileBuilder(table.spec())
            .ofEqualityDeletes(3)
            .withPath(table.location() + "/data/eq-deletes.parquet")
            .withFileSizeInBytes(100)
            .withRecordCount(1)
            .withFormat(org.apache.iceberg.FileFormat.PARQUET)
            .build();
    table.newRowDelta().addDeletes(deletes).commit();
    ProtectionSpec alice = fixture.spec("db.people", table.schema(), "alice");

    assertThatThrownBy(() -> collect(scan(table, alice, Map.of(), null)))
        .isInstanceOf(ProtectorException.class)
        .hasMessageContaining("Refusing to read protected table db.people")
        .hasMessageContaining("equality delete file " + deletes.location())
        .hasMessageContaining(data.location())
        .hasMessageContaining("protected field id(s) [3] ([ssn])");
  }

  @Test
  void partitionMetadataColumnAndIdentityPartitionValues() {
    Table table =
        tables.create(
            ReadFixture.SCHEMA,
            PartitionSpec.builderFor(ReadFixture.SCHEMA).identity("name").build(),
            dir.resolve("partitioned").toString());
    TestTables.appendPlaintext(table, List.of(PLAIN.get(0)), "name=Ann");
    TestTables.appendPlaintext(table, List.of(PLAIN.get(1)), "name=Bob");
    ProtectionSpec bob = fixture.spec("db.people", table.schema(), "bob");
    StructType requested =
        new StructType()
            .add("id", DataTypes.LongType, false)
            .add("name", DataTypes.StringType)
            .add("ssn", DataTypes.StringType)
            .add("_partition", new StructType().add("name", DataTypes.StringType));
    List<Row> rows = collect(scan(table, bob, Map.of(), requested, eq("name", "Bob")));

    assertThat(ids(rows)).containsExactly(2L);
    assertThat(rows.get(0).getString(1)).isEqualTo("Bob");
    assertThat(rows.get(0).getString(2)).isEqualTo("*******4321");
    assertThat(rows.get(0).getStruct(3).getString(0)).isEqualTo("Bob");
  }

  @SafeVarargs
  static List<Person> concat(List<Person>... lists) {
    return Arrays.stream(lists).flatMap(List::stream).toList();
  }

  @Test
  void sparkSchemaMatchesTheIcebergConversionForClearReaders() {
    StructType schema = scan(people, reader("alice"), Map.of(), null).readSchema();
    StructType iceberg = SparkSchemaUtil.convert(people.schema());
    assertThat(schema.fieldNames()).containsExactly(iceberg.fieldNames());
  }
}
