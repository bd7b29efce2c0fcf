/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.spark.read;

import io.icebergprotector.policy.AccessLevel;
import io.icebergprotector.spark.binding.FileAdmission;
import io.icebergprotector.spark.core.ColumnProtection;
import io.icebergprotector.spark.core.ExpressionRedactor;
import io.icebergprotector.spark.core.ProtectionSpec;
import io.icebergprotector.spark.metrics.KeyServiceCallsMetric;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.iceberg.CombinedScanTask;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.PartitionField;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableScan;
import org.apache.iceberg.expressions.Binder;
import org.apache.iceberg.expressions.Evaluator;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.expressions.Projections;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.spark.Spark3Util;
import org.apache.iceberg.spark.SparkSchemaUtil;
import org.apache.iceberg.spark.SparkV2Filters;
import org.apache.iceberg.spark.source.SerializableTableWithSize;
import org.apache.iceberg.spark.source.metrics.NumDeletes;
import org.apache.iceberg.spark.source.metrics.NumSplits;
import org.apache.iceberg.util.TableScanUtil;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.broadcast.Broadcast;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.connector.expressions.NamedReference;
import org.apache.spark.sql.connector.expressions.filter.Predicate;
import org.apache.spark.sql.connector.metric.CustomMetric;
import org.apache.spark.sql.connector.read.Batch;
import org.apache.spark.sql.connector.read.InputPartition;
import org.apache.spark.sql.connector.read.PartitionReaderFactory;
import org.apache.spark.sql.connector.read.Scan;
import org.apache.spark.sql.connector.read.Statistics;
import org.apache.spark.sql.connector.read.SupportsReportStatistics;
import org.apache.spark.sql.connector.read.SupportsRuntimeV2Filtering;
import org.apache.spark.sql.connector.read.streaming.MicroBatchStream;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A batch scan of a protected table for one principal. Plans with Iceberg ({@link Table#newScan()})
 * using only the predicates that are safe to push, and reads through {@link ProtectedBatchReader}
 * (columnar, wherever Iceberg would read columnar) or {@link ProtectedRowReader}, applying position
 * deletes, deletion vectors and equality deletes on unprotected columns.
 *
 * <p>Like Iceberg's {@code SparkBatchQueryScan} it takes runtime filters on partition source
 * columns (dynamic partition pruning, and the runtime filters of MERGE and UPDATE), which prune
 * planned files by their partition values. A scan for a row-level operation reads one pinned
 * snapshot ({@link #snapshotId()}), and its pushed filters are the operation's conflict detection
 * filter.
 */
public class ProtectedScan
    implements Scan, Batch, SupportsReportStatistics, SupportsRuntimeV2Filtering {
  private static final Logger LOG = LoggerFactory.getLogger(ProtectedScan.class);

  private final SparkSession spark;
  private final Table table;
  private final ProtectedProjection projection;
  private final Schema filterSchema;
  private final ProtectedFilters filters;
  private final ScanSelection selection;
  private final boolean caseSensitive;
  private final boolean batchReads;
  private final int batchSize;
  private final boolean cacheDeletes;
  private final String catalogName;
  private final boolean acceptUnverified;
  private final List<Expression> runtimeFilters = new ArrayList<>();
  private long splitSize;
  private int splitLookback;
  private long splitOpenFileCost;
  private List<FileScanTask> lazyFiles = null;
  private List<List<FileScanTask>> lazyTasks = null;
  private CaseInsensitiveStringMap readOptions = CaseInsensitiveStringMap.empty();

  /**
   * @param vectorization whether Parquet vectorization is enabled for this read (Iceberg's {@code
   *     SparkReadConf.parquetVectorizationEnabled()})
   * @param batchSize rows per columnar batch ({@code SparkReadConf.parquetBatchSize()})
   * @param cacheDeletes whether executors cache loaded delete files ({@code
   *     SparkReadConf.cacheDeleteFilesOnExecutors()})
   * @param catalogName the protecting catalog, named in errors; may be null
   * @param acceptUnverified read files the protector did not write instead of refusing them
   */
  ProtectedScan(
      SparkSession spark,
      Table table,
      ProtectedProjection projection,
      Schema filterSchema,
      ProtectedFilters filters,
      ScanSelection selection,
      boolean caseSensitive,
      boolean vectorization,
      int batchSize,
      boolean cacheDeletes,
      String catalogName,
      boolean acceptUnverified) {
    this.spark = spark;
    this.catalogName = catalogName;
    this.acceptUnverified = acceptUnverified;
    this.table = table;
    this.projection = projection;
    this.filterSchema = filterSchema;
    this.filters = filters;
    this.selection = selection;
    this.caseSensitive = caseSensitive;
    // Iceberg's conditions (SparkBatch.useParquetBatchReads): vectorization on and only primitive
    // or metadata columns; every task is a Parquet data file (checked at planning)
    this.batchReads = vectorization && projection.supportsBatchReads();
    this.batchSize = batchSize;
    this.cacheDeletes = cacheDeletes;
  }

  public ProtectedProjection projection() {
    return projection;
  }

  /** The Iceberg filter used for planning: the conjunction of the pushed, safe predicates. */
  public Expression planningFilter() {
    return filters.expression();
  }

  /** The pushed predicates as Iceberg expressions (a row-level operation's conflict filter). */
  public List<Expression> filterExpressions() {
    return filters.expressions();
  }

  /** The snapshot a row-level operation's scan read, or null (an empty table, or a plain scan). */
  public Long snapshotId() {
    return selection.snapshotId();
  }

  public Table table() {
    return table;
  }

  @Override
  public StructType readSchema() {
    return projection.sparkSchema();
  }

  @Override
  public Batch toBatch() {
    return this;
  }

  /** Decided for the whole scan without planning: no partition differs from another. */
  @Override
  public ColumnarSupportMode columnarSupportMode() {
    return batchReads ? ColumnarSupportMode.SUPPORTED : ColumnarSupportMode.UNSUPPORTED;
  }

  /** Whether this scan returns columnar batches (Iceberg's vectorized Parquet readers). */
  public boolean batchReads() {
    return batchReads;
  }

  @Override
  public CustomMetric[] supportedCustomMetrics() {
    return new CustomMetric[] {KeyServiceCallsMetric.all()[0], new NumSplits(), new NumDeletes()};
  }

  /** The planned file splits, one inner list per input partition. Planned once. */
  public synchronized List<List<FileScanTask>> tasks() {
    if (lazyTasks == null) {
      lazyTasks = group(files());
    }
    return lazyTasks;
  }

  /** The planned data files (unsplit), after runtime filtering. Planned once. */
  public synchronized List<FileScanTask> files() {
    if (lazyFiles == null) {
      lazyFiles = planFiles();
    }
    return lazyFiles;
  }

  /** Replaces the planned files after runtime filtering; splits are planned again. */
  synchronized void resetFiles(List<FileScanTask> filtered) {
    this.lazyFiles = filtered;
    this.lazyTasks = null;
  }

  /** Whether residual filters are dropped from tasks (copy-on-write reads every row of a file). */
  boolean ignoreResiduals() {
    return false;
  }

  private List<FileScanTask> planFiles() {
    if (selection.stagedTasks() != null) {
      // a rewrite: exactly the staged tasks, packed into splits as Iceberg's staged scan packs them
      List<FileScanTask> staged = selection.stagedTasks();
      this.splitSize = selection.splitSize();
      this.splitLookback = selection.splitLookback();
      this.splitOpenFileCost = selection.splitOpenFileCost();
      admit(staged);
      return staged;
    }
    TableScan scan =
        table
            .newScan()
            .caseSensitive(caseSensitive)
            .filter(filters.expression())
            .project(dataColumns(projection.outputSchema()));
    if (ignoreResiduals()) {
      scan = scan.ignoreResiduals();
    }
    scan = selection.apply(scan);
    this.splitSize = scan.targetSplitSize();
    this.splitLookback = scan.splitLookback();
    this.splitOpenFileCost = scan.splitOpenFileCost();
    if (selection.empty()) {
      return List.of();
    }
    // which files must be bound, and which the protector did not write: decided from metadata here
    FileAdmission admission =
        FileAdmission.of(table, projection.spec().tableName(), catalogName, acceptUnverified);
    List<FileScanTask> files = new ArrayList<>();
    try (CloseableIterable<FileScanTask> planned = scan.planFiles()) {
      for (FileScanTask task : planned) {
        BaseProtectedReader.checkReadable(task, projection.spec(), filterSchema);
        admission.admit(task.file());
        files.add(task);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("Failed to plan a scan of " + table.name(), e);
    }
    admission.warnAboutLegacyFiles();
    return files;
  }

  private List<List<FileScanTask>> group(List<FileScanTask> files) {
    if (files.isEmpty()) {
      return List.of();
    }
    List<List<FileScanTask>> groups = new ArrayList<>();
    CloseableIterable<FileScanTask> splits =
        TableScanUtil.splitFiles(CloseableIterable.withNoopClose(files), splitSize);
    try (CloseableIterable<CombinedScanTask> planned =
        TableScanUtil.planTasks(splits, splitSize, splitLookback, splitOpenFileCost)) {
      for (CombinedScanTask group : planned) {
        groups.add(new ArrayList<>(group.files()));
      }
    } catch (IOException e) {
      throw new UncheckedIOException("Failed to plan the splits of a scan of " + table.name(), e);
    }
    return groups;
  }

  /**
   * Checks tasks planned elsewhere (a rewrite's staged tasks, a micro-batch's files) as this scan
   * checks its own: each is readable by the protected readers and admitted by file binding.
   */
  public void admit(List<FileScanTask> tasks) {
    FileAdmission admission =
        FileAdmission.of(table, projection.spec().tableName(), catalogName, acceptUnverified);
    for (FileScanTask task : tasks) {
      BaseProtectedReader.checkReadable(task, projection.spec(), filterSchema);
      admission.admit(task.file());
    }
    admission.warnAboutLegacyFiles();
  }

  /** Whether this is a rewrite's scan of staged tasks. */
  public boolean staged() {
    return selection.stagedTasks() != null;
  }

  /** The read options of a streaming read, which Iceberg's offset tracking takes. */
  ProtectedScan withReadOptions(CaseInsensitiveStringMap options) {
    this.readOptions = options;
    return this;
  }

  /**
   * A micro-batch read with this scan's projection, principal and readers; Iceberg tracks the
   * offsets ({@link ProtectedMicroBatchStream}).
   */
  @Override
  public MicroBatchStream toMicroBatchStream(String checkpointLocation) {
    if (staged()) {
      throw new UnsupportedOperationException(
          "A rewrite's scan of staged tasks cannot be read as a stream: " + table.name());
    }
    return ProtectedMicroBatchStream.create(spark, this, readOptions, checkpointLocation);
  }

  /**
   * Partition source columns of the planned files that this scan returns and the principal sees in
   * clear (partition sources are never protected; the check is a backstop).
   */
  @Override
  public NamedReference[] filterAttributes() {
    Schema expected = projection.outputSchema();
    Set<Integer> hidden = ProtectedProjection.hiddenFieldIds(expected, projection.spec());
    Set<Integer> sourceIds = new LinkedHashSet<>();
    for (PartitionSpec spec : specs()) {
      for (PartitionField field : spec.fields()) {
        sourceIds.add(field.sourceId());
      }
    }
    Map<Integer, String> names = SparkSchemaUtil.indexQuotedNameById(expected);
    return sourceIds.stream()
        .filter(id -> expected.findField(id) != null && !hidden.contains(id))
        .map(id -> Spark3Util.toNamedReference(names.get(id)))
        .toArray(NamedReference[]::new);
  }

  /** Prunes planned files whose partition cannot match the runtime filters (as Iceberg does). */
  @Override
  public void filter(Predicate[] predicates) {
    Expression runtimeFilter = Expressions.alwaysTrue();
    for (Predicate predicate : predicates) {
      Expression expr = SparkV2Filters.convert(predicate);
      if (expr == null) {
        LOG.warn("Ignoring a runtime filter that Iceberg cannot express on {}", table.name());
        continue;
      }
      try {
        Binder.bind(projection.outputSchema().asStruct(), expr, caseSensitive);
        runtimeFilter = Expressions.and(runtimeFilter, expr);
      } catch (RuntimeException e) {
        LOG.warn("Ignoring a runtime filter that does not bind to the scan of {}", table.name());
      }
    }
    if (runtimeFilter == Expressions.alwaysTrue()) {
      return;
    }
    Map<Integer, Evaluator> evaluators = new HashMap<>();
    for (PartitionSpec spec : specs()) {
      Expression inclusive = Projections.inclusive(spec, caseSensitive).project(runtimeFilter);
      evaluators.put(spec.specId(), new Evaluator(spec.partitionType(), inclusive));
    }
    List<FileScanTask> current = files();
    List<FileScanTask> kept =
        current.stream()
            .filter(task -> evaluators.get(task.spec().specId()).eval(task.file().partition()))
            .collect(Collectors.toList());
    LOG.info(
        "{} of {} file(s) of {} matched a runtime filter",
        kept.size(),
        current.size(),
        table.name());
    if (kept.size() < current.size()) {
      resetFiles(kept);
    }
    runtimeFilters.add(runtimeFilter);
  }

  private Set<PartitionSpec> specs() {
    Set<PartitionSpec> specs = new LinkedHashSet<>();
    files().stream()
        .map(task -> task.spec().specId())
        .distinct()
        .forEach(id -> specs.add(table.specs().get(id)));
    return specs;
  }

  private static Schema dataColumns(Schema schema) {
    return new Schema(
        schema.columns().stream()
            .filter(f -> !org.apache.iceberg.MetadataColumns.isMetadataColumn(f.fieldId()))
            .collect(Collectors.toList()));
  }

  @Override
  public InputPartition[] planInputPartitions() {
    List<List<FileScanTask>> groups = tasks();
    InputPartition[] partitions = new InputPartition[groups.size()];
    for (int i = 0; i < partitions.length; i++) {
      partitions[i] = new ProtectedInputPartition(groups.get(i), this);
    }
    return partitions;
  }

  @Override
  public PartitionReaderFactory createReaderFactory() {
    JavaSparkContext context = JavaSparkContext.fromSparkContext(spark.sparkContext());
    Broadcast<Table> tableBroadcast = context.broadcast(SerializableTableWithSize.copyOf(table));
    return new ProtectedReaderFactory(
        batchReads,
        batchSize,
        tableBroadcast,
        projection,
        filterSchema,
        caseSensitive,
        cacheDeletes);
  }

  @Override
  public Statistics estimateStatistics() {
    long rows = 0;
    for (List<FileScanTask> group : tasks()) {
      for (FileScanTask task : group) {
        rows += task.estimatedRowsCount();
      }
    }
    long size = SparkSchemaUtil.estimateSize(readSchema(), rows);
    long numRows = rows;
    return new Statistics() {
      @Override
      public OptionalLong sizeInBytes() {
        return OptionalLong.of(size);
      }

      @Override
      public OptionalLong numRows() {
        return OptionalLong.of(numRows);
      }
    };
  }

  /** Table, snapshot, pushed filters and protected columns by access level; never a value. */
  @Override
  public String description() {
    ProtectionSpec spec = projection.spec();
    StringBuilder sb = new StringBuilder(kind()).append("[table=").append(table.name());
    sb.append(", ").append(selection.describe(table));
    sb.append(", principal=").append(spec.principal());
    sb.append(", ").append(batchReads ? "columnar" : "rows");
    sb.append(", pushedFilters=")
        .append(ExpressionRedactor.forSpec(spec, filterSchema).redact(filters.expressions()));
    if (filters.withheld().length > 0) {
      sb.append(", filtersLeftToSpark=").append(filters.withheld().length);
    }
    if (!runtimeFilters.isEmpty()) {
      sb.append(", runtimeFilters=")
          .append(ExpressionRedactor.forSpec(spec, filterSchema).redact(runtimeFilters));
    }
    Map<AccessLevel, List<String>> byLevel =
        spec.columns().values().stream()
            .collect(
                Collectors.groupingBy(
                    ColumnProtection::level,
                    Collectors.mapping(ProtectedScan::describe, Collectors.toList())));
    for (AccessLevel level : AccessLevel.values()) {
      List<String> columns = byLevel.get(level);
      if (columns != null) {
        sb.append(", ").append(level.name().toLowerCase(java.util.Locale.ROOT)).append('=');
        sb.append(columns);
      }
    }
    return sb.append(']').toString();
  }

  /** What {@link #description()} calls this scan. */
  String kind() {
    return "ProtectedScan";
  }

  private static String describe(ColumnProtection column) {
    switch (column.level()) {
      case MASKED:
        return column.path() + ":" + column.mask().spec();
      case DENIED:
        return column.path()
            + ":on-denied="
            + column.onDenied().name().toLowerCase(java.util.Locale.ROOT);
      default:
        return column.path();
    }
  }

  @Override
  public String toString() {
    return description();
  }
}
