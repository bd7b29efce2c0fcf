/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.spark.rowlevel;

import io.icebergprotector.spark.binding.BindingBoundary;
import io.icebergprotector.spark.compat.BranchWriteConf;
import io.icebergprotector.spark.core.ExpressionRedactor;
import io.icebergprotector.spark.core.InternalRowStructLike;
import io.icebergprotector.spark.core.ProtectionSpec;
import io.icebergprotector.spark.metrics.KeyServiceCallsMetric;
import io.icebergprotector.spark.metrics.TaskKeyCalls;
import io.icebergprotector.spark.read.ProtectedScan;
import io.icebergprotector.spark.write.FileCleanup;
import io.icebergprotector.spark.write.MetadataRowLineage;
import io.icebergprotector.spark.write.ProtectedCommit;
import io.icebergprotector.spark.write.ProtectedFileWriterFactory;
import java.io.IOException;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.apache.iceberg.ContentFile;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileContent;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.IsolationLevel;
import org.apache.iceberg.MetadataColumns;
import org.apache.iceberg.PartitionKey;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Partitioning;
import org.apache.iceberg.RowDelta;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.BaseDeleteLoader;
import org.apache.iceberg.deletes.DeleteGranularity;
import org.apache.iceberg.deletes.PositionDelete;
import org.apache.iceberg.deletes.PositionDeleteIndex;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.io.BasePositionDeltaWriter;
import org.apache.iceberg.io.ClusteredDataWriter;
import org.apache.iceberg.io.ClusteredPositionDeleteWriter;
import org.apache.iceberg.io.DataWriteResult;
import org.apache.iceberg.io.DeleteWriteResult;
import org.apache.iceberg.io.FanoutDataWriter;
import org.apache.iceberg.io.FanoutPositionOnlyDeleteWriter;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.OutputFileFactory;
import org.apache.iceberg.io.PartitioningDVWriter;
import org.apache.iceberg.io.PartitioningWriter;
import org.apache.iceberg.io.PositionDeltaWriter;
import org.apache.iceberg.io.WriteResult;
import org.apache.iceberg.spark.SparkSchemaUtil;
import org.apache.iceberg.spark.SparkWriteRequirements;
import org.apache.iceberg.spark.source.SerializableTableWithSize;
import org.apache.iceberg.types.Types;
import org.apache.iceberg.util.CharSequenceSet;
import org.apache.iceberg.util.ContentFileUtil;
import org.apache.iceberg.util.DeleteFileSet;
import org.apache.iceberg.util.StructProjection;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.broadcast.Broadcast;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.connector.distributions.Distribution;
import org.apache.spark.sql.connector.expressions.SortOrder;
import org.apache.spark.sql.connector.metric.CustomMetric;
import org.apache.spark.sql.connector.metric.CustomTaskMetric;
import org.apache.spark.sql.connector.write.DeltaBatchWrite;
import org.apache.spark.sql.connector.write.DeltaWrite;
import org.apache.spark.sql.connector.write.DeltaWriter;
import org.apache.spark.sql.connector.write.DeltaWriterFactory;
import org.apache.spark.sql.connector.write.LogicalWriteInfo;
import org.apache.spark.sql.connector.write.PhysicalWriteInfo;
import org.apache.spark.sql.connector.write.RequiresDistributionAndOrdering;
import org.apache.spark.sql.connector.write.RowLevelOperation.Command;
import org.apache.spark.sql.connector.write.WriterCommitMessage;
import org.apache.spark.sql.types.StructType;

/**
 * The write of a merge-on-read DELETE, UPDATE or MERGE on a protected table (Iceberg 1.11.0's
 * {@code SparkPositionDeltaWrite}, see FORKS.md). Deleted rows, and the old versions of changed
 * rows, become position deletes: Parquet (or the table's delete format) files of {@code file_path}
 * and {@code pos}, or deletion vectors (Puffin) on format-version 3 tables, never with row data.
 * New and changed rows are written by the protected appender. One Iceberg {@code RowDelta} commits
 * both, with Iceberg's conflict detection for the operation and its isolation level.
 */
final class ProtectedPositionDeltaWrite implements DeltaWrite, RequiresDistributionAndOrdering {
  private final JavaSparkContext sparkContext;
  private final Table table;
  private final Command command;
  private final ProtectedScan scan;
  private final IsolationLevel isolationLevel;
  private final SparkWriteRequirements requirements;
  private final int sortOrderId;
  private final Context context;
  private final Map<String, String> writeProperties;
  private final ProtectionSpec spec;
  private final ExpressionRedactor redactor;
  private final ProtectedCommit committer;

