/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.cli;

import io.icebergprotector.kms.KmsSettings;
import io.icebergprotector.policy.Policy;
import io.icebergprotector.policy.Principal;
import io.icebergprotector.policy.TablePolicy;
import io.icebergprotector.spark.core.ProtectionSpec;
import io.icebergprotector.spark.core.ProtectorContext;
import io.icebergprotector.spark.inspect.ColumnReport;
import io.icebergprotector.spark.inspect.FooterReport;
import io.icebergprotector.spark.inspect.KeyMaterial;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.iceberg.ContentFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.spark.Spark3Util;
import org.apache.spark.sql.SparkSession;

/**
 * The scan behind {@code keys retire}: every Parquet data and delete file of every snapshot a table
 * still keeps (time travel reads them too), and which versions of one master key their footer and
 * columns were wrapped under. Encrypted footers are decrypted with the key service being retired,
 * as {@code --user}.
 */
final class RetireScan {
  private RetireScan() {}

  /** A file that still needs a version below the new minimum: where each such version is used. */
  record Finding(String table, String location, Map<String, Set<String>> usesByVersion) {
    /** e.g. "pii v1 (footer, ssn)". */
    String describe(String keyId) {
      List<String> parts = new ArrayList<>();
      usesByVersion.forEach(
          (v, uses) -> parts.add(keyId + " " + v + " (" + String.join(", ", uses) + ")"));
      return String.join("; ", parts);
    }
  }

  /** One table: how many files were read, or why it was not scanned. */
  record TableResult(String table, int files, int skippedNotParquet, String notScanned) {}

  record Result(List<TableResult> tables, List<Finding> findings) {}

  static Result run(
      Workspace ws,
      CatalogOptions catalog,
      KmsSettings kms,
      Policy policy,
      String user,
      String keyId,
      int below,
      List<String> tableNames,
      Set<String> explicit,
      PrintWriter err) {
    err.println(
        "starting local Spark to scan "
            + tableNames.size()
            + (tableNames.size() == 1 ? " table" : " tables")
            + " of catalog "
            + catalog.catalog
            + " for files that need "
            + keyId
            + " below v"
            + below
            + "...");
    err.flush();
    SparkSession spark =
        LocalSpark.start(
            LocalSpark.settings(ws, user, null, catalog), "iceberg-protector keys retire");
    List<TableResult> tables = new ArrayList<>();
    List<Finding> findings = new ArrayList<>();
    try {
      for (String name : tableNames) {
        Table table;
        try {
          table = Spark3Util.loadIcebergTable(spark, catalog.catalog + "." + name);
        } catch (Exception e) { // Spark's parse and analysis exceptions are checked
          if (explicit.contains(name)) {
            throw new CliException(
                "cannot scan table " + catalog.catalog + "." + name + ": " + SparkErrors.message(e),
                e);
          }
          // A policy may name tables that were never created: they hold no files.
          tables.add(new TableResult(name, 0, 0, "not in catalog " + catalog.catalog));
          continue;
        }
        TablePolicy entry =
            policy.table(name).orElseGet(() -> policy.pathFor(table.location()).orElse(null));
        ProtectionSpec spec =
            entry == null
                ? null
                : ProtectionSpec.resolve(
                    ProtectorContext.of(policy, kms), entry, new Schema(), Principal.user(user));
        tables.add(scanTable(table, name, spec, keyId, below, user, findings));
      }
    } finally {
      spark.stop();
    }
    return new Result(tables, findings);
  }

  private static TableResult scanTable(
      Table table,
      String name,
      ProtectionSpec spec,
      String keyId,
      int below,
      String user,
      List<Finding> findings) {
    Set<String> parquet = new LinkedHashSet<>();
    Set<String> other = new LinkedHashSet<>();
    for (Snapshot snapshot : table.snapshots()) {
      try (CloseableIterable<FileScanTask> tasks =
          table.newScan().useSnapshot(snapshot.snapshotId()).planFiles()) {
        for (FileScanTask task : tasks) {
          add(task.file(), parquet, other);
          task.deletes().forEach(d -> add(d, parquet, other));
        }
      } catch (java.io.IOException e) {
        throw new CliException(
            "cannot list the files of table "
                + name
                + " in snapshot "
                + snapshot.snapshotId()
                + ": "
                + e.getMessage(),
            e);
      }
    }
    for (String location : parquet) {
      FooterReport report;
      try {
        report = TableInspector.footer(table, location, spec);
      } catch (RuntimeException e) {
        throw new CliException(
            "cannot read which versions of key '"
                + keyId
                + "' file "
                + location
                + " of table "
                + name
                + " needs (as user "
                + user
                + "): "
                + SparkErrors.message(e),
            e);
      }
      Map<String, Set<String>> uses = needs(report, keyId, below, location, name);
      if (!uses.isEmpty()) {
        findings.add(new Finding(name, location, uses));
      }
    }
    return new TableResult(name, parquet.size(), other.size(), null);
  }

  private static void add(ContentFile<?> file, Set<String> parquet, Set<String> other) {
    (file.format() == FileFormat.PARQUET ? parquet : other).add(file.location());
  }

  /**
   * Versions of keyId below the minimum this file uses, each with where ("footer" or column paths).
   */
  static Map<String, Set<String>> needs(
      FooterReport report, String keyId, int below, String location, String table) {
    Map<String, Set<String>> uses = new TreeMap<>();
    if (report.footerMode() == FooterReport.FooterMode.PLAINTEXT) {
      return uses;
    }
    report.footerKey().ifPresent(k -> note(k, "footer", keyId, below, uses));
    if (!report.columnsVisible()) {
      // Without the footer key we cannot tell: refusing is the safe answer.
      throw new CliException(
          "cannot see the column keys of file "
              + location
              + " of table "
              + table
              + ": its footer is encrypted and no key service decrypted it",
          null);
    }
    for (ColumnReport column : report.columns()) {
      column.keyMaterial().ifPresent(k -> note(k, column.path(), keyId, below, uses));
    }
    return uses;
  }

  private static void note(
      KeyMaterial k, String where, String keyId, int below, Map<String, Set<String>> uses) {
    if (!keyId.equals(k.masterKeyId())) {
      return;
    }
    if (k.masterKeyVersion().isEmpty()) {
      uses.computeIfAbsent("(version not recorded)", v -> new TreeSet<>()).add(where);
    } else if (k.masterKeyVersion().getAsInt() < below) {
      uses.computeIfAbsent("v" + k.masterKeyVersion().getAsInt(), v -> new TreeSet<>()).add(where);
    }
  }
}
