/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.spark.read;

import static io.icebergprotector.spark.read.ProtectedFiltersTest.eq;
import static io.icebergprotector.spark.read.ProtectedFiltersTest.isNull;
import static io.icebergprotector.spark.read.ProtectedReadTest.roundTrip;
import static org.apache.iceberg.types.Types.NestedField.optional;
import static org.apache.iceberg.types.Types.NestedField.required;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.icebergprotector.kms.KmsSettings;
import io.icebergprotector.kms.LocalKeyService;
import io.icebergprotector.kms.Passphrase;
import io.icebergprotector.policy.Mask;
import io.icebergprotector.policy.Policy;
import io.icebergprotector.policy.Principal;
import io.icebergprotector.spark.core.ProtectionSpec;
import io.icebergprotector.spark.core.ProtectorContext;
import io.icebergprotector.spark.crypto.KeyServiceRegistry;
import io.icebergprotector.spark.crypto.ProtectorCrypto;
import io.icebergprotector.spark.masks.ColumnMask;
import io.icebergprotector.spark.masks.ExpectedMasks;
import io.icebergprotector.spark.masks.MaskEngine;
import io.icebergprotector.spark.metrics.KeyServiceCallsMetric;
import io.icebergprotector.spark.testing.TestSessions;
import io.icebergprotector.spark.write.ProtectedParquetAppender;
import io.icebergprotector.testing.TestPolicy;
import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.hadoop.HadoopTables;
import org.apache.iceberg.io.CloseableIterator;
import org.apache.iceberg.io.FileAppender;
import org.apache.iceberg.mapping.NameMapping;
import org.apache.iceberg.parquet.VectorizedParquetReader;
import org.apache.iceberg.shaded.org.apache.parquet.ParquetReadOptions;
import org.apache.iceberg.spark.data.vectorized.VectorizedSparkParquetReaders;
import org.apache.iceberg.types.Types;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.CatalystTypeConverters;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.connector.expressions.filter.Predicate;
import org.apache.spark.sql.connector.metric.CustomMetric;
import org.apache.spark.sql.connector.metric.CustomTaskMetric;
import org.apache.spark.sql.connector.read.Batch;
import org.apache.spark.sql.connector.read.InputPartition;
import org.apache.spark.sql.connector.read.PartitionReader;
import org.apache.spark.sql.connector.read.PartitionReaderFactory;
import org.apache.spark.sql.connector.read.Scan;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.Decimal;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;
import org.apache.spark.sql.vectorized.ColumnarBatch;
import org.apache.spark.unsafe.types.UTF8String;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import scala.Function1;

/**
 * The columnar read path against the row path, on a flat table with a mask of every kind: two
 * encrypted files (one with a row group per row) written by the protected appender, and one
 * plaintext file written before protection. Batches hold two rows, so batches end inside row groups
 * too. alice: clear; bob: masks, salary denied; carol: no role.
 */
class ProtectedBatchReadTest {
  static final String POLICY =
      TestPolicy.builder()
          .role("admin", "alice")
          .role("analyst", "bob")
          .role("etl", "etl")
          .keys("pii", "fin", "ops", "footer")
          .table(
              "db.flat",
              t ->
                  t.footerKey("footer")
                      .writers("etl")
                      .column(
                          "ssn",
                          c ->
                              c.key("pii").clear("admin").masked("analyst", "partial(keep_last=4)"))
                      .column("email", c -> c.key("pii").clear("admin").masked("analyst", "hash"))
                      .column("salary", c -> c.key("fin").clear("admin"))
                      .column("birth", c -> c.key("pii").clear("admin").masked("analyst", "year"))
                      .column("seen", c -> c.key("pii").clear("admin").masked("analyst", "year"))
                      .column("code", c -> c.key("ops").clear("admin").masked("analyst", "hash"))
                      .column("card", c -> c.key("ops").clear("admin").masked("analyst", "redact"))
                      .column("score", c -> c.key("ops").clear("admin").masked("analyst", "redact"))
                      .column("token", c -> c.key("ops").clear("admin").masked("analyst", "hash")))
          .render();

