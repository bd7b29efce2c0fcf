/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.bench;

import io.icebergprotector.bench.ProtectorBenchmark.Job;
import io.icebergprotector.spark.core.ProtectionSpec;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Supplier;
import org.apache.iceberg.Table;
import org.apache.iceberg.spark.Spark3Util;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.storage.StorageLevel;

/**
 * Row-level operations on a protected table against the same operations on a plain Iceberg table,
 * in one JVM, on the same data ({@link ProtectorBenchmark#generate}: 10 columns, 3 protected under
 * 2 keys) and with the same table settings:
 *
 * <ul>
 *   <li>{@code merge-cow}: a MERGE of 1% of the rows (updates of protected and unprotected columns
 *       for 0.9%, inserts for 0.1%) in copy-on-write mode;
 *   <li>{@code merge-mor}: the same MERGE in merge-on-read mode;
 *   <li>{@code delete-mor}: a DELETE of 0.1% of the rows in merge-on-read mode, then a full scan
 *       (an aggregate over every column) that applies the deletes, columnar and row by row;
 *   <li>{@code compact}: {@code rewrite_data_files} (binpack) of a second pair of tables that hold
 *       {@code --small-files} (200) small files of {@code --compact-rows} rows in all (a tenth of
 *       {@code --rows}) into one file.
 * </ul>
 *
 * Before every operation both tables are rolled back to the same base snapshot. (a) and (b) run
 * side by side in each round, in alternating order; times are medians, ratios the medians of the
 * per-round ratios. It prints one table and asserts nothing.
 *
 * <pre>bin/benchmark rowlevel --rows 5000000</pre>
 */
public final class RowLevelBenchmark implements AutoCloseable {
  static final String PLAIN = "plain.db.base";
  static final String PROTECTED = "prot.db.protected";
  static final String PLAIN_SMALL = "plain.db.small";
  static final String PROTECTED_SMALL = "prot.db.small";
  static final String UPDATED_COLUMNS = "salary = s.salary, email = s.email, comment = s.comment";

  private final Options options;
  private final Path work;
  private final SparkSession spark;
  private final Map<String, List<Job[]>> results = new LinkedHashMap<>();
  private final List<String> warnings = new ArrayList<>();
  private ProtectionSpec spec;
  private long plainBase;
  private long protectedBase;
  private long plainSmallBase;
  private long protectedSmallBase;

  RowLevelBenchmark(Options options) throws IOException {
    this.options = options;
    this.work =
        options.dir != null
            ? Files.createDirectories(options.dir)
            : Files.createTempDirectory("protector-rowlevel-bench");
    this.spark = ProtectorBenchmark.startSpark(options.master, work);
  }

  public static void main(String[] args) throws Exception {
    Options options = Options.parse(args);
    try (RowLevelBenchmark bench = new RowLevelBenchmark(options)) {
      bench.run();
    }
  }