  ProtectedPositionDeltaWrite(
      SparkSession spark,
      Table table,
      Command command,
      ProtectedScan scan,
      IsolationLevel isolationLevel,
      BranchWriteConf writeConf,
      LogicalWriteInfo info,
      Schema dataSchema,
      ProtectionSpec spec) {
    this.sparkContext = JavaSparkContext.fromSparkContext(spark.sparkContext());
    this.table = table;
    this.command = command;
    this.scan = scan;
    this.isolationLevel = isolationLevel;
    this.requirements = writeConf.positionDeltaRequirements(command);
    this.sortOrderId = writeConf.outputSortOrderId(requirements);
    this.context = new Context(dataSchema, writeConf, info, requirements);
    this.writeProperties = writeConf.writeProperties();
    this.spec = spec;
    this.redactor = ExpressionRedactor.forSpec(spec, table.schema());
    this.committer = new ProtectedCommit(spark, table, writeConf, redactor);
  }

  @Override
  public String description() {
    return String.format(
        "ProtectedPositionDeltaWrite(table=%s, command=%s, deletes=%s)",
        table.name(), command, context.useDVs() ? "deletion vectors" : context.deleteFileFormat());
  }

  @Override
  public Distribution requiredDistribution() {
    return requirements.distribution();
  }

  @Override
  public boolean distributionStrictlyRequired() {
    return false;
  }

  @Override
  public SortOrder[] requiredOrdering() {
    return requirements.ordering();
  }

  @Override
  public long advisoryPartitionSizeInBytes() {
    return requirements.advisoryPartitionSize();
  }

  @Override
  public CustomMetric[] supportedCustomMetrics() {
    return KeyServiceCallsMetric.all();
  }

  @Override
  public DeltaBatchWrite toBatch() {
    return new PositionDeltaBatchWrite();
  }

  private final class PositionDeltaBatchWrite implements DeltaBatchWrite {
    @Override
    public DeltaWriterFactory createBatchWriterFactory(PhysicalWriteInfo info) {
      return new PositionDeltaWriterFactory(
          sparkContext.broadcast(SerializableTableWithSize.copyOf(table)),
          broadcastRewritableDeletes(),
          command,
          context,
          writeProperties,
          sortOrderId,
          spec);
    }

    /** Delete files that new deletes must absorb: all of a file's for DVs, else file-scoped. */
    private Broadcast<Map<String, DeleteFileSet>> broadcastRewritableDeletes() {
      if (scan == null
          || !(context.useDVs() || context.deleteGranularity() == DeleteGranularity.FILE)) {
        return null;
      }
      Map<String, DeleteFileSet> rewritable = new HashMap<>();
      for (FileScanTask task : scan.files()) {
        for (DeleteFile delete : task.deletes()) {
          boolean rewrite =
              context.useDVs()
                  ? delete.content() != FileContent.EQUALITY_DELETES
                  : ContentFileUtil.isFileScoped(delete);
          if (rewrite) {
            rewritable
                .computeIfAbsent(task.file().location(), ignored -> DeleteFileSet.create())
                .add(delete);
          }
        }
      }
      return rewritable.isEmpty() ? null : sparkContext.broadcast(rewritable);
    }

    @Override
    public boolean useCommitCoordinator() {
      return false;
    }