  static final Schema SCHEMA =
      new Schema(
          required(1, "id", Types.LongType.get()),
          optional(2, "name", Types.StringType.get()),
          optional(3, "ssn", Types.StringType.get()),
          optional(4, "email", Types.StringType.get()),
          optional(5, "salary", Types.DecimalType.of(10, 2)),
          optional(6, "birth", Types.DateType.get()),
          optional(7, "seen", Types.TimestampType.withZone()),
          optional(8, "code", Types.IntegerType.get()),
          optional(9, "card", Types.LongType.get()),
          optional(10, "score", Types.DoubleType.get()),
          optional(11, "token", Types.BinaryType.get()));

  /** A row of {@link #SCHEMA}. */
  record Item(
      long id,
      String name,
      String ssn,
      String email,
      BigDecimal salary,
      LocalDate birth,
      Instant seen,
      Integer code,
      Long card,
      Double score,
      byte[] token) {
    static Item of(long id, String name) {
      return new Item(
          id,
          name,
          String.format("%03d-%02d-%04d", id % 1000, id % 100, id * 7 % 10000),
          name.toLowerCase() + "@example.com",
          BigDecimal.valueOf(id * 12345, 2),
          LocalDate.of(1960 + (int) (id % 50), 1 + (int) (id % 12), 1 + (int) (id % 28)),
          Instant.parse("2020-02-03T04:05:06.123456Z").plusSeconds(id * 86_400L * 40),
          (int) (id * 31),
          id * 1_000_003L,
          id / 3.0,
          new byte[] {(byte) id, 1, 2});
    }

    static Item empty(long id, String name) {
      return new Item(id, name, null, null, null, null, null, null, null, null, null);
    }
  }

  static final List<Item> PLAIN = List.of(Item.of(1, "Ann"), Item.empty(2, "Bob"));
  static final List<Item> BIG =
      List.of(
          Item.of(11, "Dan"),
          Item.of(12, "Eve"),
          Item.empty(13, "Fay"),
          Item.of(14, "Gus"),
          Item.of(15, "Hal"));
  static final List<Item> SMALL =
      List.of(Item.of(21, "Ida"), Item.empty(22, "Jon"), Item.of(23, "Kim"));

  @TempDir static Path dir;
  static SparkSession spark;
  static Policy policy;
  static KmsSettings kms;
  static Table table;
  static DataFile bigFile;

  @BeforeAll
  static void setUp() throws IOException {
    Path keystore = dir.resolve("keys.p12");
    Path passphraseFile = dir.resolve("passphrase");
    Files.writeString(passphraseFile, "batch-test-" + System.nanoTime());
    try (Passphrase passphrase = Passphrase.fromFile(passphraseFile);
        LocalKeyService keys = LocalKeyService.open(keystore, passphrase, true)) {
      for (String key : List.of("pii", "fin", "ops", "footer")) {
        keys.createKey(key);
      }
    }
    kms =
        KmsSettings.builder(KmsSettings.Type.LOCAL)
            .keystore(keystore.toString())
            .passphrase(io.icebergprotector.kms.SecretRef.ofFile(passphraseFile.toString()))
            .build();
    policy = Policy.parse(POLICY, "batch-test-policy");
    spark = TestSessions.local("protected-batch-read-test").getOrCreate();
    spark.conf().set("spark.sql.datetime.java8API.enabled", "true");
    table =
        new HadoopTables(new Configuration())
            .create(SCHEMA, PartitionSpec.unpartitioned(), dir.resolve("flat").toString());
    appendPlaintext(PLAIN);
    bigFile = appendProtected(BIG, Map.of());
    // one row group per row: filters on clear columns prune row groups of encrypted files
    appendProtected(
        SMALL,
        Map.of(
            "write.parquet.row-group-size-bytes", "1",
            "write.parquet.row-group-check-min-record-count", "1",
            "write.parquet.row-group-check-max-record-count", "1"));
  }

  @AfterAll
  static void tearDown() {
    TestSessions.stop(spark);
  }

  static ProtectionSpec spec(String user) {
    return ProtectionSpec.resolve(
        ProtectorContext.of(policy, kms),
        policy.table("db.flat").orElseThrow(),
        table.schema(),
        Principal.user(user));
  }

