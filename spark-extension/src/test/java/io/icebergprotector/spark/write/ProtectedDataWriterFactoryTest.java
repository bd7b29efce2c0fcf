/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.spark.write;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.icebergprotector.spark.core.InternalRowStructLike;
import io.icebergprotector.spark.core.ProtectionSpec;
import io.icebergprotector.spark.core.ProtectorException;
import io.icebergprotector.spark.metrics.KeyServiceCallsMetric;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.ObjectOutputStream;
import java.math.BigDecimal;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.SerializableTable;
import org.apache.iceberg.Table;
import org.apache.iceberg.spark.SparkSchemaUtil;
import org.apache.spark.broadcast.Broadcast;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.connector.write.DataWriter;
import org.apache.spark.sql.connector.write.WriterCommitMessage;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import scala.reflect.ClassTag$;

class ProtectedDataWriterFactoryTest {
  @TempDir static Path temp;

  private static WriteFixture fixture;

  @BeforeAll
  static void setUp() {
    fixture = new WriteFixture(temp);
  }

  @Test
  void unpartitionedTaskRollsFilesAndCommitsThem() throws IOException {
    Table table = fixture.createTable(null, Map.of());
    ProtectionSpec writer = fixture.spec("db.customers", table, "etl");
    // A tiny target size makes the rolling writer start a new file every 1000 rows.
    ProtectedDataWriterFactory factory = factory(table, table.spec().specId(), 1L, false, writer);
    assertSerializable(factory);

    List<InternalRow> rows = WriteFixture.canaryRows(2100);
    DataWriter<InternalRow> task = factory.createWriter(3, 42L);
    for (InternalRow row : rows) {
      task.write(row);
    }
    WriterCommitMessage message = task.commit();
    assertThat(task.currentMetricsValues())
        .singleElement()
        .satisfies(m -> assertThat(m.name()).isEqualTo(KeyServiceCallsMetric.NAME))
        .satisfies(m -> assertThat(m.value()).isNotNegative());
    task.close();

    assertThat(message).isInstanceOf(ProtectedTaskCommit.class);
    DataFile[] files = ((ProtectedTaskCommit) message).files();
    assertThat(files).hasSizeGreaterThan(1);
    assertThat(files).allMatch(f -> f.location().contains("query-1"));
    String dataDir = WriteFixture.localPath(table.location()).resolve("data").toString();
    assertThat(files).allMatch(f -> WriteFixture.localPath(f.location()).startsWith(dataDir));
    assertThat(java.util.Arrays.stream(files).mapToLong(DataFile::recordCount).sum())
        .isEqualTo(rows.size());

    var append = table.newAppend();
    java.util.Arrays.stream(files).forEach(append::appendFile);
    append.commit();
    ProtectionSpec admin = fixture.spec("db.customers", table, "alice");
    List<InternalRow> read = new ArrayList<>();
    for (DataFile file : files) {
      read.addAll(WriteFixture.read(table, file.location(), admin));
    }
    ProtectedParquetAppenderTest.assertSameRows(read, rows);
  }

  @Test
  void partitionedTaskWritesOneFilePerPartition() throws IOException {
    Table table =
        fixture.createTable(
            PartitionSpec.builderFor(WriteFixture.SCHEMA).identity("address.city").bucket("id", 2),
            Map.of());
    ProtectionSpec writer = fixture.spec("db.customers", table, "etl");
    for (boolean fanout : new boolean[] {false, true}) {
      ProtectedDataWriterFactory factory =
          factory(table, table.spec().specId(), 128L * 1024 * 1024, fanout, writer);
      List<InternalRow> rows = new ArrayList<>(WriteFixture.canaryRows(60));
      if (!fanout) {
        // The clustered writer needs rows grouped by partition, as the write distribution does.
        InternalRowStructLike view =
            new InternalRowStructLike(
                SparkSchemaUtil.convert(table.schema()), table.schema().asStruct());
        org.apache.iceberg.PartitionKey key =
            new org.apache.iceberg.PartitionKey(table.spec(), table.schema());
        rows.sort(
            Comparator.comparing(
                r -> {
                  key.partition(view.wrap(r));
                  return key.toPath();
                }));
      }
      DataWriter<InternalRow> task = factory.createWriter(0, fanout ? 2L : 1L);
      for (InternalRow row : rows) {
        task.write(row);
      }
      DataFile[] files = ((ProtectedTaskCommit) task.commit()).files();
      task.close();

      Set<String> partitions =
          java.util.Arrays.stream(files)
              .map(f -> table.spec().partitionToPath(f.partition()))
              .collect(Collectors.toSet());
      assertThat(files).hasSize(partitions.size());
      // city-0, city-1, city-2, Springfield and null, each split in up to 2 id buckets
      assertThat(partitions.size()).isBetween(6, 10);
      assertThat(partitions).anyMatch(p -> p.startsWith("address.city=Springfield/"));
      assertThat(partitions).anyMatch(p -> p.startsWith("address.city=null/"));
      assertThat(java.util.Arrays.stream(files).mapToLong(DataFile::recordCount).sum())
          .isEqualTo(rows.size());
      for (DataFile file : files) {
        assertThat(file.lowerBounds())
            .doesNotContainKeys(writer.protectedFieldIds(table.schema()).toArray(Integer[]::new));
      }
    }
  }