    @Override
    public void commit(WriterCommitMessage[] messages) {
      RowDelta rowDelta = table.newRowDelta();
      CharSequenceSet referencedDataFiles = CharSequenceSet.empty();
      int addedDataFiles = 0;
      int addedDeleteFiles = 0;
      int removedDeleteFiles = 0;
      for (WriterCommitMessage message : messages) {
        DeltaTaskCommit taskCommit = (DeltaTaskCommit) message;
        for (DataFile file : taskCommit.dataFiles()) {
          rowDelta.addRows(file);
          addedDataFiles += 1;
        }
        for (DeleteFile file : taskCommit.deleteFiles()) {
          rowDelta.addDeletes(file);
          addedDeleteFiles += 1;
        }
        for (DeleteFile file : taskCommit.rewrittenDeleteFiles()) {
          rowDelta.removeDeletes(file);
          removedDeleteFiles += 1;
        }
        referencedDataFiles.addAll(Arrays.asList(taskCommit.referencedDataFiles()));
      }
      String counts =
          String.format(
              "position delta with %d data files, %d delete files and %d rewritten delete files",
              addedDataFiles, addedDeleteFiles, removedDeleteFiles);
      // before the first commit of bound files, so every later commit falls under file binding
      BindingBoundary.record(table);
      if (scan == null) {
        // the optimizer replaced the scan with an empty relation: nothing depends on the table
        committer.commit(rowDelta, counts + " (no validation required)", null);
        return;
      }
      Expression conflictFilter =
          scan.filterExpressions().stream().reduce(Expressions.alwaysTrue(), Expressions::and);
      rowDelta.conflictDetectionFilter(conflictFilter);
      rowDelta.validateDataFilesExist(referencedDataFiles);
      if (scan.snapshotId() != null) {
        // only snapshots after the one the operation read can conflict
        rowDelta.validateFromSnapshot(scan.snapshotId());
      }
      if (command == Command.UPDATE || command == Command.MERGE) {
        rowDelta.validateDeletedFiles();
        rowDelta.validateNoConflictingDeleteFiles();
      }
      if (isolationLevel == IsolationLevel.SERIALIZABLE) {
        rowDelta.validateNoConflictingDataFiles();
      }
      committer.commit(
          rowDelta,
          String.format(
              "%s (scan snapshot %s, conflict detection filter %s, %s isolation)",
              counts, scan.snapshotId(), redactor.redact(conflictFilter), isolationLevel),
          conflictFilter);
    }

    @Override
    public void abort(WriterCommitMessage[] messages) {
      List<ContentFile<?>> files = new ArrayList<>();
      for (WriterCommitMessage message : messages) {
        if (message != null) {
          DeltaTaskCommit taskCommit = (DeltaTaskCommit) message;
          files.addAll(Arrays.asList(taskCommit.dataFiles()));
          files.addAll(Arrays.asList(taskCommit.deleteFiles()));
        }
      }
      committer.abort(files);
    }
  }

  /** The files one task wrote, and the data files its deletes refer to. */
  static final class DeltaTaskCommit implements WriterCommitMessage {
    private static final long serialVersionUID = 1L;

    private final DataFile[] dataFiles;
    private final DeleteFile[] deleteFiles;
    private final DeleteFile[] rewrittenDeleteFiles;
    private final String[] referencedDataFiles;

    DeltaTaskCommit(WriteResult result) {
      this(
          result.dataFiles(),
          result.deleteFiles(),
          result.rewrittenDeleteFiles(),
          Arrays.asList(result.referencedDataFiles()));
    }

    DeltaTaskCommit(DeleteWriteResult result) {
      this(
          new DataFile[0],
          result.deleteFiles().toArray(new DeleteFile[0]),
          result.rewrittenDeleteFiles().toArray(new DeleteFile[0]),
          result.referencedDataFiles());
    }

    private DeltaTaskCommit(
        DataFile[] dataFiles,
        DeleteFile[] deleteFiles,
        DeleteFile[] rewrittenDeleteFiles,
        Iterable<? extends CharSequence> referencedDataFiles) {
      this.dataFiles = dataFiles;
      this.deleteFiles = deleteFiles;
      this.rewrittenDeleteFiles = rewrittenDeleteFiles;
      List<String> referenced = new ArrayList<>();
      referencedDataFiles.forEach(path -> referenced.add(path.toString()));
      this.referencedDataFiles = referenced.toArray(new String[0]);
    }

    DataFile[] dataFiles() {
      return dataFiles;
    }

    DeleteFile[] deleteFiles() {
      return deleteFiles;
    }

    DeleteFile[] rewrittenDeleteFiles() {
      return rewrittenDeleteFiles;
    }

    String[] referencedDataFiles() {
      return referencedDataFiles;
    }
  }

  private static final class PositionDeltaWriterFactory implements DeltaWriterFactory {
    private static final long serialVersionUID = 1L;

    private final Broadcast<Table> tableBroadcast;
    private final Broadcast<Map<String, DeleteFileSet>> rewritableDeletes;
    private final Command command;
    private final Context context;
    private final Map<String, String> writeProperties;
    private final int sortOrderId;
    private final ProtectionSpec spec;