  static void appendPlaintext(List<Item> items) {
    File file = newDataFile("plain");
    FileAppender<Record> appender = TestTables.plainAppender(file, SCHEMA);
    try (FileAppender<Record> closing = appender) {
      for (Item item : items) {
        GenericRecord record = GenericRecord.create(SCHEMA);
        record.setField("id", item.id());
        record.setField("name", item.name());
        record.setField("ssn", item.ssn());
        record.setField("email", item.email());
        record.setField("salary", item.salary());
        record.setField("birth", item.birth());
        record.setField("seen", item.seen() == null ? null : item.seen().atOffset(ZoneOffset.UTC));
        record.setField("code", item.code());
        record.setField("card", item.card());
        record.setField("score", item.score());
        record.setField(
            "token", item.token() == null ? null : java.nio.ByteBuffer.wrap(item.token()));
        closing.add(record);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    table
        .newAppend()
        .appendFile(
            DataFiles.builder(table.spec())
                .withInputFile(org.apache.iceberg.Files.localInput(file))
                .withMetrics(appender.metrics())
                .withFormat(FileFormat.PARQUET)
                .build())
        .commit();
  }

  /** Writes through the protected appender (as etl), with its metrics (no protected bounds). */
  static DataFile appendProtected(List<Item> items, Map<String, String> properties) {
    File file = newDataFile("enc");
    ProtectedParquetAppender appender =
        ProtectedParquetAppender.write(org.apache.iceberg.Files.localOutput(file))
            .schema(SCHEMA)
            .setAll(properties)
            .protection(spec("etl"))
            .binding(io.icebergprotector.spark.crypto.FileBinding.of(table))
            .build();
    try (ProtectedParquetAppender closing = appender) {
      for (Item item : items) {
        closing.add(internalRow(item));
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    DataFile dataFile =
        DataFiles.builder(table.spec())
            .withInputFile(org.apache.iceberg.Files.localInput(file))
            .withMetrics(appender.metrics())
            .withSplitOffsets(appender.splitOffsets())
            .withEncryptionKeyMetadata(appender.keyMetadata())
            .withFormat(FileFormat.PARQUET)
            .build();
    table.newAppend().appendFile(dataFile).commit();
    return dataFile;
  }

  static InternalRow internalRow(Item item) {
    return new GenericInternalRow(
        new Object[] {
          item.id(),
          UTF8String.fromString(item.name()),
          item.ssn() == null ? null : UTF8String.fromString(item.ssn()),
          item.email() == null ? null : UTF8String.fromString(item.email()),
          item.salary() == null ? null : Decimal.apply(item.salary()),
          item.birth() == null ? null : (int) item.birth().toEpochDay(),
          item.seen() == null
              ? null
              : item.seen().getEpochSecond() * 1_000_000L + item.seen().getNano() / 1000,
          item.code(),
          item.card(),
          item.score(),
          item.token()
        });
  }

  static File newDataFile(String prefix) {
    Path data = dir.resolve("flat").resolve("data");
    try {
      Files.createDirectories(data);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return data.resolve(prefix + "-" + UUID.randomUUID() + ".parquet").toFile();
  }

  static ProtectedScan scan(
      String user, boolean columnar, StructType requested, Predicate... predicates) {
    Map<String, String> options = new HashMap<>();
    options.put("vectorization-enabled", Boolean.toString(columnar));
    options.put("batch-size", "2");
    ProtectedScanBuilder builder =
        new ProtectedScanBuilder(
            spark,
            table,
            null,
            null,
            table.schema(),
            new CaseInsensitiveStringMap(options),
            spec(user),
            null,
            false);
    builder.pushPredicates(predicates);
    if (requested != null) {
      builder.pruneColumns(requested);
    }
    return (ProtectedScan) builder.build();
  }

  /** Reads every partition the way Spark would: batches if the scan is columnar, else rows. */
  static List<Row> collect(ProtectedScan scan) {
    Batch batch = scan.toBatch();
    // Keep the original alive, as Spark's scan node does: its broadcast is cleaned up once the
    // original is garbage.
    PartitionReaderFactory original = batch.createReaderFactory();
    PartitionReaderFactory factory = roundTrip(original);
    Function1<Object, Object> toRow =
        CatalystTypeConverters.createToScalaConverter(scan.readSchema());
    List<Row> rows = new ArrayList<>();
    for (InputPartition partition : batch.planInputPartitions()) {
      InputPartition shipped = roundTrip(partition);
      assertThat(factory.supportColumnarReads(shipped)).isEqualTo(scan.batchReads());
      if (scan.batchReads()) {
        try (PartitionReader<ColumnarBatch> reader = factory.createColumnarReader(shipped)) {
          while (reader.next()) {
            ColumnarBatch columnar = reader.get();
            assertThat(columnar.numRows()).isBetween(1, 2);
            Iterator<InternalRow> it = columnar.rowIterator();
            while (it.hasNext()) {
              rows.add((Row) toRow.apply(it.next().copy()));
            }
          }
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
      } else {
        try (PartitionReader<InternalRow> reader = factory.createReader(shipped)) {
          while (reader.next()) {
            rows.add((Row) toRow.apply(reader.get().copy()));
          }
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
      }
    }
    java.lang.ref.Reference.reachabilityFence(original);
    rows.sort(Comparator.comparingLong(r -> r.getLong(r.fieldIndex("id"))));
    return rows;
  }

  static List<Long> ids(List<Row> rows) {
    return rows.stream().map(r -> r.getLong(r.fieldIndex("id"))).toList();
  }

  static List<Item> all() {
    List<Item> all = new ArrayList<>(PLAIN);
    all.addAll(BIG);
    all.addAll(SMALL);
    all.sort(Comparator.comparingLong(Item::id));
    return all;
  }

  @ParameterizedTest(name = "columnar={0}")
  @ValueSource(booleans = {true, false})
  void flatProjectionsReadColumnarWhenVectorizationIsOn(boolean columnar) {
    ProtectedScan scan = scan("bob", columnar, null);
    assertThat(scan.batchReads()).isEqualTo(columnar);
    assertThat(scan.columnarSupportMode())
        .isEqualTo(
            columnar ? Scan.ColumnarSupportMode.SUPPORTED : Scan.ColumnarSupportMode.UNSUPPORTED);
    assertThat(scan.description()).contains(columnar ? "columnar" : "rows");
    // ours, then Iceberg's split and delete counts, as Iceberg's own scans report them
    assertThat(scan.supportedCustomMetrics())
        .extracting(CustomMetric::name)
        .containsExactly(KeyServiceCallsMetric.NAME, "numSplits", "numDeletes");
  }

  @ParameterizedTest(name = "user={0}")
  @ValueSource(strings = {"alice", "bob", "carol"})
  void columnarAndRowReadsReturnTheSameRowsForEveryRole(String user) {
    List<Row> columnar = collect(scan(user, true, null));
    List<Row> rows = collect(scan(user, false, null));

    assertThat(ids(columnar)).containsExactly(1L, 2L, 11L, 12L, 13L, 14L, 15L, 21L, 22L, 23L);
    assertThat(columnar).containsExactlyElementsOf(rows);
  }

  @ParameterizedTest(name = "columnar={0}")
  @ValueSource(booleans = {true, false})
  void clearReaderGetsExactValues(boolean columnar) {
    List<Row> rows = collect(scan("alice", columnar, null));
    List<Item> items = all();
    for (int i = 0; i < items.size(); i++) {
      Item item = items.get(i);
      Row row = rows.get(i);
      assertThat(row.getString(1)).isEqualTo(item.name());
      assertThat(row.getString(2)).isEqualTo(item.ssn());
      assertThat(row.getString(3)).isEqualTo(item.email());
      assertThat((BigDecimal) row.get(4)).isEqualTo(item.salary());
      assertThat(row.get(5)).isEqualTo(item.birth());
      assertThat(row.get(6)).isEqualTo(item.seen());
      assertThat(row.get(7)).isEqualTo(item.code());
      assertThat(row.get(8)).isEqualTo(item.card());
      assertThat(row.get(9)).isEqualTo(item.score());
      assertThat((byte[]) row.get(10)).isEqualTo(item.token());
    }
  }

  @ParameterizedTest(name = "columnar={0}")
  @ValueSource(booleans = {true, false})
  void maskedReaderGetsMasksPerColumnAndNullForTheDeniedColumn(boolean columnar) {
    ProtectionSpec bob = spec("bob");
    List<Row> rows = collect(scan("bob", columnar, null));
    byte[] pii = ProtectorCrypto.hashMaskKey(bob, "pii");
    byte[] ops = ProtectorCrypto.hashMaskKey(bob, "ops");
    ColumnMask codeHash =
        MaskEngine.columnMask(
            Mask.hash(), IcebergMaskTypes.of(Types.IntegerType.get()), "code", "", () -> ops);
    List<Item> items = all();
    for (int i = 0; i < items.size(); i++) {
      Item item = items.get(i);
      Row row = rows.get(i);
      assertThat(row.getString(1)).isEqualTo(item.name());
      if (item.ssn() == null) {
        for (int c = 2; c <= 10; c++) {
          assertThat(row.isNullAt(c)).as("column %s of %s", c, item.id()).isTrue();
        }
        continue;
      }
      assertThat(row.getString(2)).isEqualTo(ExpectedMasks.partial(item.ssn(), 4));
      assertThat(row.getString(3)).isEqualTo(ExpectedMasks.hashHex(pii, item.email()));
      assertThat(row.isNullAt(4)).as("salary is denied").isTrue();
      assertThat(row.get(5)).isEqualTo(item.birth().withDayOfYear(1));
      int year = item.seen().atOffset(ZoneOffset.UTC).getYear();
      assertThat(row.get(6)).isEqualTo(Instant.parse(year + "-01-01T00:00:00Z"));
      assertThat(row.get(7)).isEqualTo(codeHash.apply(item.code()));
      assertThat(row.get(8)).isEqualTo(0L);
      assertThat(row.get(9)).isEqualTo(0.0d);
      assertThat((byte[]) row.get(10)).hasSize(32);
    }
  }

  @Test
  void deniedColumnsAreConstantNullVectors() throws IOException {
    StructType idAndSalary =
        new StructType()
            .add("id", DataTypes.LongType, false)
            .add("salary", DataTypes.createDecimalType(10, 2));
    ProtectedScan scan = scan("bob", true, idAndSalary);
    Batch batch = scan.toBatch();
    PartitionReaderFactory factory = batch.createReaderFactory();
    int batches = 0;
    for (InputPartition partition : batch.planInputPartitions()) {
      try (PartitionReader<ColumnarBatch> reader = factory.createColumnarReader(partition)) {
        while (reader.next()) {
          ColumnarBatch columnar = reader.get();
          batches += 1;
          assertThat(columnar.column(1).getClass().getSimpleName())
              .isEqualTo("ConstantColumnVector");
          for (int row = 0; row < columnar.numRows(); row++) {
            assertThat(columnar.column(1).isNullAt(row)).isTrue();
          }
        }
      }
    }
    assertThat(batches).isGreaterThan(1);
  }

  @ParameterizedTest(name = "columnar={0}")
  @ValueSource(booleans = {true, false})
  void filtersOnDeniedColumnsAreNeverPushedAndEveryRowComesBack(boolean columnar) {
    ProtectedScan byNull = scan("bob", columnar, null, isNull("salary"));
    ProtectedScan byValue = scan("bob", columnar, null, eq("ssn", "012-12-0084"));

    assertThat(byNull.planningFilter()).isEqualTo(Expressions.alwaysTrue());
    assertThat(byValue.planningFilter()).isEqualTo(Expressions.alwaysTrue());
    // Spark then evaluates the filters on the NULL (or masked) values it gets
    assertThat(ids(collect(byNull))).hasSize(10);
    assertThat(ids(collect(byValue))).hasSize(10);
  }

  @ParameterizedTest(name = "columnar={0}")
  @ValueSource(booleans = {true, false})
  void filtersOnClearColumnsPruneRowGroupsWithoutRequestingDeniedKeys(boolean columnar) {
    // bob may not unwrap fin: a request for salary's key would be refused and fail the read
    ProtectedScan scan = scan("bob", columnar, null, eq("name", "Kim"));
    assertThat(scan.planningFilter().toString()).contains("name");
    List<Row> rows = collect(scan);
    // the plaintext file and the one-row-group-per-row file keep only what may match
    assertThat(ids(rows)).containsExactly(23L);
    assertThat(rows.stream().filter(r -> r.getLong(0) == 23L).findFirst().orElseThrow().isNullAt(4))
        .isTrue();

    // row positions stay right when row groups before the match are skipped
    StructType withPosition =
        new StructType()
            .add("id", DataTypes.LongType, false)
            .add("_pos", DataTypes.LongType, false)
            .add("_file", DataTypes.StringType, false);
    List<Row> positioned = collect(scan("bob", columnar, withPosition, eq("name", "Kim")));
    assertThat(positioned).hasSize(1);
    assertThat(positioned.get(0).getLong(1)).isEqualTo(2L);
    assertThat(positioned.get(0).getString(2)).endsWith(".parquet");
  }

  @ParameterizedTest(name = "columnar={0}")
  @ValueSource(booleans = {true, false})
  void onlyTheFooterKeyIsUnwrappedWhenNoProtectedColumnIsRead(boolean columnar) {
    StructType visible =
        new StructType()
            .add("id", DataTypes.LongType, false)
            .add("name", DataTypes.StringType)
            .add("salary", DataTypes.createDecimalType(10, 2));
    for (String user : List.of("bob", "carol")) {
      ProtectorCrypto.forgetAllCachedKeys();
      ProtectionSpec spec = spec(user);
      ProtectedScan scan = scan(user, columnar, visible, eq("name", "Kim"));
      long before = KeyServiceRegistry.backendCalls(spec.kms());
      long reported = 0;
      Batch batch = scan.toBatch();
      PartitionReaderFactory factory = batch.createReaderFactory();
      for (InputPartition partition : batch.planInputPartitions()) {
        try (PartitionReader<?> reader =
            columnar ? factory.createColumnarReader(partition) : factory.createReader(partition)) {
          while (reader.next()) {
            reader.get();
          }
          for (CustomTaskMetric metric : reader.currentMetricsValues()) {
            if (metric.name().equals(KeyServiceCallsMetric.NAME)) {
              reported += metric.value();
            }
          }
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
      }
      long calls = KeyServiceRegistry.backendCalls(spec.kms()) - before;
      // the footer key's KEK, once for all files: never salary's (fin), nor the others'
      assertThat(calls).as("key service calls of %s", user).isEqualTo(1L);
      assertThat(reported).as("keyServiceCalls metric of %s", user).isEqualTo(1L);
    }
  }

  @Test
  void icebergVectorizedParquetReaderWithAFilterWouldRequestDeniedColumnKeys() {
    // Why the columnar reader plans row groups itself, as the row reader does
    ProtectionSpec bob = spec("bob");
    Schema readSchema = ProtectedProjection.of(table.schema(), bob).fileSchema();
    ParquetReadOptions options =
        ParquetReadOptions.builder()
            .withDecryption(
                ProtectorCrypto.fileDecryption(
                    bob,
                    bigFile.location(),
                    io.icebergprotector.spark.crypto.FileBinding.of(table)))
            .build();
    VectorizedParquetReader<ColumnarBatch> reader =
        new VectorizedParquetReader<>(
            table.io().newInputFile(bigFile.location()),
            readSchema,
            options,
            fileSchema ->
                VectorizedSparkParquetReaders.buildReader(readSchema, fileSchema, Map.of()),
            NameMapping.empty(),
            Expressions.equal("name", "Eve"),
            true,
            true,
            2);

    assertThatThrownBy(
            () -> {
              try (CloseableIterator<ColumnarBatch> batches = reader.iterator()) {
                batches.hasNext();
              }
            })
        .hasStackTraceContaining("Column [salary]: key access denied")
        .hasStackTraceContaining("ParquetMetricsRowGroupFilter");
  }
}
