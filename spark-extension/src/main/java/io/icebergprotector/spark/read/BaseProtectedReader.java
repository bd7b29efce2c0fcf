/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.spark.read;

import io.icebergprotector.policy.EncryptionAlgorithm;
import io.icebergprotector.spark.binding.FileAdmission;
import io.icebergprotector.spark.core.ExpressionRedactor;
import io.icebergprotector.spark.core.ProtectionSpec;
import io.icebergprotector.spark.core.ProtectorException;
import io.icebergprotector.spark.crypto.FileBinding;
import io.icebergprotector.spark.crypto.ProtectorCrypto;
import io.icebergprotector.spark.metrics.TaskKeyCalls;
import java.io.IOException;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileContent;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.MetadataColumns;
import org.apache.iceberg.Partitioning;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.deletes.DeleteCounter;
import org.apache.iceberg.expressions.Binder;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.io.CloseableIterator;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.mapping.NameMapping;
import org.apache.iceberg.mapping.NameMappingParser;
import org.apache.iceberg.shaded.org.apache.parquet.crypto.FileDecryptionProperties;
import org.apache.iceberg.spark.SparkUtil;
import org.apache.iceberg.spark.source.metrics.TaskNumDeletes;
import org.apache.iceberg.spark.source.metrics.TaskNumSplits;
import org.apache.iceberg.util.PartitionUtil;
import org.apache.spark.rdd.InputFileBlockHolder;
import org.apache.spark.sql.connector.metric.CustomTaskMetric;
import org.apache.spark.sql.connector.read.PartitionReader;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads the file splits of one input partition for one principal: opens every file through the
 * table's FileIO with the principal's decryption properties (bound to the file's place when its
 * manifest entry says it is bound, see {@link FileBinding}), reads only the columns the principal
 * may decrypt, and returns denied and null-masked fields as NULL constants. Subclasses choose the
 * model (rows or columnar batches) and apply the masks.
 *
 * @param <T> what the reader returns: rows or batches
 */
abstract class BaseProtectedReader<T> implements PartitionReader<T> {
  private static final Logger LOG = LoggerFactory.getLogger(BaseProtectedReader.class);

  private final Table table;
  private final Iterator<FileScanTask> tasks;
  private final ProtectedProjection projection;
  private final ProtectionSpec spec;
  private final Schema filterSchema;
  private final Set<Integer> hiddenIds;
  private final boolean caseSensitive;
  private final NameMapping nameMapping;
  private final boolean verifyPageChecksums;
  private final TaskKeyCalls keyCalls = new TaskKeyCalls();
  private final DeleteCounter deleteCounter = new DeleteCounter();
  private final boolean cacheDeletes;
  private final long splits;
  private final FileBinding binding;

  private ProtectedParquetFile file = null;
  private boolean currentBound = false;
  private CloseableIterator<T> items = CloseableIterator.empty();
  private String currentLocation = null;
  private T current = null;

  /**
   * @param table the table (on executors: the broadcast copy), whose FileIO opens every file
   * @param tasks the file splits to read, in order
   * @param filterSchema the schema the tasks' residual filters bind to
   */
  BaseProtectedReader(
      Table table,
      List<FileScanTask> tasks,
      ProtectedProjection projection,
      Schema filterSchema,
      boolean caseSensitive,
      boolean cacheDeletes) {
    this.table = table;
    this.cacheDeletes = cacheDeletes;
    this.tasks = tasks.iterator();
    this.splits = tasks.size();
    this.projection = projection;
    this.spec = projection.spec();
    this.filterSchema = filterSchema;
    this.hiddenIds = ProtectedProjection.hiddenFieldIds(filterSchema, spec);
    this.caseSensitive = caseSensitive;
    // the UUID of the table the scan planned (the broadcast copy keeps it)
    this.binding = FileBinding.of(table);
    String mapping = table.properties().get(TableProperties.DEFAULT_NAME_MAPPING);
    this.nameMapping = mapping != null ? NameMappingParser.fromJson(mapping) : null;
    // CTR mode leaves page payloads unauthenticated: the page CRCs at least catch corruption
    this.verifyPageChecksums =
        EncryptionAlgorithm.AES_GCM_CTR_V1.name().equalsIgnoreCase(spec.algorithm());
  }

