/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.it.launch;

import io.icebergprotector.it.harness.SqlMetrics;
import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.spark.Success$;
import org.apache.spark.scheduler.SparkListener;
import org.apache.spark.scheduler.SparkListenerExecutorAdded;
import org.apache.spark.scheduler.SparkListenerTaskEnd;
import org.apache.spark.scheduler.SparkListenerTaskStart;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * One principal's Spark application on a standalone cluster: the driver runs in this JVM, the
 * executors in JVMs that the cluster's workers start. All Spark settings (master, catalog, token
 * variable) come from a properties file; the token reaches the executors only through {@code
 * spark.executorEnv.*}. Prints one {@code CLUSTER-JOB} line; never a value of a protected column.
 *
 * <p>Arguments: {@code write|read}, the properties file. {@code write} creates {@value #TABLE} and
 * inserts {@link #ROWS} rows in {@link #PARTITIONS} tasks, killing one executor (SIGKILL) while the
 * insert's tasks run; Spark must retry its tasks elsewhere.
 */
public final class ClusterJob {
  public static final String TABLE = "prot.db.people";
  public static final int ROWS = 200_000;
  public static final int PARTITIONS = 8;

  private ClusterJob() {}

  public static String ssn(long id) {
    return String.format("SSN-CLU-%06d", id);
  }

  public static long salary(long id) {
    return 8_300_000_000_000L + id;
  }

  public static String name(long id) {
    return String.format("NAME-CLU-%06d", id);
  }

  public static void main(String[] args) throws Exception {
    String mode = args[0];
    Properties conf = new Properties();
    try (Reader in = Files.newBufferedReader(Path.of(args[1]), StandardCharsets.UTF_8)) {
      conf.load(in);
    }
    SparkSession.Builder builder = SparkSession.builder().appName("cluster-job-" + mode);
    conf.stringPropertyNames().forEach(k -> builder.config(k, conf.getProperty(k)));
    SparkSession spark = builder.getOrCreate();
    spark.sparkContext().setLogLevel("WARN");
    Set<String> executors = ConcurrentHashMap.newKeySet();
    spark
        .sparkContext()
        .addSparkListener(
            new SparkListener() {
              @Override
              public void onExecutorAdded(SparkListenerExecutorAdded added) {
                executors.add(added.executorId());
              }
            });
    try {
      List<String> report = new ArrayList<>();
      report.add("mode=" + mode);
      if (mode.equals("write")) {
        write(spark, report);
      } else {
        read(spark, report);
      }
      report.add("executors=" + executors.size());
      System.out.println("CLUSTER-JOB " + String.join(" ", report));
    } finally {
      spark.stop();
    }
  }

  private static void write(SparkSession spark, List<String> report) throws Exception {
    spark.sql("CREATE NAMESPACE IF NOT EXISTS prot.db");
    spark.sql(
        "CREATE TABLE "
            + TABLE
            + " (id BIGINT, name STRING, ssn STRING, salary BIGINT) USING iceberg"
            + " TBLPROPERTIES ('write.parquet.compression-codec'='uncompressed',"
            + " 'write.distribution-mode'='none')");
    // Kill the executor of the insert's first running task, once, from a thread of its own.
    String appId = spark.sparkContext().applicationId();
    CountDownLatch started = new CountDownLatch(1);
    AtomicReference<String> victim = new AtomicReference<>();
    AtomicInteger failedTasks = new AtomicInteger();
    spark
        .sparkContext()
        .addSparkListener(
            new SparkListener() {
              @Override
              public void onTaskStart(SparkListenerTaskStart start) {
                if (victim.compareAndSet(null, start.taskInfo().executorId())) {
                  started.countDown();
                }
              }

              @Override
              public void onTaskEnd(SparkListenerTaskEnd end) {
                if (!(end.reason() instanceof Success$)) {
                  failedTasks.incrementAndGet();
                }
              }
            });
    Thread killer =
        new Thread(
            () -> {
              try {
                if (started.await(5, TimeUnit.MINUTES)) {
                  report.add("killed=" + kill(appId, victim.get()));
                }
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              }
            },
            "executor-killer");
    killer.start();
    spark.sql(
        "INSERT INTO "
            + TABLE
            + " SELECT id, format_string('NAME-CLU-%06d', id), format_string('SSN-CLU-%06d', id),"
            + " 8300000000000 + id FROM range(1, "
            + (ROWS + 1)
            + ", 1, "
            + PARTITIONS
            + ")");
    killer.join(TimeUnit.MINUTES.toMillis(1));
    Row counts =
        spark
            .sql("SELECT count(*), count(DISTINCT id), min(id), max(id) FROM " + TABLE)
            .collectAsList()
            .get(0);
    report.add(
        String.format(
            "rows=%d distinct=%d min=%d max=%d",
            counts.getLong(0), counts.getLong(1), counts.getLong(2), counts.getLong(3)));
    report.add("failedTasks=" + failedTasks.get());
  }

  /** SIGKILLs the executor process {@code executorId} of application {@code appId}. */
  private static String kill(String appId, String executorId) {
    Optional<ProcessHandle> executor =
        ProcessHandle.allProcesses()
            .filter(
                p -> {
                  String command = commandLine(p);
                  return command.contains("CoarseGrainedExecutorBackend")
                      && command.contains("--app-id " + appId)
                      && command.contains("--executor-id " + executorId + " ");
                })
            .findFirst();
    if (executor.isEmpty()) {
      return "none";
    }
    executor.get().destroyForcibly();
    return "executor-" + executorId;
  }

  /** A process's full command line (ProcessHandle.Info may truncate or omit long ones). */
  private static String commandLine(ProcessHandle process) {
    try {
      byte[] raw = Files.readAllBytes(Path.of("/proc", Long.toString(process.pid()), "cmdline"));
      return new String(raw, StandardCharsets.UTF_8).replace('\0', ' ');
    } catch (IOException | RuntimeException e) {
      return process.info().commandLine().orElse("");
    }
  }

  private static void read(SparkSession spark, List<String> report) throws Exception {
    List<Row> rows =
        spark.sql("SELECT id, name, ssn, salary FROM " + TABLE + " ORDER BY id").collectAsList();
    long keyCalls = SqlMetrics.keyServiceCallsOfLastExecution(spark);
    report.add("rows=" + rows.size());
    report.add("ssn=" + view(rows, 2));
    report.add("salary=" + view(rows, 3));
    report.add("keyCalls=" + keyCalls);
  }

  /** clear, null, masked (a value ending in the clear value's last 4), or what else it is. */
  private static String view(List<Row> rows, int column) {
    String seen = null;
    for (Row r : rows) {
      long id = r.getLong(0);
      if (!name(id).equals(r.getString(1))) {
        return "wrong-rows";
      }
      Object value = r.get(column);
      Object clear = column == 2 ? ssn(id) : (Object) salary(id);
      String now;
      if (value == null) {
        now = "null";
      } else if (value.equals(clear)) {
        now = "clear";
      } else if (value instanceof String
          && ((String) value).endsWith(ssn(id).substring(ssn(id).length() - 4))
          && !((String) value).contains("CLU")) {
        now = "masked";
      } else {
        now = "other";
      }
      seen = seen == null || seen.equals(now) ? now : "mixed";
    }
    return seen;
  }

  public static void writeProperties(Path file, Map<String, String> conf) throws IOException {
    Properties properties = new Properties();
    properties.putAll(conf);
    try (var out = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
      properties.store(out, "cluster job");
    }
  }
}