    PositionDeltaWriterFactory(
        Broadcast<Table> tableBroadcast,
        Broadcast<Map<String, DeleteFileSet>> rewritableDeletes,
        Command command,
        Context context,
        Map<String, String> writeProperties,
        int sortOrderId,
        ProtectionSpec spec) {
      this.tableBroadcast = tableBroadcast;
      this.rewritableDeletes = rewritableDeletes;
      this.command = command;
      this.context = context;
      this.writeProperties = writeProperties;
      this.sortOrderId = sortOrderId;
      this.spec = spec;
    }

    @Override
    public DeltaWriter<InternalRow> createWriter(int partitionId, long taskId) {
      Table table = tableBroadcast.value();
      spec.checkTaskPrincipal();
      OutputFileFactory deleteFiles =
          OutputFileFactory.builderFor(table, partitionId, taskId)
              .format(context.deleteFileFormat())
              .operationId(context.queryId())
              .suffix("deletes")
              .build();
      Map<String, DeleteFileSet> previous =
          rewritableDeletes != null ? rewritableDeletes.getValue() : null;
      if (command == Command.DELETE || context.dataSchema() == null) {
        ProtectedFileWriterFactory writers =
            new ProtectedFileWriterFactory(table, null, null, null, spec, writeProperties)
                .withPositionDeletes(context.deleteFileFormat());
        return new DeleteOnlyDeltaWriter(table, previous, writers, deleteFiles, context);
      }
      // checked on the driver as well; no task writes what the policy forbids
      spec.checkWritable(context.dataSchema());
      spec.checkPartitioning(table.spec(), table.schema());
      ProtectedFileWriterFactory writers =
          new ProtectedFileWriterFactory(
                  table,
                  context.dataSchema(),
                  context.dataSparkType(),
                  table.sortOrders().get(sortOrderId),
                  spec,
                  writeProperties)
              .withPositionDeletes(context.deleteFileFormat());
      OutputFileFactory dataFiles =
          OutputFileFactory.builderFor(table, partitionId, taskId)
              .format(FileFormat.PARQUET)
              .operationId(context.queryId())
              .build();
      return new DeleteAndDataDeltaWriter(
          table, previous, writers, dataFiles, deleteFiles, context);
    }
  }

  /** Loads the deletes a new DV or file-scoped delete file must include (no row data). */
  private static Function<CharSequence, PositionDeleteIndex> previousDeletes(
      Table table, Map<String, DeleteFileSet> deleteFiles) {
    if (deleteFiles == null) {
      return path -> null;
    }
    BaseDeleteLoader loader =
        new BaseDeleteLoader(
            file -> table.io().newInputFile(file.location(), file.fileSizeInBytes()));
    return path -> {
      DeleteFileSet files = deleteFiles.get(path.toString());
      return files == null ? null : loader.loadPositionDeletes(files, path);
    };
  }

  /**
   * Deletion vectors on format-version 3 tables; otherwise position delete files, clustered when
   * Spark orders the deletes by file and position, fanned out when it does not.
   */
  private static PartitioningWriter<PositionDelete<InternalRow>, DeleteWriteResult> deleteWriter(
      Table table,
      Map<String, DeleteFileSet> previous,
      ProtectedFileWriterFactory writers,
      OutputFileFactory files,
      Context context) {
    Function<CharSequence, PositionDeleteIndex> loader = previousDeletes(table, previous);
    if (context.useDVs()) {
      return new PartitioningDVWriter<>(files, loader);
    } else if (context.inputOrdered() && previous == null) {
      return new ClusteredPositionDeleteWriter<>(
          writers, files, table.io(), context.targetDeleteFileSize(), context.deleteGranularity());
    }
    return new FanoutPositionOnlyDeleteWriter<>(
        writers,
        files,
        table.io(),
        context.targetDeleteFileSize(),
        context.deleteGranularity(),
        loader);
  }

  /** Reads {@code _spec_id} and {@code _partition} of a deleted row, as its delete file needs. */
  private abstract static class BaseDeltaWriter implements DeltaWriter<InternalRow> {
    private final Map<Integer, PartitionSpec> specs;
    private final InternalRowStructLike partitionRow;
    private final Map<Integer, StructProjection> partitionProjections = new HashMap<>();
    private final int specIdOrdinal;
    private final int partitionOrdinal;
    private final int fileOrdinal;
    private final int positionOrdinal;
    private final FileIO io;
    private final TaskKeyCalls keyCalls = new TaskKeyCalls();
    private boolean closed = false;

