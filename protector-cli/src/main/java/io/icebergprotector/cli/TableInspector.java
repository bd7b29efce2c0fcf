/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.cli;

import io.icebergprotector.kms.KmsSettings;
import io.icebergprotector.kms.wire.JsonCodec;
import io.icebergprotector.policy.Policy;
import io.icebergprotector.policy.Principal;
import io.icebergprotector.policy.TablePolicy;
import io.icebergprotector.spark.binding.BindingBoundary;
import io.icebergprotector.spark.core.ProtectionSpec;
import io.icebergprotector.spark.core.ProtectorContext;
import io.icebergprotector.spark.crypto.FileBinding;
import io.icebergprotector.spark.crypto.ProtectorCrypto;
import io.icebergprotector.spark.inspect.ColumnReport;
import io.icebergprotector.spark.inspect.FooterReport;
import io.icebergprotector.spark.inspect.KeyMaterial;
import io.icebergprotector.spark.inspect.ParquetFooterInspector;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.spark.Spark3Util;
import org.apache.spark.sql.SparkSession;

/**
 * {@code inspect --table}: the footers of every live data file of a table, read through the table's
 * own FileIO (any storage the catalog reaches), grouped by footer mode, algorithm and master-key
 * versions. Plaintext files in a table the policy protects fail the check (exit 1); they are told
 * apart by the protector's binding boundary: committed before it (written before protection) or
 * after (added without the protector). With the catalog's keys (the demo's keystore or the key
 * server) encrypted footers are decrypted to show the column keys; otherwise the group shows only
 * the footer key.
 */
final class TableInspector {
  private TableInspector() {}

  static int run(
      Workspace ws,
      CatalogOptions catalog,
      String user,
      String tableName,
      boolean json,
      PrintWriter out,
      PrintWriter err) {
    Map<String, String> settings = LocalSpark.settings(ws, user, null, catalog);
    String policyFile =
        settings.get(
            "spark.sql.catalog."
                + catalog.catalog
                + "."
                + io.icebergprotector.spark.core.CatalogOptions.POLICY.key());
    Policy policy = policyFile == null ? null : Policy.load(policyFile);
    TablePolicy entry = policy == null ? null : policy.table(tableName).orElse(null);
    boolean protectedTable = entry != null;
    // With the catalog's keys (the demo's keystore or --url), encrypted footers are decrypted so
    // the column keys' versions show; a footer key is released to every reader of the table.
    KmsSettings kms =
        !protectedTable
            ? null
            : catalog.server.given()
                ? KeyBackendOptions.settings(catalog.server)
                : catalog.localKeystore() ? ws.kms() : null;
    ProtectionSpec spec =
        kms == null
            ? null
            : ProtectionSpec.resolve(
                ProtectorContext.of(policy, kms), entry, new Schema(), Principal.user(user));
    err.println(
        "starting local Spark to read the files of " + catalog.catalog + "." + tableName + "...");
    err.flush();
    SparkSession spark = LocalSpark.start(settings, "iceberg-protector inspect");
    Map<String, List<String>> groups = new TreeMap<>();
    List<String> plaintext = new ArrayList<>();
    List<String> beforeProtection = new ArrayList<>();
    int files = 0;
    try {
      Table table = Spark3Util.loadIcebergTable(spark, catalog.catalog + "." + tableName);
      // files committed before this sequence number predate the protector's file binding
      String boundary = table.properties().get(BindingBoundary.PROPERTY);
      long boundFrom = boundary == null ? Long.MAX_VALUE : Long.parseLong(boundary.trim());
      try (CloseableIterable<FileScanTask> tasks = table.newScan().planFiles()) {
        for (FileScanTask task : tasks) {
          String location = task.file().location();
          FooterReport report = footer(table, location, spec);
          files++;
          groups.computeIfAbsent(group(report), g -> new ArrayList<>()).add(location);
          if (report.footerMode() == FooterReport.FooterMode.PLAINTEXT) {
            Long sequence = task.file().fileSequenceNumber();
            (sequence != null && sequence < boundFrom ? beforeProtection : plaintext).add(location);
          }
        }
      }
    } catch (Exception e) { // Spark's parse and analysis exceptions are checked
      throw SparkErrors.wrap(e);
    } finally {
      spark.stop();
    }
    boolean failed = protectedTable && !(plaintext.isEmpty() && beforeProtection.isEmpty());
    if (json) {
      List<Object> groupList = new ArrayList<>();
      groups.forEach(
          (g, locations) ->
              groupList.add(
                  JsonCodec.object("group", g, "files", locations.size(), "locations", locations)));
      OutputFormat.print(
          out,
          JsonCodec.object(
              "table",
              catalog.catalog + "." + tableName,
              "protected",
              protectedTable,
              "files",
              files,
              "groups",
              groupList,
              "plaintext_files",
              plaintext,
              "written_before_protection",
              beforeProtection,
              "ok",
              !failed));
      return failed ? ProtectorCli.FAILED : ProtectorCli.OK;
    }
    out.println(
        "table "
            + catalog.catalog
            + "."
            + tableName
            + ": "
            + files
            + (files == 1 ? " data file" : " data files")
            + (protectedTable ? " (protected by " + policyFile + ")" : " (not in the policy)"));
    List<List<String>> rows = new ArrayList<>();
    groups.forEach((g, locations) -> rows.add(List.of(String.valueOf(locations.size()), g)));
    if (!rows.isEmpty()) {
      out.print(
          TextTable.plain(List.of("FILES", "FOOTER, ALGORITHM, MASTER KEYS"), rows).indent(2));
    }
    if (!beforeProtection.isEmpty()) {
      out.println("plaintext files written before protection (" + beforeProtection.size() + "):");
      beforeProtection.forEach(p -> out.println("  " + p));
    }
    if (!plaintext.isEmpty()) {
      out.println(
          (protectedTable ? "PLAINTEXT files in a protected table" : "plaintext files")
              + ", added"
              + " without the protector ("
              + plaintext.size()
              + "):");
      plaintext.forEach(p -> out.println("  " + p));
    }
    if (failed) {
      out.println(
          "fix: bin/protector rewrite --user <writer> --table "
              + tableName
              + " (rewrites plaintext files encrypted)");
    }
    out.flush();
    return failed ? ProtectorCli.FAILED : ProtectorCli.OK;
  }