  @Test
  void protectedPartitionSourceIsRefusedAtWriteTime() {
    Table table =
        fixture.createTable(
            PartitionSpec.builderFor(WriteFixture.SCHEMA).truncate("address.zip", 3), Map.of());
    ProtectionSpec writer = fixture.spec("db.customers", table, "etl");
    ProtectedDataWriterFactory factory =
        factory(table, table.spec().specId(), 1024L, false, writer);
    assertThatThrownBy(() -> factory.createWriter(0, 1L))
        .isInstanceOf(ProtectorException.class)
        .hasMessageContaining("address.zip")
        .hasMessageContaining("partition");
  }

  @Test
  void abortDeletesTheTaskFiles() throws IOException {
    Table table = fixture.createTable(null, Map.of());
    ProtectionSpec writer = fixture.spec("db.customers", table, "etl");
    ProtectedDataWriterFactory factory =
        factory(table, table.spec().specId(), 128L * 1024 * 1024, false, writer);
    DataWriter<InternalRow> task = factory.createWriter(0, 9L);
    for (InternalRow row : WriteFixture.canaryRows(10)) {
      task.write(row);
    }
    task.abort();
    task.close();
    assertThat(WriteFixture.filesUnder(table.location()))
        .noneMatch(p -> p.toString().endsWith(".parquet"));
  }

  @Test
  void internalRowViewConvertsSparkValuesToIceberg() {
    Table table = fixture.createTable(null, Map.of());
    InternalRowStructLike view =
        new InternalRowStructLike(
            SparkSchemaUtil.convert(table.schema()), table.schema().asStruct());
    InternalRow row =
        WriteFixture.row(7L, "n", "s", new BigDecimal("12.30"), "Paris", "75001", 2.5);
    view.wrap(row);
    assertThat(view.size()).isEqualTo(6);
    assertThat(view.get(0, Long.class)).isEqualTo(7L);
    assertThat(view.get(1, String.class)).isEqualTo("n");
    assertThat(view.get(3, BigDecimal.class)).isEqualByComparingTo("12.30");
    org.apache.iceberg.StructLike address = view.get(4, org.apache.iceberg.StructLike.class);
    assertThat(address.get(0, String.class)).isEqualTo("Paris");
    assertThat(address.get(1, CharSequence.class).toString()).isEqualTo("75001");
    assertThat(view.get(5, Double.class)).isEqualTo(2.5);
    assertThatThrownBy(() -> view.set(0, 1L))
        .isInstanceOf(UnsupportedOperationException.class)
        .hasMessageContaining("read-only");

    InternalRow nulls = WriteFixture.row(8L, null, null, null, null, null, null);
    assertThat(view.wrap(nulls).get(1, String.class)).isNull();
    assertThat(view.get(3, BigDecimal.class)).isNull();
  }

  private static ProtectedDataWriterFactory factory(
      Table table, int specId, long targetFileSize, boolean fanout, ProtectionSpec spec) {
    Table serializable = SerializableTable.copyOf(table);
    return new ProtectedDataWriterFactory(
        new LocalBroadcast<>(serializable),
        "query-1",
        specId,
        targetFileSize,
        table.schema(),
        SparkSchemaUtil.convert(table.schema()),
        fanout,
        table.sortOrder().orderId(),
        spec);
  }

  private static void assertSerializable(Object o) throws IOException {
    try (ObjectOutputStream out = new ObjectOutputStream(new ByteArrayOutputStream())) {
      out.writeObject(o);
    }
  }

  /** A broadcast that holds its value locally, so factories can be tested without Spark. */
  static final class LocalBroadcast<T> extends Broadcast<T> {
    private final T value;

    @SuppressWarnings("unchecked")
    LocalBroadcast(T value) {
      super(0L, (scala.reflect.ClassTag<T>) ClassTag$.MODULE$.Any());
      this.value = value;
    }

    @Override
    public T getValue() {
      return value;
    }

    @Override
    public void doUnpersist(boolean blocking) {}

    @Override
    public void doDestroy(boolean blocking) {}
  }
}
