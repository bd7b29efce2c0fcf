/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.spark.write;

import static io.icebergprotector.policy.Preconditions.checkArgument;

import io.icebergprotector.spark.core.InternalRowStructLike;
import io.icebergprotector.spark.core.ProtectionSpec;
import io.icebergprotector.spark.metrics.TaskKeyCalls;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.stream.Collectors;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.PartitionKey;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.io.BulkDeletionFailureException;
import org.apache.iceberg.io.ClusteredDataWriter;
import org.apache.iceberg.io.DataWriteResult;
import org.apache.iceberg.io.FanoutDataWriter;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.FileWriter;
import org.apache.iceberg.io.OutputFileFactory;
import org.apache.iceberg.io.PartitioningWriter;
import org.apache.iceberg.io.RollingDataWriter;
import org.apache.iceberg.io.SupportsBulkOperations;
import org.apache.spark.broadcast.Broadcast;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.connector.metric.CustomTaskMetric;
import org.apache.spark.sql.connector.write.DataWriter;
import org.apache.spark.sql.connector.write.DataWriterFactory;
import org.apache.spark.sql.connector.write.WriterCommitMessage;
import org.apache.spark.sql.connector.write.streaming.StreamingDataWriterFactory;
import org.apache.spark.sql.types.StructType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Spark's executor-side entry to protected writes: each task gets a writer that rolls protected
 * Parquet files at the target size, per partition for partitioned specs, and reports them as {@link
 * ProtectedTaskCommit}s.
 */