    BaseDeltaWriter(Table table, Context context) {
      this.specs = table.specs();
      this.io = table.io();
      Types.StructType partitionType = Partitioning.partitionType(table);
      this.partitionRow =
          new InternalRowStructLike(
              (StructType) SparkSchemaUtil.convert(partitionType), partitionType);
      for (Map.Entry<Integer, PartitionSpec> entry : specs.entrySet()) {
        partitionProjections.put(
            entry.getKey(),
            StructProjection.create(partitionType, entry.getValue().partitionType()));
      }
      this.specIdOrdinal = context.metadataSparkType().fieldIndex(MetadataColumns.SPEC_ID.name());
      this.partitionOrdinal =
          context.metadataSparkType().fieldIndex(MetadataColumns.PARTITION_COLUMN_NAME);
      this.fileOrdinal = context.rowIdSparkType().fieldIndex(MetadataColumns.FILE_PATH.name());
      this.positionOrdinal =
          context.rowIdSparkType().fieldIndex(MetadataColumns.ROW_POSITION.name());
    }

    abstract void delete(String file, long position, PartitionSpec spec, StructProjection partition)
        throws IOException;

    abstract List<ContentFile<?>> written();

    abstract void closeWriters() throws IOException;

    @Override
    public void delete(InternalRow metadata, InternalRow id) throws IOException {
      int specId = metadata.getInt(specIdOrdinal);
      PartitionSpec spec = specs.get(specId);
      InternalRow partition = metadata.getStruct(partitionOrdinal, partitionRow.size());
      StructProjection projection = partitionProjections.get(specId);
      projection.wrap(partitionRow.wrap(partition));
      delete(id.getString(fileOrdinal), id.getLong(positionOrdinal), spec, projection);
    }

    @Override
    public void update(InternalRow metadata, InternalRow id, InternalRow row) {
      throw new UnsupportedOperationException("Update must be represented as delete and insert");
    }

    @Override
    public void abort() throws IOException {
      close();
      FileCleanup.deleteFiles("aborted task", io, written());
    }

    @Override
    public void close() throws IOException {
      if (!closed) {
        closeWriters();
        this.closed = true;
      }
    }

    @Override
    public CustomTaskMetric[] currentMetricsValues() {
      return keyCalls.metrics();
    }
  }

  private static final class DeleteOnlyDeltaWriter extends BaseDeltaWriter {
    private final PartitioningWriter<PositionDelete<InternalRow>, DeleteWriteResult> delegate;
    private final PositionDelete<InternalRow> positionDelete = PositionDelete.create();

    DeleteOnlyDeltaWriter(
        Table table,
        Map<String, DeleteFileSet> previous,
        ProtectedFileWriterFactory writers,
        OutputFileFactory deleteFiles,
        Context context) {
      super(table, context);
      this.delegate = deleteWriter(table, previous, writers, deleteFiles, context);
    }

    @Override
    void delete(String file, long position, PartitionSpec spec, StructProjection partition)
        throws IOException {
      positionDelete.set(file, position);
      delegate.write(positionDelete, spec, partition);
    }

    @Override
    public void insert(InternalRow row) {
      throw new UnsupportedOperationException("A DELETE inserts no rows");
    }

    @Override
    public WriterCommitMessage commit() throws IOException {
      close();
      return new DeltaTaskCommit(delegate.result());
    }

    @Override
    List<ContentFile<?>> written() {
      return new ArrayList<>(delegate.result().deleteFiles());
    }

    @Override
    void closeWriters() throws IOException {
      delegate.close();
    }
  }

  private static final class DeleteAndDataDeltaWriter extends BaseDeltaWriter {
    private final PositionDeltaWriter<InternalRow> delegate;
    private final PartitionSpec dataSpec;
    private final PartitionKey dataPartitionKey;
    private final InternalRowStructLike dataRow;
    private final MetadataRowLineage lineage;

    DeleteAndDataDeltaWriter(
        Table table,
        Map<String, DeleteFileSet> previous,
        ProtectedFileWriterFactory writers,
        OutputFileFactory dataFiles,
        OutputFileFactory deleteFiles,
        Context context) {
      super(table, context);
      PartitioningWriter<InternalRow, DataWriteResult> dataWriter =
          table.spec().isPartitioned() && context.useFanoutWriter()
              ? new FanoutDataWriter<>(writers, dataFiles, table.io(), context.targetDataFileSize())
              : new ClusteredDataWriter<>(
                  writers, dataFiles, table.io(), context.targetDataFileSize());
      this.delegate =
          new BasePositionDeltaWriter<>(
              dataWriter, deleteWriter(table, previous, writers, deleteFiles, context));
      this.dataSpec = table.spec();
      this.lineage =
          new MetadataRowLineage(
              context.dataSchema(), context.rowSparkType(), context.metadataSparkType());
      if (dataSpec.isPartitioned()) {
        this.dataPartitionKey = new PartitionKey(dataSpec, context.dataSchema());
        this.dataRow =
            new InternalRowStructLike(context.dataSparkType(), context.dataSchema().asStruct());
      } else {
        this.dataPartitionKey = null;
        this.dataRow = null;
      }
    }

