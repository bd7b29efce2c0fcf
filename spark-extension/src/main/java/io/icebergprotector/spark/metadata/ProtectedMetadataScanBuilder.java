/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.spark.metadata;

import java.util.ArrayList;
import java.util.List;
import org.apache.iceberg.spark.SparkSchemaUtil;
import org.apache.iceberg.types.Types;
import org.apache.spark.sql.connector.expressions.NamedReference;
import org.apache.spark.sql.connector.expressions.filter.Predicate;
import org.apache.spark.sql.connector.read.Scan;
import org.apache.spark.sql.connector.read.ScanBuilder;
import org.apache.spark.sql.connector.read.SupportsPushDownRequiredColumns;
import org.apache.spark.sql.connector.read.SupportsPushDownV2Filters;
import org.apache.spark.sql.types.StructType;

/**
 * Builds the scan of a protected metadata table around Iceberg's own scan builder. Column pruning
 * passes through. A predicate that references a redacted field (a metrics map, {@code
 * readable_metrics}, a deleted row, or a struct holding one) is never pushed: Iceberg would
 * evaluate it on the values before redaction, and which rows come back would reveal them. Spark
 * evaluates it after the redaction instead, as it does every predicate Iceberg returns.
 */
final class ProtectedMetadataScanBuilder
    implements ScanBuilder, SupportsPushDownV2Filters, SupportsPushDownRequiredColumns {
  private final ScanBuilder delegate;
  private final Types.StructType metadataSchema;
  private final HiddenColumns hidden;
  private final MetricsRedaction wholeTable;

  ProtectedMetadataScanBuilder(
      ScanBuilder delegate, Types.StructType metadataSchema, HiddenColumns hidden) {
    this.delegate = delegate;
    this.metadataSchema = metadataSchema;
    this.hidden = hidden;
    this.wholeTable =
        MetricsRedaction.of(
            SparkSchemaUtil.convert(new org.apache.iceberg.Schema(metadataSchema.fields())),
            metadataSchema,
            hidden);
  }

  @Override
  public Predicate[] pushPredicates(Predicate[] predicates) {
    List<Predicate> pushable = new ArrayList<>();
    List<Predicate> withheld = new ArrayList<>();
    for (Predicate predicate : predicates) {
      (touchesRedactedFields(predicate) ? withheld : pushable).add(predicate);
    }
    List<Predicate> postScan = new ArrayList<>();
    if (delegate instanceof SupportsPushDownV2Filters) {
      postScan.addAll(
          List.of(
              ((SupportsPushDownV2Filters) delegate)
                  .pushPredicates(pushable.toArray(new Predicate[0]))));
    } else {
      postScan.addAll(pushable);
    }
    postScan.addAll(withheld);
    return postScan.toArray(new Predicate[0]);
  }

  private boolean touchesRedactedFields(Predicate predicate) {
    for (NamedReference reference : predicate.references()) {
      if (wholeTable.touches(reference.fieldNames())) {
        return true;
      }
    }
    return false;
  }

  @Override
  public Predicate[] pushedPredicates() {
    return delegate instanceof SupportsPushDownV2Filters
        ? ((SupportsPushDownV2Filters) delegate).pushedPredicates()
        : new Predicate[0];
  }

  @Override
  public void pruneColumns(StructType requiredSchema) {
    if (delegate instanceof SupportsPushDownRequiredColumns) {
      ((SupportsPushDownRequiredColumns) delegate).pruneColumns(requiredSchema);
    }
  }

  @Override
  public Scan build() {
    Scan scan = delegate.build();
    return new ProtectedMetadataScan(
        scan, MetricsRedaction.of(scan.readSchema(), metadataSchema, hidden));
  }
}
