/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.spark.write;

import static io.icebergprotector.spark.write.WriteFixture.ID_CONTROL;
import static io.icebergprotector.spark.write.WriteFixture.NAME_CONTROL;
import static io.icebergprotector.spark.write.WriteFixture.SALARY_CANARY;
import static io.icebergprotector.spark.write.WriteFixture.SCORE_CANARY;
import static io.icebergprotector.spark.write.WriteFixture.SSN_CANARY;
import static io.icebergprotector.spark.write.WriteFixture.ZIP_CANARY;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.icebergprotector.spark.core.ProtectionSpec;
import io.icebergprotector.spark.crypto.FileBinding;
import io.icebergprotector.spark.crypto.ProtectorCrypto;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.Metrics;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.io.OutputFile;
import org.apache.iceberg.io.OutputFileFactory;
import org.apache.iceberg.shaded.org.apache.parquet.crypto.DecryptionKeyRetriever;
import org.apache.iceberg.shaded.org.apache.parquet.crypto.FileDecryptionProperties;
import org.apache.iceberg.shaded.org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.iceberg.shaded.org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.iceberg.shaded.org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.iceberg.shaded.org.apache.parquet.hadoop.metadata.ParquetMetadata;
import org.apache.spark.sql.catalyst.InternalRow;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ProtectedParquetAppenderTest {
  @TempDir static Path temp;

  private static WriteFixture fixture;

  /** Uncompressed, so a byte search would find plaintext if it were there (see the controls). */
  private static final Map<String, String> VISIBLE =
      Map.of(
          TableProperties.PARQUET_COMPRESSION,
          "uncompressed",
          TableProperties.MANIFEST_COMPRESSION,
          "uncompressed",
          TableProperties.DEFAULT_WRITE_METRICS_MODE,
          "full",
          TableProperties.METRICS_MODE_COLUMN_CONF_PREFIX + "ssn",
          "full",
          TableProperties.METRICS_MODE_COLUMN_CONF_PREFIX + "address.zip",
          "truncate(16)",
          TableProperties.METRICS_MODE_COLUMN_CONF_PREFIX + "score",
          "full");

  @BeforeAll
  static void setUp() {
    fixture = new WriteFixture(temp);
  }

  @Test
  void protectedValuesNeverReachDiskOrManifestsInPlaintext() throws IOException {
    Table table = fixture.createTable(null, VISIBLE);
    table.replaceSortOrder().asc("salary").commit();
    ProtectionSpec writer = fixture.spec("db.customers", table, "etl");
    DataFile file = fixture.writeAndAppend(table, writer, WriteFixture.canaryRows(50));

    byte[] data = Files.readAllBytes(WriteFixture.localPath(file.location()));
    // Controls: unprotected values are visible, so the search itself works.
    assertThat(indexOf(data, utf8(NAME_CONTROL))).isNotNegative();
    assertThat(indexOf(data, longLe(ID_CONTROL))).isNotNegative();
    assertThat(new String(data, 0, 4, StandardCharsets.US_ASCII)).isEqualTo("PARE");

    for (Path path : WriteFixture.filesUnder(table.location())) {
      byte[] bytes = Files.readAllBytes(path);
      assertThat(indexOf(bytes, utf8(SSN_CANARY))).as("ssn canary in %s", path).isNegative();
      assertThat(indexOf(bytes, utf8(ZIP_CANARY))).as("zip canary in %s", path).isNegative();
      assertThat(indexOf(bytes, utf8(ZIP_CANARY.substring(0, 12))))
          .as("zip prefix in %s", path)
          .isNegative();
      assertThat(indexOf(bytes, longLe(SALARY_CANARY.unscaledValue().longValueExact())))
          .as("salary canary in %s", path)
          .isNegative();
      assertThat(indexOf(bytes, longLe(Double.doubleToLongBits(SCORE_CANARY))))
          .as("score canary in %s", path)
          .isNegative();
    }
    // Control for manifests: the (truncated) bound of the unprotected name column is there.
    assertThat(
            WriteFixture.filesUnder(table.location()).stream()
                .filter(p -> p.toString().endsWith(".avro"))
                .anyMatch(p -> indexOf(readAll(p), utf8(NAME_CONTROL.substring(0, 16))) >= 0))
        .isTrue();
  }

  @Test
  void metricsCarryNothingAboutProtectedColumns() {
    Table table = fixture.createTable(null, VISIBLE);
    table.replaceSortOrder().asc("salary").asc("ssn").commit();
    ProtectionSpec writer = fixture.spec("db.customers", table, "etl");
    List<InternalRow> rows = WriteFixture.canaryRows(30);
    DataFile file = fixture.writeAndAppend(table, writer, rows);

    Schema schema = table.schema();
    int id = schema.findField("id").fieldId();
    int name = schema.findField("name").fieldId();
    int city = schema.findField("address.city").fieldId();
    Set<Integer> protectedIds = writer.protectedFieldIds(schema);
    assertThat(protectedIds)
        .containsExactlyInAnyOrder(
            schema.findField("ssn").fieldId(),
            schema.findField("salary").fieldId(),
            schema.findField("address.zip").fieldId(),
            schema.findField("score").fieldId());

    assertThat(file.recordCount()).isEqualTo(rows.size());
    Integer[] hidden = protectedIds.toArray(Integer[]::new);
    // Sizes reveal value lengths, counts reveal NULLs and NaNs: none of it for protected columns,
    // although the table asks for full metrics, the sort order for truncate(16), and the value
    // writer counts the NaNs of the protected double.
    for (Map<Integer, ?> map :
        List.of(
            file.columnSizes(),
            file.valueCounts(),
            file.nullValueCounts(),
            file.lowerBounds(),
            file.upperBounds())) {
      assertThat(map).containsKeys(id, name, city).doesNotContainKeys(hidden);
    }
    assertThat(file.nanValueCounts() == null ? Map.of() : file.nanValueCounts())
        .doesNotContainKeys(hidden);
    assertThat(file.valueCounts()).containsEntry(name, (long) rows.size());
    assertThat(file.nullValueCounts()).containsEntry(name, 1L);
    assertThat(file.fileSizeInBytes())
        .isEqualTo(WriteFixture.localPath(file.location()).toFile().length());
    assertThat(file.format()).isEqualTo(FileFormat.PARQUET);
    assertThat(file.sortOrderId()).isEqualTo(table.sortOrder().orderId());
  }

  @Test
  void metricsConfigTurnsProtectedColumnsOff() {
    Table table = fixture.createTable(null, Map.of());
    Schema schema = table.schema();
    ProtectionSpec writer = fixture.spec("db.customers", table, "etl");
    Map<String, String> props = new HashMap<>();
    props.put(TableProperties.DEFAULT_WRITE_METRICS_MODE, "full");
    props.put(TableProperties.METRICS_MODE_COLUMN_CONF_PREFIX + "ssn", "full");
    props.put(TableProperties.METRICS_MODE_COLUMN_CONF_PREFIX + "salary", "none");
    props.put(TableProperties.METRICS_MODE_COLUMN_CONF_PREFIX + "name", "counts");
    var config =
        ProtectedMetrics.metricsConfig(props, schema, null, writer.protectedFieldIds(schema));
    assertThat(config.columnMode("ssn").toString()).isEqualTo("none");
    assertThat(config.columnMode("address.zip").toString()).isEqualTo("none");
    assertThat(config.columnMode("salary").toString()).isEqualTo("none");
    assertThat(config.columnMode("score").toString()).isEqualTo("none");
    assertThat(config.columnMode("id").toString()).isEqualTo("full");
    assertThat(config.columnMode("name").toString()).isEqualTo("counts");
    assertThat(config.columnMode("address.city").toString()).isEqualTo("full");
  }

  @Test
  void backstopDropsEveryEntryOfProtectedFields() {
    Map<Integer, Long> longs = Map.of(1, 10L, 3, 30L);
    Map<Integer, ByteBuffer> bounds =
        Map.of(1, ByteBuffer.wrap(new byte[] {1}), 3, ByteBuffer.wrap(new byte[] {3}));
    Metrics metrics = new Metrics(5L, longs, longs, longs, longs, bounds, bounds);
    Metrics stripped = ProtectedMetrics.withoutFieldMetrics(metrics, Set.of(3, 8));
    assertThat(ProtectedMetrics.hasFieldMetrics(metrics, Set.of(3))).isTrue();
    assertThat(ProtectedMetrics.hasFieldMetrics(stripped, Set.of(3, 8))).isFalse();
    assertThat(stripped.recordCount()).isEqualTo(5L);
    assertThat(stripped.columnSizes()).containsOnlyKeys(1);
    assertThat(stripped.valueCounts()).containsOnlyKeys(1);
    assertThat(stripped.nullValueCounts()).containsOnlyKeys(1);
    assertThat(stripped.nanValueCounts()).containsOnlyKeys(1);
    assertThat(stripped.lowerBounds()).containsOnlyKeys(1);
    assertThat(stripped.upperBounds()).containsOnlyKeys(1);
    assertThat(ProtectedMetrics.withoutFieldMetrics(metrics, Set.of(8))).isSameAs(metrics);
  }

  @Test
  void footerMarksProtectedColumnsEncryptedUnderPolicyKeys() {
    Table table = fixture.createTable(null, Map.of());
    ProtectionSpec writer = fixture.spec("db.customers", table, "etl");
    DataFile file = fixture.writeAndAppend(table, writer, WriteFixture.canaryRows(10));
    ProtectionSpec admin = fixture.spec("db.customers", table, "alice");

    List<String> keyMaterials = new ArrayList<>();
    ParquetMetadata footer =
        WriteFixture.footer(
            file.location(), recording(admin, table, file.location(), keyMaterials));

    Map<String, Boolean> encrypted = new HashMap<>();
    for (BlockMetaData block : footer.getBlocks()) {
      for (ColumnChunkMetaData column : block.getColumns()) {
        encrypted.put(column.getPath().toDotString(), column.isEncrypted());
      }
    }
    assertThat(encrypted)
        .containsEntry("ssn", true)
        .containsEntry("salary", true)
        .containsEntry("address.zip", true)
        .containsEntry("score", true)
        .containsEntry("id", false)
        .containsEntry("name", false)
        .containsEntry("address.city", false);
    assertThat(keyMaterials).isNotEmpty();
    assertThat(keyMaterials)
        .anyMatch(
            m ->
                m.contains("\"isFooterKey\":true") && "footer".equals(jsonField(m, "masterKeyID")));

    // Reading every column resolves each column key from the key material in its chunk metadata.
    List<InternalRow> rows =
        readWith(table, file.location(), recording(admin, table, file.location(), keyMaterials));
    assertThat(rows).hasSize(11);
    for (String material : keyMaterials) {
      assertThat(jsonField(material, "keyMaterialType")).isEqualTo("PKMT1");
      assertThat(material).contains("\"doubleWrapping\":true");
      assertThat(material).doesNotContain(SSN_CANARY);
    }
    assertThat(keyMaterials.stream().map(m -> jsonField(m, "masterKeyID")).distinct().toList())
        .containsExactlyInAnyOrder("footer", "pii", "fin");
  }

  @Test
  void roundTripReturnsExactValues() {
    Table table = fixture.createTable(null, Map.of());
    ProtectionSpec writer = fixture.spec("db.customers", table, "etl");
    List<InternalRow> rows = WriteFixture.canaryRows(20);
    DataFile file = fixture.writeAndAppend(table, writer, rows);
    ProtectionSpec admin = fixture.spec("db.customers", table, "alice");

    List<InternalRow> read = WriteFixture.read(table, file.location(), admin);
    assertSameRows(read, rows);
  }

  @Test
  void unprojectedProtectedColumnsNeedNoColumnKey() {
    Table table = fixture.createTable(null, Map.of());
    DataFile file =
        fixture.writeAndAppend(
            table, fixture.spec("db.customers", table, "etl"), WriteFixture.canaryRows(5));
    // bob may unwrap only the footer key and pii (masked ssn), never fin: reading id and name
    // works.
    ProtectionSpec analyst = fixture.spec("db.customers", table, "bob");
    Schema projection = table.schema().select("id", "name");
    List<InternalRow> read = WriteFixture.read(table, file.location(), analyst, projection);
    assertThat(read).hasSize(6);
    assertThat(read.get(0).getLong(0)).isEqualTo(ID_CONTROL);
    assertThat(read.get(0).getUTF8String(1).toString()).isEqualTo(NAME_CONTROL);
    // ...while asking for salary fails: bob has no access to its key.
    assertThatThrownBy(
            () ->
                WriteFixture.read(table, file.location(), analyst, table.schema().select("salary")))
        .hasStackTraceContaining("not allowed to unwrap with key 'fin'");
  }

  @Test
  void plaintextFooterWithGcmCtrKeepsColumnsEncrypted() throws IOException {
    Table table = fixture.createTable(null, VISIBLE);
    ProtectionSpec writer = fixture.spec("db.customers_plain", table, "etl");
    assertThat(writer.plaintextFooter()).isTrue();
    assertThat(writer.algorithm()).isEqualTo("AES_GCM_CTR_V1");
    List<InternalRow> rows = WriteFixture.canaryRows(25);
    DataFile file = fixture.writeAndAppend(table, writer, rows);

    byte[] data = Files.readAllBytes(WriteFixture.localPath(file.location()));
    assertThat(new String(data, 0, 4, StandardCharsets.US_ASCII)).isEqualTo("PAR1");
    assertThat(indexOf(data, utf8(NAME_CONTROL))).isNotNegative();
    assertThat(indexOf(data, utf8(SSN_CANARY))).isNegative();
    assertThat(indexOf(data, utf8(ZIP_CANARY))).isNegative();
    assertThat(indexOf(data, longLe(SALARY_CANARY.unscaledValue().longValueExact()))).isNegative();

    // The footer is readable without any key; protected chunks are marked encrypted.
    ParquetMetadata footer = WriteFixture.footer(file.location(), null);
    for (ColumnChunkMetaData column : footer.getBlocks().get(0).getColumns()) {
      String path = column.getPath().toDotString();
      boolean isProtected = Set.of("ssn", "salary", "address.zip", "score").contains(path);
      assertThat(column.isEncrypted()).as(path).isEqualTo(isProtected);
    }
    assertThat(footer.getFileMetaData().getEncryptionType().name()).isEqualTo("PLAINTEXT_FOOTER");

    // What a reader without keys sees in the raw thrift footer: the redacted metadata of
    // protected chunks has neither min/max nor size statistics; unprotected chunks keep theirs.
    int footerLength =
        ByteBuffer.wrap(data, data.length - 8, 4).order(ByteOrder.LITTLE_ENDIAN).getInt();
    var raw =
        org.apache.iceberg.shaded.org.apache.parquet.format.Util.readFileMetaData(
            new java.io.ByteArrayInputStream(data, data.length - 8 - footerLength, footerLength));
    for (var chunk : raw.getRow_groups().get(0).getColumns()) {
      String path = String.join(".", chunk.getMeta_data().getPath_in_schema());
      boolean isProtected = Set.of("ssn", "salary", "address.zip", "score").contains(path);
      assertThat(chunk.isSetCrypto_metadata()).as(path).isEqualTo(isProtected);
      if (isProtected) {
        assertThat(chunk.getMeta_data().isSetStatistics()).as(path).isFalse();
        assertThat(chunk.getMeta_data().isSetSize_statistics()).as(path).isFalse();
      } else {
        assertThat(chunk.getMeta_data().isSetStatistics()).as(path).isTrue();
      }
    }
    assertThat(
            raw.getRow_groups().get(0).getColumns().stream()
                .filter(c -> c.getMeta_data().getPath_in_schema().equals(List.of("name")))
                .allMatch(c -> c.getMeta_data().isSetSize_statistics()))
        .isTrue();

    ProtectionSpec admin = fixture.spec("db.customers_plain", table, "alice");
    assertSameRows(WriteFixture.read(table, file.location(), admin), rows);
    assertThat(file.lowerBounds())
        .doesNotContainKeys(writer.protectedFieldIds(table.schema()).toArray(Integer[]::new));
  }

  @Test
  void smallRowGroupsRollWithinOneFile() {
    Map<String, String> props = new HashMap<>();
    props.put(TableProperties.PARQUET_ROW_GROUP_SIZE_BYTES, "4096");
    props.put(TableProperties.PARQUET_ROW_GROUP_CHECK_MIN_RECORD_COUNT, "10");
    props.put(TableProperties.PARQUET_ROW_GROUP_CHECK_MAX_RECORD_COUNT, "50");
    props.put(TableProperties.PARQUET_COMPRESSION, "zstd");
    props.put(TableProperties.PARQUET_COMPRESSION_LEVEL, "5");
    props.put(TableProperties.PARQUET_BLOOM_FILTER_COLUMN_ENABLED_PREFIX + "name", "true");
    props.put(TableProperties.PARQUET_BLOOM_FILTER_COLUMN_ENABLED_PREFIX + "ssn", "true");
    Table table = fixture.createTable(null, props);
    ProtectionSpec writer = fixture.spec("db.customers", table, "etl");
    List<InternalRow> rows = WriteFixture.canaryRows(1500);
    DataFile file = fixture.writeAndAppend(table, writer, rows);

    ProtectionSpec admin = fixture.spec("db.customers", table, "alice");
    ParquetMetadata footer =
        WriteFixture.footer(
            file.location(),
            ProtectorCrypto.fileDecryption(admin, file.location(), FileBinding.of(table)));
    List<BlockMetaData> blocks = footer.getBlocks();
    assertThat(blocks).hasSizeGreaterThan(2);
    assertThat(file.splitOffsets()).hasSize(blocks.size());
    assertThat(file.splitOffsets())
        .containsExactlyElementsOf(blocks.stream().map(BlockMetaData::getStartingPos).toList());
    assertThat(blocks.stream().mapToLong(BlockMetaData::getRowCount).sum()).isEqualTo(rows.size());
    for (ColumnChunkMetaData column : blocks.get(0).getColumns()) {
      assertThat(column.getCodec()).isEqualTo(CompressionCodecName.ZSTD);
      String path = column.getPath().toDotString();
      if (path.equals("name") || path.equals("ssn")) {
        assertThat(column.getBloomFilterOffset()).as(path).isGreaterThanOrEqualTo(0);
      }
    }
    // Every row group decrypts with its own ordinal in the page AADs.
    assertSameRows(WriteFixture.read(table, file.location(), admin), rows);
  }

  @Test
  void appenderWithoutRowsCreatesNoFileAndNeedsNoKeys() throws IOException {
    Table table = fixture.createTable(null, Map.of());
    OutputFile out =
        OutputFileFactory.builderFor(table, 7, 7)
            .format(FileFormat.PARQUET)
            .build()
            .newOutputFile()
            .encryptingOutputFile();
    ProtectedParquetAppender appender =
        ProtectedParquetAppender.write(out)
            .forTable(table)
            .protection(fixture.spec("db.customers", table, "etl"))
            .build();
    assertThat(appender.length()).isZero();
    appender.close();
    Metrics metrics = appender.metrics();
    assertThat(metrics.recordCount()).isZero();
    assertThat(appender.splitOffsets()).isNull();
    assertThat(WriteFixture.localPath(out.location())).doesNotExist();
  }

  @Test
  void lengthGrowsBeforeCloseAndIsExactAfter() throws IOException {
    Table table = fixture.createTable(null, Map.of());
    OutputFile out =
        OutputFileFactory.builderFor(table, 8, 8)
            .format(FileFormat.PARQUET)
            .build()
            .newOutputFile()
            .encryptingOutputFile();
    ProtectedParquetAppender appender =
        ProtectedParquetAppender.write(out)
            .forTable(table)
            .protection(fixture.spec("db.customers", table, "etl"))
            .build();
    WriteFixture.canaryRows(200).forEach(appender::add);
    assertThat(appender.length()).isPositive();
    appender.close();
    assertThat(appender.length())
        .isEqualTo(WriteFixture.localPath(out.location()).toFile().length());
    assertThatThrownBy(() -> appender.add(WriteFixture.canaryRows(1).get(0)))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("Cannot add rows to closed file " + out.location());
  }

  @Test
  void builderRequiresProtection() {
    Table table = fixture.createTable(null, Map.of());
    OutputFile out = table.io().newOutputFile(table.location() + "/data/x.parquet");
    assertThatThrownBy(() -> ProtectedParquetAppender.write(out).forTable(table).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("protection");
  }

  @Test
  void deleteWritersAreRefusedUnlessPositionDeletesAreEnabled() {
    Table table = fixture.createTable(null, Map.of());
    ProtectedFileWriterFactory factory =
        new ProtectedFileWriterFactory(
            table, table.schema(), null, null, fixture.spec("db.customers", table, "etl"));
    var out = OutputFileFactory.builderFor(table, 1, 2).build().newOutputFile();
    assertThatThrownBy(() -> factory.newEqualityDeleteWriter(out, table.spec(), null))
        .isInstanceOf(UnsupportedOperationException.class)
        .hasMessageContaining("Cannot write equality delete files for protected table db.customers")
        .hasMessageContaining("would store the deleted rows' values in plaintext");
    assertThatThrownBy(() -> factory.newPositionDeleteWriter(out, table.spec(), null))
        .isInstanceOf(UnsupportedOperationException.class)
        .hasMessageContaining(
            "Cannot write position delete files for protected table db.customers");
  }

  // ---- helpers ----

  static void assertSameRows(List<InternalRow> actual, List<InternalRow> expected) {
    assertThat(actual).hasSize(expected.size());
    for (int i = 0; i < expected.size(); i++) {
      InternalRow e = expected.get(i);
      InternalRow a = actual.get(i);
      assertThat(a.getLong(0)).isEqualTo(e.getLong(0));
      for (int pos : new int[] {1, 2}) {
        assertThat(a.isNullAt(pos)).isEqualTo(e.isNullAt(pos));
        if (!e.isNullAt(pos)) {
          assertThat(a.getUTF8String(pos)).isEqualTo(e.getUTF8String(pos));
        }
      }
      assertThat(a.isNullAt(3)).isEqualTo(e.isNullAt(3));
      if (!e.isNullAt(3)) {
        assertThat(a.getDecimal(3, 10, 2).toJavaBigDecimal())
            .isEqualByComparingTo(e.getDecimal(3, 10, 2).toJavaBigDecimal());
      }
      InternalRow ea = e.getStruct(4, 2);
      InternalRow aa = a.getStruct(4, 2);
      for (int pos = 0; pos < 2; pos++) {
        assertThat(aa.isNullAt(pos)).isEqualTo(ea.isNullAt(pos));
        if (!ea.isNullAt(pos)) {
          assertThat(aa.getUTF8String(pos)).isEqualTo(ea.getUTF8String(pos));
        }
      }
      assertThat(a.isNullAt(5)).isEqualTo(e.isNullAt(5));
      if (!e.isNullAt(5)) {
        assertThat(Double.compare(a.getDouble(5), e.getDouble(5))).isZero();
      }
    }
  }

  private static List<InternalRow> readWith(
      Table table, String location, FileDecryptionProperties decryption) {
    var options =
        org.apache.iceberg.shaded.org.apache.parquet.ParquetReadOptions.builder()
            .withDecryption(decryption)
            .build();
    List<InternalRow> rows = new ArrayList<>();
    Schema schema = table.schema();
    try (var reader =
        new org.apache.iceberg.parquet.ParquetReader<InternalRow>(
            table.io().newInputFile(location),
            schema,
            options,
            type -> org.apache.iceberg.spark.data.SparkParquetReaders.buildReader(schema, type),
            null,
            org.apache.iceberg.expressions.Expressions.alwaysTrue(),
            false,
            true)) {
      reader.forEach(rows::add);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return rows;
  }

  /** Decryption properties that record every key material JSON parquet asks to resolve. */
  private static FileDecryptionProperties recording(
      ProtectionSpec spec, Table table, String location, List<String> sink) {
    FileDecryptionProperties real =
        ProtectorCrypto.fileDecryption(spec, location, FileBinding.of(table));
    DecryptionKeyRetriever retriever = real.getKeyRetriever();
    return FileDecryptionProperties.builder()
        .withKeyRetriever(
            keyMetadata -> {
              sink.add(new String(keyMetadata, StandardCharsets.UTF_8));
              return retriever.getKey(keyMetadata);
            })
        .withAADPrefix(real.getAADPrefix())
        .build();
  }

  private static String jsonField(String json, String field) {
    Matcher m = Pattern.compile("\"" + field + "\"\\s*:\\s*\"([^\"]*)\"").matcher(json);
    return m.find() ? m.group(1) : null;
  }

  private static byte[] readAll(Path path) {
    try {
      return Files.readAllBytes(path);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  static byte[] longLe(long value) {
    return ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).putLong(value).array();
  }

  static int indexOf(byte[] haystack, byte[] needle) {
    outer:
    for (int i = 0; i + needle.length <= haystack.length; i++) {
      for (int j = 0; j < needle.length; j++) {
        if (haystack[i + j] != needle[j]) {
          continue outer;
        }
      }
      return i;
    }
    return -1;
  }
}
