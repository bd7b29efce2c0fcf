/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.cli;

import static io.icebergprotector.policy.Preconditions.checkArgument;

import java.io.PrintWriter;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/** Runs statements on the workspace's local Spark and prints each result as a table. */
final class SqlRunner {
  private SqlRunner() {}

  static int run(
      Workspace ws,
      CatalogOptions catalog,
      String user,
      String groups,
      List<String> statements,
      int maxRows,
      PrintWriter out,
      PrintWriter err) {
    checkArgument(
        !(catalog.localKeystore()
            && (!Files.exists(ws.passphraseFile) || !Files.exists(ws.keystore))),
        "No local keystore at %s (with its passphrase in %s); create "
            + "them with 'bin/protector keys init --keystore %s "
            + "--passphrase-file %s --policy %s', or run 'bin/protector "
            + "demo' for the demo's",
        ws.keystore,
        ws.passphraseFile,
        ws.keystore,
        ws.passphraseFile,
        ws.policy);
    String warning = catalog.localKeystore() ? ws.passphrasePermissionWarning() : null;
    if (warning != null) {
      err.println(warning);
    }
    err.println(
        "starting local Spark as "
            + user
            + (groups == null || groups.isBlank() ? "" : " [" + groups + "]")
            + ", catalog "
            + catalog.catalog
            + (catalog.server.given() ? ", " + catalog.server.describe() : "")
            + "...");
    err.flush();
    SparkSession spark =
        LocalSpark.start(LocalSpark.settings(ws, user, groups, catalog), "iceberg-protector sql");
    try {
      for (String statement : statements) {
        if (statements.size() > 1) {
          out.println("> " + oneLine(statement));
        }
        print(spark, statement, maxRows, out);
        out.flush();
      }
      return ProtectorCli.OK;
    } catch (Exception e) { // Spark's AnalysisException is a checked exception
      throw SparkErrors.wrap(e);
    } finally {
      spark.stop();
    }
  }

  static void print(SparkSession spark, String statement, int maxRows, PrintWriter out) {
    Dataset<Row> df = spark.sql(statement);
    String[] columns = df.columns();
    if (columns.length == 0) {
      out.println("OK");
      return;
    }
    List<Row> rows = df.limit(maxRows + 1).collectAsList();
    List<List<String>> cells = new ArrayList<>();
    for (Row row : rows.subList(0, Math.min(rows.size(), maxRows))) {
      List<String> line = new ArrayList<>(columns.length);
      for (int i = 0; i < columns.length; i++) {
        line.add(Values.render(row.get(i)));
      }
      cells.add(line);
    }
    out.print(TextTable.boxed(Arrays.asList(columns), cells));
    if (rows.size() > maxRows) {
      out.println("(first " + maxRows + " rows; --max-rows shows more)");
    } else {
      out.println("(" + rows.size() + (rows.size() == 1 ? " row)" : " rows)"));
    }
  }

  private static String oneLine(String statement) {
    String s = statement.replaceAll("\\s+", " ");
    return s.length() > 100 ? s.substring(0, 97) + "..." : s;
  }
}
