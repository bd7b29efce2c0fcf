/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.spark.read;

import static io.icebergprotector.policy.Preconditions.checkArgument;

import io.icebergprotector.spark.access.MaintenanceAccess;
import io.icebergprotector.spark.compat.IcebergOptions;
import io.icebergprotector.spark.core.ProtectionSpec;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.iceberg.MetadataColumns;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.spark.SparkReadConf;
import org.apache.iceberg.spark.SparkSchemaUtil;
import org.apache.iceberg.types.TypeUtil;
import org.apache.iceberg.types.Types;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.connector.expressions.filter.Predicate;
import org.apache.spark.sql.connector.read.Scan;
import org.apache.spark.sql.connector.read.ScanBuilder;
import org.apache.spark.sql.connector.read.SupportsPushDownRequiredColumns;
import org.apache.spark.sql.connector.read.SupportsPushDownV2Filters;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;

/**
 * Builds the scan of a protected table for one principal.
 *
 * <ul>
 *   <li>Filters: predicates on columns the principal sees in clear are pushed to Iceberg (file and
 *       row-group pruning); predicates on denied or masked columns are never pushed. Every
 *       predicate is also returned to Spark as a post-scan filter, so Spark evaluates it on the
 *       values this scan returns.
 *   <li>Projection: denied columns read as NULL (or fail the query at planning when the policy says
 *       {@code on-denied = fail}); protected columns are nullable in the read schema.
 *   <li>Time travel and split options as in Iceberg: {@code snapshot-id}, {@code as-of-timestamp},
 *       {@code branch}, {@code tag}, {@code split-size}, {@code lookback}, {@code file-open-cost}.
 *   <li>Rewrites (Iceberg's {@code rewrite_data_files}, {@code rewrite_protected}): with {@code
 *       scan-task-set-id} the scan reads exactly the tasks staged in Iceberg's {@code
 *       ScanTaskSetManager}, for a principal who reads every protected column in clear.
 *   <li>Streaming: {@code readStream} reads micro-batches through the same scan ({@link
 *       ProtectedMicroBatchStream}).
 * </ul>
 */
