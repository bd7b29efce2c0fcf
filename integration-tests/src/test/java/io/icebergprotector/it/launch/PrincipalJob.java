/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.it.launch;

import com.github.benmanes.caffeine.cache.Cache;
import io.icebergprotector.kms.KeyScope;
import io.icebergprotector.spark.ProtectingSparkCatalog;
import java.lang.reflect.Field;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * One principal's Spark application, in a JVM of its own, against the shared key server: the
 * deployment docs/security/trust-boundary.md supports for several principals on one machine or
 * cluster. It knows only its own token file. Prints one {@code PRINCIPAL-JOB} line describing what
 * it saw, never a value of a protected column; any failure exits non-zero.
 *
 * <p>Arguments: {@code write|read}, warehouse URI, key server URL, token file, server certificate.
 * {@code write} creates {@value #TABLE} with {@link #ROWS} canary rows first.
 */
public final class PrincipalJob {
  public static final String TABLE = "prot.db.people";
  public static final int ROWS = 12;

  private PrincipalJob() {}

  public static String ssn(long id) {
    return String.format("SSN-SJP-%04d", id);
  }

  public static long salary(long id) {
    return 8_100_000_000_000L + id;
  }

  public static String name(long id) {
    return String.format("NAME-SJP-%04d", id);
  }

  public static void main(String[] args) throws Exception {
    String mode = args[0];
    String c = "spark.sql.catalog.prot";
    SparkSession spark =
        SparkSession.builder()
            .master("local[2]")
            .appName("principal-job-" + mode)
            .config("spark.ui.enabled", "false")
            .config("spark.driver.host", "127.0.0.1")
            .config("spark.driver.bindAddress", "127.0.0.1")
            .config("spark.sql.shuffle.partitions", "2")
            .config(
                "spark.sql.extensions",
                "org.apache.iceberg.spark.extensions.IcebergSparkSessionExtensions,"
                    + "io.icebergprotector.spark.ProtectorSparkSessionExtensions")
            .config(c, ProtectingSparkCatalog.class.getName())
            .config(c + ".type", "hadoop")
            .config(c + ".warehouse", args[1])
            .config(c + ".protector.kms.type", "remote")
            .config(c + ".protector.kms.url", args[2])
            .config(c + ".protector.token-file", args[3])
            .config(c + ".protector.kms.trust-store", args[4])
            .getOrCreate();
    spark.sparkContext().setLogLevel("WARN");
    try {
      List<String> report = new ArrayList<>();
      ProtectingSparkCatalog catalog =
          (ProtectingSparkCatalog) spark.sessionState().catalogManager().catalog("prot");
      report.add("principal=" + catalog.principal().user());
      if (mode.equals("write")) {
        spark.sql("CREATE NAMESPACE IF NOT EXISTS prot.db");
        spark.sql(
            "CREATE TABLE "
                + TABLE
                + " (id BIGINT, name STRING, ssn STRING, salary BIGINT)"
                + " USING iceberg TBLPROPERTIES ('write.parquet.compression-codec'='uncompressed')");
        spark.sql(
            "INSERT INTO "
                + TABLE
                + " SELECT id, format_string('NAME-SJP-%04d', id),"
                + " format_string('SSN-SJP-%04d', id), 8100000000000 + id FROM range(1, "
                + (ROWS + 1)
                + ")");
        report.add("wrote=" + ROWS);
      }
      List<Row> rows =
          spark.sql("SELECT id, name, ssn, salary FROM " + TABLE + " ORDER BY id").collectAsList();
      report.add("rows=" + rows.size());
      report.add("ssn=" + view(rows, 2));
      report.add("salary=" + view(rows, 3));
      // What the notebook user tried: the key services this JVM registered, by reflection.
      report.add("registered=" + registeredPrincipals());
      System.out.println("PRINCIPAL-JOB " + String.join(" ", report));
    } finally {
      spark.stop();
    }
  }

  /** clear (every row its own value), null (every row NULL), or what else it is. */
  private static String view(List<Row> rows, int column) {
    String seen = null;
    for (Row r : rows) {
      long id = r.getLong(0);
      if (!name(id).equals(r.getString(1))) {
        return "wrong-rows";
      }
      Object value = r.get(column);
      Object clear = column == 2 ? ssn(id) : (Object) salary(id);
      String now = value == null ? "null" : value.equals(clear) ? "clear" : "other";
      seen = seen == null || seen.equals(now) ? now : "mixed";
    }
    return seen;
  }

  /** The principals of every key scope registered in this JVM's KeyServiceRegistry. */
  private static String registeredPrincipals() throws Exception {
    Class<?> registry = Class.forName("io.icebergprotector.spark.crypto.KeyServiceRegistry");
    Field byHandle = registry.getDeclaredField("BY_HANDLE");
    byHandle.setAccessible(true);
    Cache<?, ?> cache = (Cache<?, ?>) byHandle.get(null);
    TreeSet<String> principals = new TreeSet<>();
    for (Object registered : cache.asMap().values()) {
      Field scope = registered.getClass().getDeclaredField("scope");
      scope.setAccessible(true);
      principals.add(((KeyScope) scope.get(registered)).principal().user());
    }
    return principals.toString().replace(" ", "");
  }
}
