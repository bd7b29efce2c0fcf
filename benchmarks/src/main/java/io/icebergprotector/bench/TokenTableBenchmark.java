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
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.storage.StorageLevel;

/**
 * A table with 2 tokenized columns ({@code ssn}: {@code fpe(alphabet = digits, keep = '-')}, {@code
 * email}: {@code deterministic}, both PME-encrypted as well) against a plain Iceberg table, in one
 * JVM, on the same data ({@link ProtectorBenchmark#generate}: 10 columns): a write of every row (an
 * overwrite), and a full scan by the clear reader (an aggregate over every column, so both
 * tokenized columns are detokenized), columnar and row by row. (a) and (b) run side by side in each
 * round, in alternating order; times are medians, ratios the medians of the per-round ratios. It
 * prints one table and asserts nothing.
 *
 * <pre>bin/benchmark tokentable --rows 5000000</pre>
 */
public final class TokenTableBenchmark implements AutoCloseable {
  static final String PLAIN = "plain.db.tokbase";
  static final String TOKENIZED = "prot.db.tokens";

  private final ProtectorBenchmark.Options options;
  private final Path work;
  private final SparkSession spark;
  private final Map<String, List<Job[]>> results = new LinkedHashMap<>();
  private final List<String> warnings = new ArrayList<>();
  private ProtectionSpec spec;

  TokenTableBenchmark(ProtectorBenchmark.Options options) throws IOException {
    this.options = options;
    this.work =
        options.dir != null
            ? Files.createDirectories(options.dir)
            : Files.createTempDirectory("protector-tokentable-bench");
    this.spark = ProtectorBenchmark.startSpark(options.master, work);
  }

  public static void main(String[] args) throws Exception {
    for (String a : args) {
      if (a.equals("-h") || a.equals("--help")) {
        System.out.println(
            "usage: bin/benchmark tokentable [--rows N (5000000)] [--reps R (3)] [--warmup W (1)]"
                + " [--partitions P (2)] [--master local[2]] [--dir PATH] [--keep]");
        return;
      }
    }
    ProtectorBenchmark.Options options = ProtectorBenchmark.Options.parse(args);
    try (TokenTableBenchmark bench = new TokenTableBenchmark(options)) {
      bench.run();
    }
  }

  void run() {
    spark.sql("CREATE NAMESPACE IF NOT EXISTS plain.db");
    spark.sql("CREATE NAMESPACE IF NOT EXISTS prot.db");
    for (String table : List.of(PLAIN, TOKENIZED)) {
      spark.sql("DROP TABLE IF EXISTS " + table);
      spark.sql(
          "CREATE TABLE " + table + " (" + ProtectorBenchmark.COLUMNS_DDL + ") USING iceberg");
    }
    spark.sql(
        "CREATE TABLE IF NOT EXISTS prot.db.protected ("
            + ProtectorBenchmark.COLUMNS_DDL
            + ") USING iceberg");
    this.spec = ProtectorBenchmark.loadProtectionSpec(spark);
    ProtectorBenchmark.log("generating %,d rows...", options.rows);
    Dataset<Row> data =
        ProtectorBenchmark.generate(spark, options.rows, options.partitions)
            .persist(StorageLevel.MEMORY_ONLY());
    data.count();

    for (int round = 0; round < options.warmup + options.reps; round++) {
      boolean record = round >= options.warmup;
      ProtectorBenchmark.log(
          record ? "round %d of %d" : "warm-up round %d",
          record ? round - options.warmup + 1 : round + 1,
          options.reps);
      boolean tokenizedFirst = round % 2 == 1;
      pair(
          "write (overwrite)",
          tokenizedFirst,
          record,
          table ->
              () -> {
                try {
                  data.writeTo(table).overwritePartitions();
                } catch (Exception e) {
                  throw new IllegalStateException("Cannot overwrite " + table, e);
                }
                return null;
              });
      for (boolean columnar : new boolean[] {true, false}) {
        spark.conf().set("spark.sql.iceberg.vectorization.enabled", Boolean.toString(columnar));
        pair(
            "full scan (" + (columnar ? "columnar" : "rows") + ")",
            tokenizedFirst,
            record,
            table ->
                () ->
                    String.valueOf(
                        spark
                            .sql("SELECT " + ProtectorBenchmark.AGGREGATE + " FROM " + table)
                            .collectAsList()
                            .get(0)));
      }
      spark.conf().set("spark.sql.iceberg.vectorization.enabled", "true");
    }
    data.unpersist();
    System.out.println();
    System.out.println(report());
  }

  private void pair(
      String name,
      boolean tokenizedFirst,
      boolean record,
      java.util.function.Function<String, Supplier<Object>> operation) {
    Job[] jobs = new Job[2];
    for (int i = 0; i < 2; i++) {
      boolean tokenized = (i == 0) == tokenizedFirst;
      jobs[tokenized ? 1 : 0] =
          ProtectorBenchmark.time(spec, operation.apply(tokenized ? TOKENIZED : PLAIN));
    }
    ProtectorBenchmark.log(
        "  %s: plain %.2fs, tokenized %.2fs", name, jobs[0].seconds(), jobs[1].seconds());
    if (jobs[0].result() != null && !jobs[0].result().equals(jobs[1].result())) {
      warnings.add(name + ": results differ: " + jobs[0].result() + " vs " + jobs[1].result());
    }
    if (record) {
      results.computeIfAbsent(name, k -> new ArrayList<>()).add(jobs);
    }
  }

  String report() {
    StringBuilder sb = new StringBuilder();
    sb.append(
        String.format(
            Locale.ROOT,
            "Token table: %,d rows x 10 columns, (b) with 2 tokenized columns (ssn fpe digits, email"
                + " deterministic; local token mode, PME-encrypted as well) read by a clear reader,"
                + " %s, %d repetitions after %d warm-up round(s), median seconds; Java %s, Spark"
                + " %s%n%n",
            options.rows,
            options.master,
            options.reps,
            options.warmup,
            System.getProperty("java.version"),
            spark.version()));
    sb.append("| operation | (a) plain Iceberg s | (b) tokenized s | x(a) |\n");
    sb.append("|---|---:|---:|---:|\n");
    for (Map.Entry<String, List<Job[]>> entry : results.entrySet()) {
      List<Job> plain = new ArrayList<>();
      List<Job> tokenized = new ArrayList<>();
      for (Job[] pair : entry.getValue()) {
        plain.add(pair[0]);
        tokenized.add(pair[1]);
      }
      sb.append(
          String.format(
              Locale.ROOT,
              "| %s | %.2f | %.2f | %s |%n",
              entry.getKey(),
              ProtectorBenchmark.median(plain),
              ProtectorBenchmark.median(tokenized),
              ProtectorBenchmark.ratio(tokenized, plain)));
    }
    sb.append('\n');
    sb.append("x(a): median over the rounds of (b)/(a) in the same round.\n");
    sb.append(
        warnings.isEmpty()
            ? "Results: the clear reader read the same aggregates from both tables.\n"
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
}