  void run() throws Exception {
    spark.sql("CREATE NAMESPACE IF NOT EXISTS plain.db");
    spark.sql("CREATE NAMESPACE IF NOT EXISTS prot.db");
    String properties =
        "'format-version' = '"
            + options.formatVersion
            + "',"
            + " 'write.delete.mode' = 'merge-on-read', 'write.update.mode' = 'merge-on-read'";
    for (String table : List.of(PLAIN, PROTECTED)) {
      spark.sql("DROP TABLE IF EXISTS " + table);
      spark.sql(
          "CREATE TABLE "
              + table
              + " ("
              + ProtectorBenchmark.COLUMNS_DDL
              + ") USING iceberg"
              + " TBLPROPERTIES ("
              + properties
              + ")");
    }
    this.spec = ProtectorBenchmark.loadProtectionSpec(spark);

    ProtectorBenchmark.log("generating and writing %,d rows to both tables...", options.rows);
    Dataset<Row> data =
        ProtectorBenchmark.generate(spark, options.rows, options.partitions)
            .persist(StorageLevel.MEMORY_ONLY());
    data.writeTo(PLAIN).append();
    data.writeTo(PROTECTED).append();
    this.plainBase = iceberg(PLAIN).currentSnapshot().snapshotId();
    this.protectedBase = iceberg(PROTECTED).currentSnapshot().snapshotId();
    // the MERGE source: 0.9% of the rows with new values, and 0.1% new rows
    data.where("pmod(hash(id, 97), 1000) < 9")
        .selectExpr(
            "id",
            "qty",
            "score",
            "CAST(salary + 1 AS DECIMAL(12,2)) AS salary",
            "created",
            "updated",
            "name",
            "concat(comment, ' (changed)') AS comment",
            "ssn",
            "concat('changed.', email) AS email")
        .union(
            ProtectorBenchmark.generate(spark, options.rows + options.rows / 1000, 1)
                .where("id >= " + options.rows))
        .persist(StorageLevel.MEMORY_ONLY())
        .createOrReplaceTempView("changes");
    long changes = spark.table("changes").count();
    data.unpersist();
    ProtectorBenchmark.log("MERGE source: %,d rows", changes);
    if (options.workloads.contains("compact")) {
      writeSmallFiles(properties);
    }

    for (int round = 0; round < options.warmup + options.reps; round++) {
      boolean record = round >= options.warmup;
      ProtectorBenchmark.log(
          record ? "round %d of %d" : "warm-up round %d",
          record ? round - options.warmup + 1 : round + 1,
          options.reps);
      boolean protectedFirst = round % 2 == 1;
      for (String workload : options.workloads) {
        runWorkload(workload, protectedFirst, record);
      }
    }
    System.out.println();
    System.out.println(report(changes));
  }

  /** The tables of the compaction: the same rows in {@code --small-files} files each. */
  private void writeSmallFiles(String properties) throws Exception {
    ProtectorBenchmark.log(
        "writing %,d rows as %d small files to both compaction tables...",
        options.compactRows(), options.smallFiles);
    // one task per file: no shuffle before the write, and one Spark partition per file
    Dataset<Row> small =
        ProtectorBenchmark.generate(spark, options.compactRows(), options.smallFiles)
            .persist(StorageLevel.MEMORY_ONLY());
    for (String table : List.of(PLAIN_SMALL, PROTECTED_SMALL)) {
      spark.sql("DROP TABLE IF EXISTS " + table);
      spark.sql(
          "CREATE TABLE "
              + table
              + " ("
              + ProtectorBenchmark.COLUMNS_DDL
              + ") USING iceberg"
              + " TBLPROPERTIES ("
              + properties
              + ", 'write.distribution-mode' = 'none')");
      small.writeTo(table).append();
      int files = countFiles(table);
      if (files != options.smallFiles) {
        warnings.add(table + " holds " + files + " data files, not " + options.smallFiles);
      }
    }
    small.unpersist();
    this.plainSmallBase = iceberg(PLAIN_SMALL).currentSnapshot().snapshotId();
    this.protectedSmallBase = iceberg(PROTECTED_SMALL).currentSnapshot().snapshotId();
  }

  private int countFiles(String table) {
    int files = 0;
    for (Object ignored : iceberg(table).currentSnapshot().addedDataFiles(iceberg(table).io())) {
      files++;
    }
    return files;
  }

  private void runWorkload(String workload, boolean protectedFirst, boolean record) {
    if (record) {
      results.computeIfAbsent(workload, k -> new ArrayList<>()); // the operation's row first
    }
    Job[] pair = new Job[2];
    for (int i = 0; i < 2; i++) {
      boolean prot = (i == 0) == protectedFirst;
      boolean compact = workload.equals("compact");
      String table = compact ? (prot ? PROTECTED_SMALL : PLAIN_SMALL) : prot ? PROTECTED : PLAIN;
      long base =
          compact ? (prot ? protectedSmallBase : plainSmallBase) : prot ? protectedBase : plainBase;
      reset(table, base);
      pair[prot ? 1 : 0] = job(() -> operation(workload, table));
      if (workload.equals("delete-mor")) {
        // reads that apply the deletes just written, in both reader models
        recordScan("scan after delete-mor (columnar)", prot, true, record);
        recordScan("scan after delete-mor (rows)", prot, false, record);
      }
    }
    ProtectorBenchmark.log(
        "  %s: plain %.2fs, protected %.2fs (%d key-service calls)",
        workload, pair[0].seconds(), pair[1].seconds(), pair[1].calls());
    checkSameResult(workload);
    if (record) {
      results.get(workload).add(pair);
    }
  }