public class ProtectedScanBuilder
    implements ScanBuilder, SupportsPushDownV2Filters, SupportsPushDownRequiredColumns {
  private final SparkSession spark;
  private final Table table;
  private final Schema schema;
  private final ProtectionSpec spec;
  private final ReadRequest request;
  private final SparkReadConf readConf;
  private final boolean caseSensitive;
  private final CaseInsensitiveStringMap options;
  private final String catalogName;
  private final boolean acceptUnverified;

  private ProtectedFilters filters = ProtectedFilters.none();
  private Set<Integer> conditionFieldIds = Set.of();
  private Schema projected;
  private final List<String> metadataColumns = new ArrayList<>();

  /**
   * @param table the Iceberg table
   * @param snapshotId the snapshot of a time-travel table ({@code VERSION AS OF}), or null
   * @param branch the branch of the table identifier, or null
   * @param snapshotSchema the schema of the snapshot or branch being read
   * @param options the read options
   * @param spec the table's protection for the reading principal
   * @param catalogName the protecting catalog the table was loaded from (named in errors), or null
   * @param acceptUnverified whether to read data files the protector did not write instead of
   *     refusing them ({@link io.icebergprotector.spark.binding.FileAdmission})
   */
  public ProtectedScanBuilder(
      SparkSession spark,
      Table table,
      Long snapshotId,
      String branch,
      Schema snapshotSchema,
      CaseInsensitiveStringMap options,
      ProtectionSpec spec,
      String catalogName,
      boolean acceptUnverified) {
    this.catalogName = catalogName;
    this.acceptUnverified = acceptUnverified;
    this.spark = spark;
    this.table = table;
    this.schema = snapshotSchema;
    this.spec = spec;
    CaseInsensitiveStringMap scanOptions =
        branch != null ? options : withSnapshotId(options, snapshotId);
    this.request = ReadRequest.of(spark, table, branch, scanOptions);
    this.readConf = request.conf();
    this.caseSensitive = readConf.caseSensitive();
    this.projected = snapshotSchema;
    this.options = options;
  }

  @Override
  public Predicate[] pushPredicates(Predicate[] predicates) {
    Set<Integer> hidden = ProtectedProjection.hiddenFieldIds(schema, spec);
    this.filters = ProtectedFilters.split(predicates, schema, hidden, caseSensitive);
    this.conditionFieldIds = ProtectedFilters.references(predicates, schema, caseSensitive);
    // Spark evaluates everything again: pushed filters only prune files and row groups
    return predicates;
  }

  @Override
  public Predicate[] pushedPredicates() {
    return filters.pushed();
  }

  @Override
  public void pruneColumns(StructType requestedSchema) {
    StructType dataColumns =
        new StructType(
            Stream.of(requestedSchema.fields())
                .filter(field -> MetadataColumns.nonMetadataColumn(field.name()))
                .toArray(StructField[]::new));
    this.projected = SparkSchemaUtil.prune(schema, dataColumns);
    metadataColumns.clear();
    Stream.of(requestedSchema.fields())
        .map(StructField::name)
        .filter(MetadataColumns::isMetadataColumn)
        .distinct()
        .forEach(metadataColumns::add);
  }

  @Override
  public Scan build() {
    ProtectedProjection projection = ProtectedProjection.of(projectedSchema(), spec);
    ScanSelection selection;
    if (request.scanTaskSetId() != null) {
      // a rewrite writes back every value it reads: masked or NULL values would replace real ones
      MaintenanceAccess.requireClearReads(spec, "a rewrite of its data files");
      selection = ScanSelection.staged(table, request);
    } else {
      selection = ScanSelection.from(request);
    }
    return new ProtectedScan(
            spark,
            table,
            projection,
            schema,
            filters,
            selection,
            caseSensitive,
            readConf.parquetVectorizationEnabled(),
            readConf.parquetBatchSize(),
            readConf.cacheDeleteFilesOnExecutors(),
            catalogName,
            acceptUnverified)
        .withReadOptions(options);
  }

  /**
   * The scan of a merge-on-read DELETE, UPDATE or MERGE: the latest snapshot of the branch, pinned
   * for the commit's validation (Iceberg's {@code SparkScanBuilder.buildMergeOnReadScan}).
   */
  public ProtectedScan buildMergeOnReadScan() {
    checkRowLevelScan();
    ScanSelection selection = ScanSelection.forRowLevelOperation(table, request);
    return new ProtectedScan(
        spark,
        table,
        ProtectedProjection.of(projectedSchema(), spec),
        schema,
        filters,
        selection,
        caseSensitive,
        readConf.parquetVectorizationEnabled(),
        readConf.parquetBatchSize(),
        readConf.cacheDeleteFilesOnExecutors(),
        catalogName,
        acceptUnverified);
  }

  /**
   * The scan of a copy-on-write DELETE, UPDATE or MERGE: whole files of the latest snapshot of the
   * branch (Iceberg's {@code SparkScanBuilder.buildCopyOnWriteScan}).
   */
  public ProtectedCopyOnWriteScan buildCopyOnWriteScan() {
    checkRowLevelScan();
    ScanSelection selection = ScanSelection.forRowLevelOperation(table, request);
    return new ProtectedCopyOnWriteScan(
        spark,
        table,
        request.branch(),
        ProtectedProjection.of(projectedSchema(), spec),
        schema,
        filters,
        selection,
        caseSensitive,
        readConf.parquetVectorizationEnabled(),
        readConf.parquetBatchSize(),
        readConf.cacheDeleteFilesOnExecutors(),
        catalogName,
        acceptUnverified);
  }

  private void checkRowLevelScan() {
    checkArgument(
        request.scanTaskSetId() == null,
        "A rewrite's scan of staged tasks cannot be the scan of a row-level operation on %s",
        table.name());
  }

  /** The columns the scan reads: the pruned table columns and the requested metadata columns. */
  public Schema projectedSchema() {
    return TypeUtil.join(projected, metadataSchema());
  }

  /**
   * Field ids (in the scanned schema) of the columns that the predicates Spark offered this scan
   * refer to, pushed or not: the columns a DELETE or UPDATE condition compares.
   */
  public Set<Integer> conditionFieldIds() {
    return conditionFieldIds;
  }

  /** The table's protection for the principal this scan reads as. */
  public ProtectionSpec spec() {
    return spec;
  }

  /** The schema of the snapshot or branch this builder scans. */
  public Schema scannedSchema() {
    return schema;
  }

  /** Requested metadata columns; {@code _partition}'s field ids are moved clear of table ids. */
  private Schema metadataSchema() {
    List<Types.NestedField> fields =
        metadataColumns.stream()
            .map(name -> MetadataColumns.metadataColumn(table, name))
            .collect(Collectors.toList());
    Types.NestedField partition =
        fields.stream()
            .filter(f -> f.fieldId() == MetadataColumns.PARTITION_COLUMN_ID)
            .findFirst()
            .orElse(null);
    if (partition == null) {
      return new Schema(fields);
    }
    Set<Integer> partitionIds = TypeUtil.indexById(partition.type().asStructType()).keySet();
    Set<Integer> used = new HashSet<>();
    fields.forEach(f -> used.add(f.fieldId()));
    table.schemas().values().forEach(s -> used.addAll(TypeUtil.indexById(s.asStruct()).keySet()));
    return new Schema(
        fields, TypeUtil.reassignConflictingIds(new LinkedHashSet<>(partitionIds), used));
  }

  private static CaseInsensitiveStringMap withSnapshotId(
      CaseInsensitiveStringMap options, Long snapshotId) {
    if (snapshotId == null) {
      return options;
    }
    String value = snapshotId.toString();
    String fromOptions = options.get(IcebergOptions.SNAPSHOT_ID);
    checkArgument(
        fromOptions == null || fromOptions.equals(value),
        "Cannot override snapshot ID more than once: %s",
        fromOptions);
    Map<String, String> merged = new HashMap<>(options.asCaseSensitiveMap());
    merged.put(IcebergOptions.SNAPSHOT_ID, value);
    merged.remove(IcebergOptions.AS_OF_TIMESTAMP);
    merged.remove(IcebergOptions.BRANCH);
    merged.remove(IcebergOptions.TAG);
    return new CaseInsensitiveStringMap(merged);
  }
}