  /**
   * The items of one opened file, read with this reader's model.
   *
   * @param readSchema the projection's output schema, plus the columns the file's deletes need
   *     ({@code _pos}, equality columns) at the end
   * @param constants partition and metadata constants, and NULL for every field read as NULL
   */
  abstract CloseableIterator<T> items(
      ProtectedParquetFile file, Schema readSchema, Map<Integer, ?> constants);

  /** The items left after the file's row-level deletes. */
  abstract CloseableIterator<T> withDeletes(
      CloseableIterator<T> items, ProtectedDeleteFilter deletes);

  /** Masks one item (in place or as a new item); identity when nothing is masked. */
  abstract T mask(T item);

  /** The items as {@link #mask} gets them: by default as read (after deletes). */
  CloseableIterator<T> readAhead(CloseableIterator<T> read) {
    return read;
  }

  /** Releases what the subclass holds beyond the open file. */
  void release() {}

  /** Called once a file is open, before its first item (e.g. to read its footer metadata). */
  void opened(ProtectedParquetFile opened) {}

  ProtectedProjection projection() {
    return projection;
  }

  @Override
  public boolean next() throws IOException {
    while (true) {
      try {
        if (items.hasNext()) {
          current = mask(items.next());
          return true;
        }
      } catch (RuntimeException e) {
        throw failure(e);
      }
      closeCurrent();
      if (!tasks.hasNext()) {
        return false;
      }
      open(tasks.next());
    }
  }

  @Override
  public T get() {
    return current;
  }

  /**
   * Key-service calls this reader made (on the task thread) since it started: key-encryption keys
   * are unwrapped once per executor and cache lifetime, so mostly the first task of an executor.
   * Also Iceberg's file splits read and rows deleted by delete files or deletion vectors.
   */
  @Override
  public CustomTaskMetric[] currentMetricsValues() {
    return new CustomTaskMetric[] {
      keyCalls.metrics()[0], new TaskNumSplits(splits), new TaskNumDeletes(deleteCounter.get())
    };
  }

  @Override
  public void close() throws IOException {
    InputFileBlockHolder.unset();
    keyCalls.calls();
    try {
      closeCurrent();
    } finally {
      release();
    }
  }

  private void open(FileScanTask task) {
    DataFile dataFile = task.file();
    String location = dataFile.location();
    checkReadable(task, spec, filterSchema);
    currentLocation = location;
    // admitted on the driver; a bound file must decrypt with its table's and name's prefix
    currentBound = FileAdmission.bound(dataFile);
    ProtectedDeleteFilter deletes =
        task.deletes().isEmpty()
            ? null
            : new ProtectedDeleteFilter(
                table,
                location,
                task.deletes(),
                filterSchema,
                projection.outputSchema(),
                deleteCounter,
                cacheDeletes);
    Schema readSchema = deletes != null ? deletes.requiredSchema() : projection.outputSchema();
    try {
      InputFile input = table.io().newInputFile(location, dataFile.fileSizeInBytes());
      FileDecryptionProperties decryption =
          ProtectorCrypto.fileDecryption(spec, location, currentBound ? binding : null);
      file =
          ProtectedParquetFile.open(
              input,
              task.start(),
              task.length(),
              projection.fileSchema(readSchema),
              filterSchema,
              rowGroupFilter(task),
              nameMapping,
              caseSensitive,
              decryption,
              verifyPageChecksums,
              deletes == null && !countsRowPositions(readSchema));
      opened(file);
      CloseableIterator<T> read = items(file, readSchema, constants(task, readSchema));
      items = readAhead(deletes != null ? withDeletes(read, deletes) : read);
    } catch (RuntimeException e) {
      RuntimeException translated = failure(e);
      if (file != null) {
        try {
          file.close();
        } catch (IOException | RuntimeException suppressed) {
          translated.addSuppressed(suppressed);
        }
        file = null;
      }
      throw translated;
    }
    InputFileBlockHolder.set(location, task.start(), task.length());
  }

