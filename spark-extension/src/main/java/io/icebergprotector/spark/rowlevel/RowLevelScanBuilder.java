/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.spark.rowlevel;

import io.icebergprotector.spark.read.ProtectedScanBuilder;
import java.util.function.Function;
import org.apache.spark.sql.connector.expressions.filter.Predicate;
import org.apache.spark.sql.connector.read.Scan;
import org.apache.spark.sql.connector.read.ScanBuilder;
import org.apache.spark.sql.connector.read.SupportsPushDownRequiredColumns;
import org.apache.spark.sql.connector.read.SupportsPushDownV2Filters;
import org.apache.spark.sql.types.StructType;

/**
 * The scan builder of a row-level operation: filters and columns are pushed into a protected scan
 * builder as for any scan, and {@link #build()} hands it to the operation, which checks what the
 * scan reads before it builds the scan of its write mode.
 */
final class RowLevelScanBuilder
    implements ScanBuilder, SupportsPushDownV2Filters, SupportsPushDownRequiredColumns {
  private final ProtectedScanBuilder delegate;
  private final Function<ProtectedScanBuilder, Scan> build;

  RowLevelScanBuilder(ProtectedScanBuilder delegate, Function<ProtectedScanBuilder, Scan> build) {
    this.delegate = delegate;
    this.build = build;
  }

  @Override
  public Predicate[] pushPredicates(Predicate[] predicates) {
    return delegate.pushPredicates(predicates);
  }

  @Override
  public Predicate[] pushedPredicates() {
    return delegate.pushedPredicates();
  }

  @Override
  public void pruneColumns(StructType requiredSchema) {
    delegate.pruneColumns(requiredSchema);
  }

  @Override
  public Scan build() {
    return build.apply(delegate);
  }
}
