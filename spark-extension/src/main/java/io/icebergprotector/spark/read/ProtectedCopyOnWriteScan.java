/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.spark.read;

import static io.icebergprotector.policy.Preconditions.checkState;

import io.icebergprotector.spark.compat.RowLevelCompat;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.MetadataColumns;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.util.SnapshotUtil;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.connector.expressions.Expressions;
import org.apache.spark.sql.connector.expressions.Literal;
import org.apache.spark.sql.connector.expressions.NamedReference;
import org.apache.spark.sql.connector.expressions.filter.Predicate;
import org.apache.spark.sql.types.StructType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The scan of a copy-on-write DELETE, UPDATE or MERGE on a protected table (Iceberg 1.11.0's {@code
 * SparkCopyOnWriteScan}, see FORKS.md). It reads whole data files: every row of a file it returns
 * is written again (or deliberately left out) by the operation, so residual filters never prune row
 * groups, and the files it planned are the files the commit replaces. Spark narrows it at runtime
 * to the files holding matching rows ({@code _file IN (...)}).
 */
public final class ProtectedCopyOnWriteScan extends ProtectedScan {
  private static final Logger LOG = LoggerFactory.getLogger(ProtectedCopyOnWriteScan.class);

  private final String branch;
  private Set<String> filteredLocations = null;

  ProtectedCopyOnWriteScan(
      SparkSession spark,
      Table table,
      String branch,
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
    super(
        spark,
        table,
        projection,
        filterSchema,
        filters,
        selection,
        caseSensitive,
        vectorization,
        batchSize,
        cacheDeletes,
        catalogName,
        acceptUnverified);
    this.branch = branch;
  }

  @Override
  boolean ignoreResiduals() {
    return true;
  }

  /**
   * On Spark 3.5 row lineage columns ({@code _row_id}, {@code _last_updated_sequence_number}) read
   * as data columns, so Spark carries them into the rewritten rows (as Iceberg does); Spark 4.0
   * passes them in the metadata row ({@link RowLevelCompat}).
   */
  @Override
  public StructType readSchema() {
    return RowLevelCompat.copyOnWriteReadSchema(super.readSchema());
  }

  @Override
  public NamedReference[] filterAttributes() {
    return new NamedReference[] {Expressions.column(MetadataColumns.FILE_PATH.name())};
  }

  /** Keeps only the files Spark found matching rows in ({@code _file IN (...)}). */
  @Override
  public void filter(Predicate[] predicates) {
    Long current = currentSnapshotId();
    checkState(
        Objects.equals(snapshotId(), current),
        "Runtime file filtering is not possible: table %s was modified "
            + "concurrently (the operation's scan read snapshot %s, the "
            + "table is at %s). Use a separate Spark session per thread that "
            + "writes the table",
        table().name(),
        snapshotId(),
        current);
    for (Predicate predicate : predicates) {
      if (!isFileIn(predicate)) {
        LOG.warn("Ignoring an unsupported runtime filter on {}", table().name());
        continue;
      }
      Set<String> locations = new HashSet<>();
      for (int i = 1; i < predicate.children().length; i++) {
        if (predicate.children()[i] instanceof Literal) {
          locations.add(((Literal<?>) predicate.children()[i]).value().toString());
        }
      }
      // Spark may filter twice (UPDATE with a subquery scans on both sides of a union)
      if (filteredLocations == null || locations.size() < filteredLocations.size()) {
        this.filteredLocations = locations;
        List<FileScanTask> all = files();
        List<FileScanTask> kept =
            all.stream()
                .filter(task -> locations.contains(task.file().location()))
                .collect(Collectors.toList());
        LOG.info(
            "{} of {} file(s) of {} hold rows the operation changes",
            kept.size(),
            all.size(),
            table().name());
        resetFiles(kept);
      }
    }
  }

  @Override
  String kind() {
    return "ProtectedCopyOnWriteScan";
  }

  private Long currentSnapshotId() {
    Snapshot snapshot = SnapshotUtil.latestSnapshot(table(), branch);
    return snapshot != null ? snapshot.snapshotId() : null;
  }

  private static boolean isFileIn(Predicate predicate) {
    if (!"IN".equals(predicate.name()) || predicate.children().length < 1) {
      return false;
    }
    if (!(predicate.children()[0] instanceof NamedReference)) {
      return false;
    }
    String[] names = ((NamedReference) predicate.children()[0]).fieldNames();
    return names.length == 1 && names[0].equalsIgnoreCase(MetadataColumns.FILE_PATH.name());
  }
}