  private final Map<String, Job[]> pendingScans = new LinkedHashMap<>();

  private void recordScan(String name, boolean prot, boolean columnar, boolean record) {
    spark.conf().set("spark.sql.iceberg.vectorization.enabled", Boolean.toString(columnar));
    try {
      Job scan =
          job(
              () ->
                  spark
                      .sql(
                          "SELECT "
                              + ProtectorBenchmark.AGGREGATE
                              + " FROM "
                              + (prot ? PROTECTED : PLAIN))
                      .collectAsList()
                      .get(0));
      Job[] pair = pendingScans.computeIfAbsent(name, k -> new Job[2]);
      pair[prot ? 1 : 0] = scan;
      if (pair[0] != null && pair[1] != null) {
        if (!String.valueOf(pair[0].result()).equals(String.valueOf(pair[1].result()))) {
          warnings.add(
              name + ": aggregates differ: " + pair[0].result() + " vs " + pair[1].result());
        }
        if (record) {
          results.computeIfAbsent(name, k -> new ArrayList<>()).add(pair);
        }
        pendingScans.remove(name);
      }
    } finally {
      spark.conf().set("spark.sql.iceberg.vectorization.enabled", "true");
    }
  }

  private void operation(String workload, String table) {
    switch (workload) {
      case "merge-cow":
      case "merge-mor":
        String mode = workload.equals("merge-cow") ? "copy-on-write" : "merge-on-read";
        spark.sql(
            "ALTER TABLE " + table + " SET TBLPROPERTIES ('write.merge.mode' = '" + mode + "')");
        spark.sql(
            "MERGE INTO "
                + table
                + " t USING changes s ON t.id = s.id"
                + " WHEN MATCHED THEN UPDATE SET "
                + UPDATED_COLUMNS
                + " WHEN NOT MATCHED THEN INSERT *");
        break;
      case "delete-mor":
        spark.sql("DELETE FROM " + table + " WHERE pmod(id, 1000) = 7");
        break;
      case "compact":
        {
          String catalog = table.substring(0, table.indexOf('.'));
          String name = table.substring(catalog.length() + 1);
          Row result =
              spark
                  .sql(
                      "CALL "
                          + catalog
                          + ".system.rewrite_data_files(table => '"
                          + name
                          + "',"
                          + " options => map('min-input-files', '2'))")
                  .collectAsList()
                  .get(0);
          if (result.getInt(0) != options.smallFiles) {
            warnings.add(
                table
                    + ": compaction rewrote "
                    + result.getInt(0)
                    + " files, not "
                    + options.smallFiles);
          }
          break;
        }
      default:
        throw new IllegalArgumentException("Unknown workload: " + workload);
    }
  }

  /** Both tables hold the same rows after the same operation. */
  private void checkSameResult(String workload) {
    String query = "SELECT " + ProtectorBenchmark.AGGREGATE + " FROM ";
    boolean compact = workload.equals("compact");
    String plain =
        String.valueOf(spark.sql(query + (compact ? PLAIN_SMALL : PLAIN)).collectAsList().get(0));
    String prot =
        String.valueOf(
            spark.sql(query + (compact ? PROTECTED_SMALL : PROTECTED)).collectAsList().get(0));
    if (!plain.equals(prot)) {
      warnings.add(workload + ": tables differ after the operation: " + plain + " vs " + prot);
    }
  }

  private void reset(String table, long snapshotId) {
    Table iceberg = iceberg(table);
    if (iceberg.currentSnapshot().snapshotId() != snapshotId) {
      iceberg.manageSnapshots().rollbackTo(snapshotId).commit();
    }
  }

  private Table iceberg(String table) {
    try {
      return Spark3Util.loadIcebergTable(spark, table);
    } catch (Exception e) {
      throw new IllegalStateException("Cannot load " + table, e);
    }
  }

  private Job job(Supplier<Object> action) {
    return ProtectorBenchmark.time(spec, action);
  }

  private Job job(Runnable action) {
    return ProtectorBenchmark.time(spec, action);
  }

