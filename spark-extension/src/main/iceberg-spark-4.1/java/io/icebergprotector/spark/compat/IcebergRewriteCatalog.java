/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.spark.compat;

import org.apache.iceberg.spark.SparkRewriteTableCatalog;
import org.apache.iceberg.spark.source.SparkRewriteTable;
import org.apache.spark.sql.connector.catalog.Identifier;
import org.apache.spark.sql.connector.catalog.Table;
import org.apache.spark.sql.connector.catalog.TableCatalog;

/**
 * The catalog through which Iceberg's Spark 4.1 actions read and write the file groups they
 * rewrite: {@code SparkRewriteTableCatalog}, named {@value #NAME}. Each of its tables is one file
 * group, loaded by the group's id ({@code spark.read().format("iceberg").load(groupId)}), and its
 * reads and writes name no group in their options.
 */
public final class IcebergRewriteCatalog {
  /** The catalog name Iceberg's source resolves the tables of its rewrites with. */
  public static final String NAME = "default_rewrite_catalog";

  /** Iceberg's class for that catalog. */
  public static final String ICEBERG_CLASS = SparkRewriteTableCatalog.class.getName();

  private IcebergRewriteCatalog() {}

  public static TableCatalog newIcebergCatalog() {
    return new SparkRewriteTableCatalog();
  }

  /** The Iceberg table behind a table of Iceberg's catalog. */
  public static org.apache.iceberg.Table icebergTable(Table loaded) {
    return ((SparkRewriteTable) loaded).table();
  }

  /** The file group a table loaded as {@code ident} reads and writes: its name. */
  public static String rewriteGroupId(Identifier ident) {
    return ident.name();
  }
}
