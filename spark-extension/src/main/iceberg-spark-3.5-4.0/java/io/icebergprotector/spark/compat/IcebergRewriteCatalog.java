/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.spark.compat;

import org.apache.iceberg.spark.SparkCachedTableCatalog;
import org.apache.iceberg.spark.source.SparkTable;
import org.apache.spark.sql.connector.catalog.Identifier;
import org.apache.spark.sql.connector.catalog.Table;
import org.apache.spark.sql.connector.catalog.TableCatalog;

/**
 * The catalog through which Iceberg's Spark 3.5 and 4.0 actions read and write the file groups they
 * rewrite: {@code SparkCachedTableCatalog}, named {@value #NAME}, whose tables are Iceberg's {@code
 * SparkTable}; the reads and writes name the group in their options ({@code scan-task-set-id},
 * {@code rewritten-file-scan-task-set-id}).
 */
public final class IcebergRewriteCatalog {
  /** The catalog name Iceberg's source resolves the tables of its rewrites with. */
  public static final String NAME = "default_cache_iceberg";

  /** Iceberg's class for that catalog. */
  public static final String ICEBERG_CLASS = SparkCachedTableCatalog.class.getName();

  private IcebergRewriteCatalog() {}

  public static TableCatalog newIcebergCatalog() {
    return new SparkCachedTableCatalog();
  }

  /** The Iceberg table behind a table of Iceberg's catalog. */
  public static org.apache.iceberg.Table icebergTable(Table loaded) {
    return ((SparkTable) loaded).table();
  }

  /**
   * The file group a table loaded as {@code ident} reads and writes, or null when its reads and
   * writes name the group in their options (always, on these modules).
   */
  public static String rewriteGroupId(Identifier ident) {
    return null;
  }
}