    @Override
    void delete(String file, long position, PartitionSpec spec, StructProjection partition) {
      delegate.delete(file, position, spec, partition);
    }

    @Override
    public void insert(InternalRow row) {
      reinsert(null, row);
    }

    /**
     * Spark 4.0's {@code DeltaWriter.reinsert}: an updated row, its lineage in {@code metadata}
     * (Spark 3.5 has no such method and calls {@link #insert}).
     */
    @SuppressWarnings("MissingOverride")
    public void reinsert(InternalRow metadata, InternalRow row) {
      InternalRow written = lineage.decorate(metadata, row);
      if (dataPartitionKey == null) {
        delegate.insert(written, dataSpec, null);
      } else {
        dataPartitionKey.partition(dataRow.wrap(row));
        delegate.insert(written, dataSpec, dataPartitionKey);
      }
    }

    @Override
    public WriterCommitMessage commit() throws IOException {
      close();
      return new DeltaTaskCommit(delegate.result());
    }

    @Override
    List<ContentFile<?>> written() {
      WriteResult result = delegate.result();
      List<ContentFile<?>> files = new ArrayList<>(Arrays.asList(result.dataFiles()));
      files.addAll(Arrays.asList(result.deleteFiles()));
      return files;
    }

    @Override
    void closeWriters() throws IOException {
      delegate.close();
    }
  }

  /** What the executors' writers need of the write's configuration. */
  private static final class Context implements Serializable {
    private static final long serialVersionUID = 1L;

    private final Schema dataSchema;
    private final StructType rowSparkType;
    private final StructType dataSparkType;
    private final long targetDataFileSize;
    private final StructType rowIdSparkType;
    private final StructType metadataSparkType;
    private final FileFormat deleteFileFormat;
    private final long targetDeleteFileSize;
    private final DeleteGranularity deleteGranularity;
    private final String queryId;
    private final boolean useFanoutWriter;
    private final boolean inputOrdered;

    Context(
        Schema dataSchema,
        BranchWriteConf writeConf,
        LogicalWriteInfo info,
        SparkWriteRequirements requirements) {
      this.dataSchema = dataSchema;
      this.rowSparkType = info.schema();
      // with the row lineage columns when Spark passes them in the metadata rows (Spark 4.0)
      this.dataSparkType = MetadataRowLineage.rowType(dataSchema, info.schema());
      this.targetDataFileSize = writeConf.targetDataFileSize();
      this.rowIdSparkType = info.rowIdSchema().get();
      this.metadataSparkType = info.metadataSchema().get();
      this.deleteFileFormat = writeConf.deleteFileFormat();
      this.targetDeleteFileSize = writeConf.targetDeleteFileSize();
      this.deleteGranularity = writeConf.deleteGranularity();
      this.queryId = info.queryId();
      this.useFanoutWriter = writeConf.useFanoutWriter(requirements);
      this.inputOrdered = requirements.hasOrdering();
    }

    Schema dataSchema() {
      return dataSchema;
    }

    /** The rows as Spark passes them. */
    StructType rowSparkType() {
      return rowSparkType;
    }

    /** The rows as written to data files. */
    StructType dataSparkType() {
      return dataSparkType;
    }

    long targetDataFileSize() {
      return targetDataFileSize;
    }

    StructType rowIdSparkType() {
      return rowIdSparkType;
    }

    StructType metadataSparkType() {
      return metadataSparkType;
    }

    FileFormat deleteFileFormat() {
      return deleteFileFormat;
    }

    long targetDeleteFileSize() {
      return targetDeleteFileSize;
    }

    DeleteGranularity deleteGranularity() {
      return deleteGranularity;
    }

    String queryId() {
      return queryId;
    }

    boolean useFanoutWriter() {
      return useFanoutWriter;
    }

    boolean inputOrdered() {
      return inputOrdered;
    }

    boolean useDVs() {
      return deleteFileFormat == FileFormat.PUFFIN;
    }
  }
}