  /**
   * Refuses splits a protected reader cannot protect; the scan checks this at planning already.
   * Position deletes and deletion vectors hold only file locations and row positions, and equality
   * deletes on unprotected columns only values of those columns: they are applied. An equality
   * delete file on a protected column (another engine wrote it) holds that column's values in
   * plaintext: the table is refused until the file is gone, rather than read through it.
   */
  static void checkReadable(FileScanTask task, ProtectionSpec spec, Schema schema) {
    if (task.file().format() != FileFormat.PARQUET) {
      throw new ProtectorException(
          String.format(
              "Data file %s of protected table %s is %s: protected tables can only read Parquet",
              task.file().location(), spec.tableName(), task.file().format()));
    }
    Set<Integer> protectedIds = null;
    for (DeleteFile delete : task.deletes()) {
      if (delete.content() != FileContent.EQUALITY_DELETES) {
        continue;
      }
      if (protectedIds == null) {
        protectedIds = spec.protectedFieldIds(schema);
      }
      List<Integer> refused =
          delete.equalityFieldIds().stream()
              .filter(protectedIds::contains)
              .collect(Collectors.toList());
      if (!refused.isEmpty()) {
        throw new ProtectorException(
            String.format(
                "Refusing to read protected table %s: equality delete file %s (for data file %s)"
                    + " references protected field id(s) %s (%s). Such a file stores the deleted"
                    + " rows' values of those columns in plaintext; another engine wrote it, the"
                    + " protector never does. Remove it from the table (rewrite the data files it"
                    + " applies to with an engine that applies equality deletes, then expire the"
                    + " snapshots that reference it) before reading the table here",
                spec.tableName(),
                delete.location(),
                task.file().location(),
                refused,
                refused.stream()
                    .map(id -> describeField(schema, id))
                    .collect(Collectors.toList())));
      }
    }
  }

  private static String describeField(Schema schema, int id) {
    String name = schema.findColumnName(id);
    return name != null ? name : "field " + id;
  }

  /**
   * The task's residual for row-group pruning, unless it touches a hidden column (never expected).
   */
  private Expression rowGroupFilter(FileScanTask task) {
    Expression residual = task.residual();
    if (residual == null || residual == Expressions.alwaysTrue()) {
      return null;
    }
    Set<Integer> refs;
    try {
      refs = Binder.boundReferences(filterSchema.asStruct(), List.of(residual), caseSensitive);
    } catch (RuntimeException e) {
      // the binding error may quote the literal
      LOG.warn(
          "Not using a residual filter that does not bind ({}): {}",
          e.getClass().getSimpleName(),
          ExpressionRedactor.all().redact(residual));
      return null;
    }
    if (refs.stream().anyMatch(hiddenIds::contains)) {
      LOG.warn(
          "Not pruning row groups of {} with a filter on protected columns",
          task.file().location());
      return null;
    }
    return residual;
  }

  /** Whether the read returns a column computed from row positions (page filtering drops rows). */
  private static boolean countsRowPositions(Schema readSchema) {
    return readSchema.findField(MetadataColumns.ROW_POSITION.fieldId()) != null
        || readSchema.findField(MetadataColumns.ROW_ID.fieldId()) != null
        || readSchema.findField(MetadataColumns.LAST_UPDATED_SEQUENCE_NUMBER.fieldId()) != null
        || readSchema.findField(MetadataColumns.IS_DELETED.fieldId()) != null;
  }

  /** Partition and metadata constants, plus NULL for every field this principal reads as NULL. */
  private Map<Integer, ?> constants(FileScanTask task, Schema readSchema) {
    Map<Integer, ?> base =
        readSchema.findField(MetadataColumns.PARTITION_COLUMN_ID) != null
            ? PartitionUtil.constantsMap(
                task, Partitioning.partitionType(table), SparkUtil::internalToSpark)
            : PartitionUtil.constantsMap(task, SparkUtil::internalToSpark);
    Map<Integer, Object> constants = new HashMap<>(base);
    for (int id : projection.nullFieldIds()) {
      constants.put(id, null);
    }
    return constants;
  }

  private RuntimeException failure(RuntimeException e) {
    Boolean encrypted = file != null ? file.encrypted() : null;
    RuntimeException translated =
        ReadErrors.translate(e, currentLocation, spec, encrypted, currentBound);
    if (translated != e) {
      LOG.error("Failed to read {} of table {}", currentLocation, spec.tableName(), e);
    }
    return translated;
  }

  private void closeCurrent() throws IOException {
    try {
      items.close();
    } finally {
      items = CloseableIterator.empty();
      file = null;
      current = null;
    }
  }
}