  String report(long changes) {
    StringBuilder sb = new StringBuilder();
    sb.append(
        String.format(
            Locale.ROOT,
            "Row-level operations: %,d rows x 10 columns (3 protected under 2 keys + footer key),"
                + " format v%d, MERGE source %,d rows, compaction of %d files of %,d rows in all,"
                + " %s, %d repetitions after %d warm-up round(s), median seconds; Java %s,"
                + " Spark %s%n%n",
            options.rows,
            options.formatVersion,
            changes,
            options.smallFiles,
            options.compactRows(),
            options.master,
            options.reps,
            options.warmup,
            System.getProperty("java.version"),
            spark.version()));
    sb.append(
        "| workload | (a) plain Iceberg s | (b) protected s | x(a) | key-service calls (b) |\n");
    sb.append("|---|---:|---:|---:|---:|\n");
    for (Map.Entry<String, List<Job[]>> entry : results.entrySet()) {
      List<Job> plain = new ArrayList<>();
      List<Job> prot = new ArrayList<>();
      for (Job[] pair : entry.getValue()) {
        plain.add(pair[0]);
        prot.add(pair[1]);
      }
      sb.append(
          String.format(
              Locale.ROOT,
              "| %s | %.2f | %.2f | %s | %d |%n",
              entry.getKey(),
              ProtectorBenchmark.median(plain),
              ProtectorBenchmark.median(prot),
              ProtectorBenchmark.ratio(prot, plain),
              prot.get(prot.size() - 1).calls()));
    }
    sb.append('\n');
    sb.append(
        "x(a): median over the rounds of (b)/(a) in the same round; target <= 1.10."
            + " Both tables are rolled back to the same base snapshot before each operation.\n");
    sb.append(
        warnings.isEmpty()
            ? "Results: both tables held the same rows after every operation.\n"
            : "WARNING: " + String.join("; ", warnings) + "\n");
    return sb.toString();
  }

  @Override
  public void close() {
    spark.stop();
    if (options.dir == null && !options.keep) {
      ProtectorBenchmark.deleteRecursively(work);
    } else {
      ProtectorBenchmark.log("kept %s", work);
    }
  }

  /** Command-line options: those of {@link ProtectorBenchmark}, and the workloads to run. */
  static final class Options extends ProtectorBenchmark.Options {
    static final List<String> WORKLOADS =
        List.of("merge-cow", "merge-mor", "delete-mor", "compact");

    int formatVersion = 2;
    List<String> workloads = WORKLOADS;
    int smallFiles = 200;
    long compactRows = -1;

    /** Rows of the compaction tables: {@code --compact-rows}, or a tenth of {@code --rows}. */
    long compactRows() {
      return compactRows > 0 ? compactRows : Math.max(rows / 10, smallFiles);
    }

    static Options parse(String[] args) {
      Options o = new Options();
      for (int i = 0; i < args.length; i++) {
        int next = o.parseCommon(args, i);
        if (next >= 0) {
          i = next;
        } else if (args[i].equals("--format-version")) {
          o.formatVersion = Integer.parseInt(value(args, ++i, args[i - 1]));
        } else if (args[i].equals("--small-files")) {
          o.smallFiles = Integer.parseInt(value(args, ++i, args[i - 1]));
        } else if (args[i].equals("--compact-rows")) {
          o.compactRows = Long.parseLong(value(args, ++i, args[i - 1]));
        } else if (args[i].equals("--workloads")) {
          o.workloads = List.of(value(args, ++i, args[i - 1]).split(","));
        } else if (args[i].equals("-h") || args[i].equals("--help")) {
          System.out.println(
              "usage: bin/benchmark rowlevel [--rows N (5000000)] [--reps R (3)] [--warmup W (1)]"
                  + " [--partitions P (2)] [--format-version 2|3] [--master local[2]]"
                  + " [--workloads merge-cow,merge-mor,delete-mor,compact] [--small-files N (200)]"
                  + " [--compact-rows N (rows/10)] [--dir PATH] [--keep]");
          System.exit(0);
        } else {
          throw new IllegalArgumentException("Unknown option: " + args[i] + " (try --help)");
        }
      }
      o.checkCommon();
      if (!WORKLOADS.containsAll(o.workloads)) {
        throw new IllegalArgumentException(
            "Unknown workload in " + o.workloads + ": choose from " + WORKLOADS);
      }
      return o;
    }
  }
}
