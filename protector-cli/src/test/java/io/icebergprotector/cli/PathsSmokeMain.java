/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.cli;

import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * The application {@link PathsWithoutIcebergIT} submits to a JVM without Iceberg: only Spark API
 * here, configured by spark-submit's {@code --conf} options as the "Without Iceberg" section of
 * docs/spark/paths.md shows. As {@code etl} it writes canary rows under the protected prefix, then
 * reads them as alice (clear), bob (masked) and carol (no role), and carol tries to write there
 * too. It prints what each principal's view is, never a value of a protected column; a failure
 * exits non-zero.
 *
 * <p>Arguments: the protected directory to write, and the expected row count.
 */
public final class PathsSmokeMain {
  private PathsSmokeMain() {}

  static String ssn(long id) {
    return String.format("PWI-SSN-%04d", id);
  }

  static String email(long id) {
    return String.format("pwi%04d@canary.test", id);
  }

  static String name(long id) {
    return String.format("PWI-NAME-%04d", id);
  }

  public static void main(String[] args) throws Exception {
    String dir = args[0];
    long rows = Long.parseLong(args[1]);
    SparkSession spark = SparkSession.builder().getOrCreate();
    try {
      List<String> report = new ArrayList<>();
      report.add(
          "iceberg=" + (present("org.apache.iceberg.spark.SparkCatalog") ? "present" : "absent"));

      spark.conf().set("spark.protector.user", "etl");
      spark
          .sql(
              "SELECT id,"
                  + " format_string('PWI-NAME-%04d', id) AS name,"
                  + " format_string('PWI-SSN-%04d', id) AS ssn,"
                  + " format_string('pwi%04d@canary.test', id) AS email"
                  + " FROM range(1, "
                  + (rows + 1)
                  + ", 1, 2)")
          .write()
          .option("compression", "none")
          .parquet(dir);
      report.add("etl-wrote=" + spark.read().parquet(dir).count());

      for (String user : List.of("alice", "bob", "carol")) {
        spark.conf().set("spark.protector.user", user);
        List<Row> read = spark.read().parquet(dir).orderBy("id").collectAsList();
        report.add(user + "=" + view(read));
      }

      // carol is no writer: refused before anything is written
      spark.conf().set("spark.protector.user", "carol");
      try {
        spark.range(1).selectExpr("id", "'x' AS ssn").write().mode("append").parquet(dir);
        report.add("carol-write=accepted");
      } catch (RuntimeException e) {
        report.add(
            "carol-write=refused("
                + e.getClass().getSimpleName()
                + ": "
                + (e.getMessage() != null && e.getMessage().contains("may not write")
                    ? "may not write"
                    : "?")
                + ")");
      }

      String from =
          Class.forName(
                  "io.icebergprotector.spark.core.ProtectorContext",
                  false,
                  Thread.currentThread().getContextClassLoader())
              .getProtectionDomain()
              .getCodeSource()
              .getLocation()
              .toString();
      report.add("from=" + from);
      System.out.println("PATHS-SMOKE " + String.join(" ", report));
    } finally {
      spark.stop();
    }
  }

  /** How a principal sees ssn and email in every row: clear, masked, hash, null, or mixed. */
  private static String view(List<Row> rows) {
    if (rows.isEmpty()) {
      return "no-rows";
    }
    String ssn = null;
    String email = null;
    for (Row r : rows) {
      long id = r.getLong(r.fieldIndex("id"));
      if (!name(id).equals(r.getString(r.fieldIndex("name")))) {
        return "wrong-name";
      }
      ssn = same(ssn, classify(r.getString(r.fieldIndex("ssn")), ssn(id)));
      email = same(email, classify(r.getString(r.fieldIndex("email")), email(id)));
    }
    return "rows:" + rows.size() + ",ssn:" + ssn + ",email:" + email;
  }

  private static String classify(String value, String clear) {
    if (value == null) {
      return "null";
    }
    if (value.equals(clear)) {
      return "clear";
    }
    if (value.matches("[0-9a-f]{64}")) {
      return "hash";
    }
    String last4 = clear.substring(clear.length() - 4);
    if (value.length() == clear.length()
        && value.endsWith(last4)
        && value.substring(0, value.length() - 4).chars().allMatch(c -> c == '*')) {
      return "partial";
    }
    return "other";
  }

  private static String same(String before, String now) {
    return before == null || before.equals(now) ? now : "mixed";
  }

  private static boolean present(String className) {
    try {
      Class.forName(className, false, Thread.currentThread().getContextClassLoader());
      return true;
    } catch (ClassNotFoundException e) {
      return false;
    }
  }
}