public final class ProtectedDataWriterFactory
    implements DataWriterFactory, StreamingDataWriterFactory {
  private static final long serialVersionUID = 1L;
  private static final Logger LOG = LoggerFactory.getLogger(ProtectedDataWriterFactory.class);

  private final Broadcast<Table> tableBroadcast;
  private final String queryId;
  private final int outputSpecId;
  private final long targetFileSize;
  private final Schema writeSchema;
  private final StructType dsSchema;
  private final boolean useFanoutWriter;
  private final int sortOrderId;
  private final ProtectionSpec protection;
  private final Map<String, String> writeProperties;

  public ProtectedDataWriterFactory(
      Broadcast<Table> tableBroadcast,
      String queryId,
      int outputSpecId,
      long targetFileSize,
      Schema writeSchema,
      StructType dsSchema,
      boolean useFanoutWriter,
      int sortOrderId,
      ProtectionSpec protection) {
    this(
        tableBroadcast,
        queryId,
        outputSpecId,
        targetFileSize,
        writeSchema,
        dsSchema,
        useFanoutWriter,
        sortOrderId,
        protection,
        Map.of());
  }

  /**
   * @param writeProperties write options that override table properties, as Iceberg's {@code
   *     BranchWriteConf.writeProperties()} produces (e.g. {@code write.parquet.compression-codec})
   */
  public ProtectedDataWriterFactory(
      Broadcast<Table> tableBroadcast,
      String queryId,
      int outputSpecId,
      long targetFileSize,
      Schema writeSchema,
      StructType dsSchema,
      boolean useFanoutWriter,
      int sortOrderId,
      ProtectionSpec protection,
      Map<String, String> writeProperties) {
    this.tableBroadcast = Objects.requireNonNull(tableBroadcast, "table broadcast");
    this.queryId = Objects.requireNonNull(queryId, "query id");
    this.outputSpecId = outputSpecId;
    this.targetFileSize = targetFileSize;
    this.writeSchema = Objects.requireNonNull(writeSchema, "write schema");
    this.dsSchema = dsSchema;
    this.useFanoutWriter = useFanoutWriter;
    this.sortOrderId = sortOrderId;
    this.protection = Objects.requireNonNull(protection, "protection spec");
    this.writeProperties = Map.copyOf(writeProperties == null ? Map.of() : writeProperties);
  }

  @Override
  public DataWriter<InternalRow> createWriter(int partitionId, long taskId) {
    return newWriter(partitionId, taskId, queryId);
  }

  @Override
  public DataWriter<InternalRow> createWriter(int partitionId, long taskId, long epochId) {
    return newWriter(partitionId, taskId, queryId + "-" + epochId);
  }

  private DataWriter<InternalRow> newWriter(int partitionId, long taskId, String operationId) {
    Table table = tableBroadcast.value();
    PartitionSpec spec = table.specs().get(outputSpecId);
    checkArgument(
        spec != null, "Table %s has no partition spec with id %s", table.name(), outputSpecId);
    // Checked on the driver too; repeated here so no task writes what the policy forbids.
    protection.checkTaskPrincipal();
    protection.checkWritable(writeSchema);
    protection.checkPartitioning(spec, table.schema());

    OutputFileFactory fileFactory =
        OutputFileFactory.builderFor(table, partitionId, taskId)
            .format(FileFormat.PARQUET)
            .operationId(operationId)
            .build();
    // with the row lineage columns when Spark passes them in the metadata rows (Spark 4.0)
    ProtectedFileWriterFactory writerFactory =
        new ProtectedFileWriterFactory(
            table,
            writeSchema,
            MetadataRowLineage.rowType(writeSchema, dsSchema),
            table.sortOrders().get(sortOrderId),
            protection,
            writeProperties);
    FileIO io = table.io();
    if (spec.isUnpartitioned()) {
      return new Unpartitioned(
          new RollingDataWriter<>(writerFactory, fileFactory, io, targetFileSize, spec, null),
          io,
          protection,
          new MetadataRowLineage(writeSchema, dsSchema, null));
    }
    PartitioningWriter<InternalRow, DataWriteResult> delegate =
        useFanoutWriter
            ? new FanoutDataWriter<>(writerFactory, fileFactory, io, targetFileSize)
            : new ClusteredDataWriter<>(writerFactory, fileFactory, io, targetFileSize);
    return new Partitioned(
        delegate,
        io,
        protection,
        spec,
        writeSchema,
        dsSchema,
        new MetadataRowLineage(writeSchema, dsSchema, null));
  }

  /** Shared commit and abort: both close first, then report or delete the task's files. */
  private abstract static class TaskWriter implements DataWriter<InternalRow> {
    private final FileIO io;
    private final ProtectionSpec protection;
    private final MetadataRowLineage lineage;
    private final TaskKeyCalls keyCalls = new TaskKeyCalls();

    TaskWriter(FileIO io, ProtectionSpec protection, MetadataRowLineage lineage) {
      this.io = io;
      this.protection = protection;
      this.lineage = lineage;
    }

    abstract DataWriteResult result();

    /** Writes {@code row} as the data file keeps it (with its lineage, if the file has it). */
    abstract void writeRow(InternalRow partitionSource, InternalRow row);

    @Override
    public void write(InternalRow row) {
      write(null, row);
    }

    /**
     * Spark 4.0's {@code DataWriter.write(metadata, row)}: a copied row, its lineage in {@code
     * metadata} (Spark 3.5 has no such method and calls {@link #write(InternalRow)}).
     */
    @SuppressWarnings("MissingOverride")
    public void write(InternalRow metadata, InternalRow row) {
      writeRow(row, lineage.decorate(metadata, row));
    }

    @Override
    public WriterCommitMessage commit() throws IOException {
      close();
      ProtectedTaskCommit commit =
          new ProtectedTaskCommit(result().dataFiles().toArray(new DataFile[0]));
      commit.reportOutputMetrics();
      return commit;
    }

    @Override
    public void abort() throws IOException {
      close();
      deleteFiles(io, result().dataFiles());
    }

    /** Key-service calls this task made (on its thread) since it started. */
    @Override
    public CustomTaskMetric[] currentMetricsValues() {
      return keyCalls.metrics();
    }
  }

  private static final class Unpartitioned extends TaskWriter {
    private final FileWriter<InternalRow, DataWriteResult> delegate;

    Unpartitioned(
        FileWriter<InternalRow, DataWriteResult> delegate,
        FileIO io,
        ProtectionSpec protection,
        MetadataRowLineage lineage) {
      super(io, protection, lineage);
      this.delegate = delegate;
    }

    @Override
    void writeRow(InternalRow partitionSource, InternalRow row) {
      delegate.write(row);
    }

    @Override
    DataWriteResult result() {
      return delegate.result();
    }

    @Override
    public void close() throws IOException {
      delegate.close();
    }
  }

  private static final class Partitioned extends TaskWriter {
    private final PartitioningWriter<InternalRow, DataWriteResult> delegate;
    private final PartitionSpec spec;
    private final PartitionKey partitionKey;
    private final InternalRowStructLike rowView;

    Partitioned(
        PartitioningWriter<InternalRow, DataWriteResult> delegate,
        FileIO io,
        ProtectionSpec protection,
        PartitionSpec spec,
        Schema writeSchema,
        StructType dsSchema,
        MetadataRowLineage lineage) {
      super(io, protection, lineage);
      this.delegate = delegate;
      this.spec = spec;
      this.partitionKey = new PartitionKey(spec, writeSchema);
      this.rowView =
          new InternalRowStructLike(
              dsSchema != null
                  ? dsSchema
                  : org.apache.iceberg.spark.SparkSchemaUtil.convert(writeSchema),
              writeSchema.asStruct());
    }

    @Override
    void writeRow(InternalRow partitionSource, InternalRow row) {
      partitionKey.partition(rowView.wrap(partitionSource));
      // The writers copy the key when they open a new partition, so it can be reused.
      delegate.write(row, spec, partitionKey);
    }

    @Override
    DataWriteResult result() {
      return delegate.result();
    }

    @Override
    public void close() throws IOException {
      delegate.close();
    }
  }

  private static void deleteFiles(FileIO io, List<DataFile> files) {
    List<String> locations = files.stream().map(DataFile::location).collect(Collectors.toList());
    if (locations.isEmpty()) {
      return;
    }
    if (io instanceof SupportsBulkOperations) {
      try {
        ((SupportsBulkOperations) io).deleteFiles(locations);
      } catch (BulkDeletionFailureException e) {
        LOG.warn(
            "Could not delete {} of {} files of an aborted task",
            e.numberFailedObjects(),
            locations.size(),
            e);
      } catch (RuntimeException e) {
        LOG.warn("Could not delete the files of an aborted task", e);
      }
      return;
    }
    for (String location : locations) {
      try {
        io.deleteFile(location);
      } catch (RuntimeException e) {
        LOG.warn("Could not delete {} of an aborted task", location, e);
      }
    }
  }
}
