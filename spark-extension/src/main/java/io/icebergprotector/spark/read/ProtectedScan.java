package io.icebergprotector.spark.read;

import io.icebergprotector.policy.AccessLevel;
import io.icebergprotector.spark.ColumnProtection;
import io.icebergprotector.spark.ExpressionRedactor;
import io.icebergprotector.spark.ProtectionSpec;
import io.icebergprotector.spark.write.KeyServiceCallsMetric;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.stream.Collectors;
import org.apache.iceberg.CombinedScanTask;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableScan;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.spark.SparkSchemaUtil;
import org.apache.iceberg.spark.source.SerializableTableWithSize;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.broadcast.Broadcast;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.connector.metric.CustomMetric;
import org.apache.spark.sql.connector.read.Batch;
import org.apache.spark.sql.connector.read.InputPartition;
import org.apache.spark.sql.connector.read.PartitionReaderFactory;
import org.apache.spark.sql.connector.read.Scan;
import org.apache.spark.sql.connector.read.Statistics;
import org.apache.spark.sql.connector.read.SupportsReportStatistics;
import org.apache.spark.sql.types.StructType;

/**
 * A batch scan of a protected table for one principal. Plans with Iceberg ({@link Table#newScan()})
 * using only the predicates that are safe to push, and reads through {@link ProtectedBatchReader}
 * (columnar, wherever Iceberg would read columnar) or {@link ProtectedRowReader}.
 */
public final class ProtectedScan implements Scan, Batch, SupportsReportStatistics {
  private final SparkSession spark;
  private final Table table;
  private final ProtectedProjection projection;
  private final Schema filterSchema;
  private final ProtectedFilters filters;
  private final ScanSelection selection;
  private final boolean caseSensitive;
  private final boolean batchReads;
  private final int batchSize;
  private List<List<FileScanTask>> lazyTasks = null;

  /**
   * @param vectorization whether Parquet vectorization is enabled for this read (Iceberg's {@code
   *     SparkReadConf.parquetVectorizationEnabled()})
   * @param batchSize rows per columnar batch ({@code SparkReadConf.parquetBatchSize()})
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
      int batchSize) {
    this.spark = spark;
    this.table = table;
    this.projection = projection;
    this.filterSchema = filterSchema;
    this.filters = filters;
    this.selection = selection;
    this.caseSensitive = caseSensitive;
    // Iceberg's conditions (SparkBatch.useParquetBatchReads): vectorization on and only primitive
    // or metadata columns; every task is a Parquet data file without deletes (checked at planning)
    this.batchReads = vectorization && projection.supportsBatchReads();
    this.batchSize = batchSize;
  }

  public ProtectedProjection projection() {
    return projection;
  }

  /** The Iceberg filter used for planning: the conjunction of the pushed, safe predicates. */
  public Expression planningFilter() {
    return filters.expression();
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
    return KeyServiceCallsMetric.all();
  }

  /** The planned file splits, one inner list per input partition. Planned once. */
  public List<List<FileScanTask>> tasks() {
    if (lazyTasks == null) {
      lazyTasks = plan();
    }
    return lazyTasks;
  }

  private List<List<FileScanTask>> plan() {
    TableScan scan =
        table
            .newScan()
            .caseSensitive(caseSensitive)
            .filter(filters.expression())
            .project(dataColumns(projection.outputSchema()));
    scan = selection.apply(scan);
    List<List<FileScanTask>> groups = new ArrayList<>();
    try (CloseableIterable<CombinedScanTask> planned = scan.planTasks()) {
      for (CombinedScanTask group : planned) {
        List<FileScanTask> files = new ArrayList<>();
        for (FileScanTask task : group.files()) {
          if (selection.includes(task)) {
            BaseProtectedReader.checkReadable(task, projection.spec());
            files.add(task);
          }
        }
        if (!files.isEmpty()) {
          groups.add(files);
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("Failed to plan a scan of " + table.name(), e);
    }
    return groups;
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
      partitions[i] = new ProtectedInputPartition(groups.get(i));
    }
    return partitions;
  }

  @Override
  public PartitionReaderFactory createReaderFactory() {
    JavaSparkContext context = JavaSparkContext.fromSparkContext(spark.sparkContext());
    Broadcast<Table> tableBroadcast = context.broadcast(SerializableTableWithSize.copyOf(table));
    return new ProtectedReaderFactory(
        batchReads, batchSize, tableBroadcast, projection, filterSchema, caseSensitive);
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
    StringBuilder sb = new StringBuilder("ProtectedScan[table=").append(table.name());
    sb.append(", ").append(selection.describe(table));
    sb.append(", principal=").append(spec.principal());
    sb.append(", ").append(batchReads ? "columnar" : "rows");
    sb.append(", pushedFilters=")
        .append(ExpressionRedactor.forSpec(spec, filterSchema).redact(filters.expressions()));
    if (filters.withheld().length > 0) {
      sb.append(", filtersLeftToSpark=").append(filters.withheld().length);
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