  /**
   * The footer of one file of a table, read through the table's FileIO; with a spec (the catalog's
   * keys) an encrypted footer is decrypted so that the column keys show.
   */
  static FooterReport footer(Table table, String location, ProtectionSpec spec) {
    InputFile input = table.io().newInputFile(location);
    FooterReport report = ParquetFooterInspector.inspect(input);
    if (spec != null && report.footerMode() == FooterReport.FooterMode.ENCRYPTED) {
      // a bound file is checked against its table, whether it stores its binding or not
      FileBinding binding = report.bound() ? FileBinding.of(table.uuid()) : null;
      report =
          ParquetFooterInspector.inspect(
              input, ProtectorCrypto.fileDecryption(spec, location, binding));
    }
    return report;
  }

  /** e.g. "signed plaintext footer, AES_GCM_V1, binding stored, footer v1, pii v2, fin v1". */
  static String group(FooterReport report) {
    if (report.footerMode() == FooterReport.FooterMode.PLAINTEXT) {
      return "plaintext (not encrypted)";
    }
    StringBuilder sb =
        new StringBuilder(
            report.footerMode() == FooterReport.FooterMode.ENCRYPTED
                ? "encrypted footer"
                : "signed plaintext footer");
    sb.append(", ").append(report.algorithm());
    // which PME readers can open it: a stored binding needs no reader-supplied AAD prefix
    if (report.aadPrefixRequired()) {
      sb.append(", binding not stored (an older file: rewrite_protected stores it)");
    } else if (report.storedAadPrefix().isPresent()) {
      sb.append(", binding stored");
    }
    report.footerKey().ifPresent(k -> sb.append(", footer ").append(version(k)));
    if (report.columnsVisible()) {
      TreeSet<String> keys = new TreeSet<>();
      for (ColumnReport c : report.columns()) {
        c.keyMaterial().ifPresent(k -> keys.add(version(k)));
      }
      if (!keys.isEmpty()) {
        sb.append(", ").append(String.join(", ", keys));
      }
    } else {
      sb.append(" (column keys hidden by the encrypted footer)");
    }
    return sb.toString();
  }

  /** "pii v2" (or "pii" when the wrapped key does not say its version). */
  static String version(KeyMaterial k) {
    return k.masterKeyId()
        + (k.masterKeyVersion().isPresent() ? " v" + k.masterKeyVersion().getAsInt() : "");
  }
}
