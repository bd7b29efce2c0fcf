/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.spark.rowlevel;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.icebergprotector.spark.compat.BranchWriteConf;
import io.icebergprotector.spark.compat.ScalaCollections;
import io.icebergprotector.spark.core.ExpressionRedactor;
import io.icebergprotector.spark.write.ProtectedCommit;
import java.io.IOException;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Collectors;
import org.apache.iceberg.AppendFiles;
import org.apache.iceberg.ContentFile;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.exceptions.CommitStateUnknownException;
import org.apache.iceberg.exceptions.ValidationException;
import org.apache.iceberg.expressions.Expressions;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.api.java.UDF1;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Conflicts between a row-level operation and a concurrent commit behave as on plain Iceberg: the
 * operation is held inside its Spark job (by a UDF waiting on a latch) while a second session
 * commits, then released; it either commits on top of the other commit or fails with Iceberg's
 * validation error, and no row of either is lost.
 */
class RowLevelIsolationTest extends RowLevelTestBase {
  private static final long TIMEOUT_SECONDS = 120;
  private static ExecutorService pool;
  private static SparkSession other;

  /** Holds the first call of {@code gate(x)} until the other session has committed. */
  static final class Gate {
    static volatile CountDownLatch entered = new CountDownLatch(1);
    static volatile CountDownLatch released = new CountDownLatch(1);
    static final AtomicBoolean first = new AtomicBoolean(true);

    static void reset() {
      entered = new CountDownLatch(1);
      released = new CountDownLatch(1);
      first.set(true);
    }

    static Long pass(Long value) throws InterruptedException {
      if (first.compareAndSet(true, false)) {
        entered.countDown();
        if (!released.await(TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
          throw new IllegalStateException("the concurrent commit never released the gate");
        }
      }
      return value;
    }
  }

  @BeforeAll
  static void startSecondSession() {
    spark.udf().register("gate", (UDF1<Long, Long>) Gate::pass, DataTypes.LongType);
    other = spark.newSession();
    // the same catalog configuration in its own session: its own catalog and table instances
    for (Map.Entry<String, String> entry :
        ScalaCollections.asJava(spark.conf().getAll()).entrySet()) {
      if (entry.getKey().startsWith("spark.sql.catalog." + CATALOG)) {
        other.conf().set(entry.getKey(), entry.getValue());
      }
    }
    other.conf().set("spark.sql.catalog." + CATALOG + ".protector.user", "alice");
    pool = Executors.newSingleThreadExecutor();
  }

  @AfterAll
  static void stopPool() {
    if (pool != null) {
      pool.shutdownNow();
    }
  }

  @Test
  void copyOnWriteDeleteFailsOnAConcurrentAppendUnderSerializableIsolation() throws Exception {
    String t = "db.t11";
    create(t, RowLevelOperationsTest.properties(2, "copy-on-write"));
    insert(t, 1, 10);

    Throwable failure =
        runAgainst(
            "DELETE FROM " + name(t) + " WHERE gate(id) = 3",
            "INSERT INTO " + name(t) + " " + values(30, 30));

    assertThat(failure)
        .isInstanceOf(ValidationException.class)
        .hasMessageContaining("Found conflicting files that can contain records matching true");
    assertThat(ids(t)).containsExactlyInAnyOrder(1L, 2L, 3L, 4L, 5L, 6L, 7L, 8L, 9L, 10L, 30L);
    assertNoFilesLeftBehind(t);
  }

  @Test
  void copyOnWriteDeleteCommitsOverAConcurrentAppendUnderSnapshotIsolation() throws Exception {
    String t = "db.t12";
    Map<String, String> properties = RowLevelOperationsTest.properties(2, "copy-on-write");
    properties.put("write.delete.isolation-level", "snapshot");
    create(t, properties);
    insert(t, 1, 10);

    Throwable failure =
        runAgainst(
            "DELETE FROM " + name(t) + " WHERE gate(id) = 3",
            "INSERT INTO " + name(t) + " " + values(30, 30));

    assertThat(failure).isNull();
    assertThat(ids(t)).containsExactlyInAnyOrder(1L, 2L, 4L, 5L, 6L, 7L, 8L, 9L, 10L, 30L);
    assertThat(as("alice", "SELECT ssn FROM " + name(t) + " WHERE id = 30").get(0).getString(0))
        .isEqualTo(ssn(30));
    assertNoFilesLeftBehind(t);
  }

  @Test
  void concurrentMergesOnTheSameRowsCommitOnceAndFailOnce() throws Exception {
    String t = "db.t13";
    Map<String, String> properties = RowLevelOperationsTest.properties(2, "merge-on-read");
    // serializable would already refuse the other MERGE's new data file; snapshot isolation
    // still refuses its delete of the same row
    properties.put("write.merge.isolation-level", "snapshot");
    create(t, properties);
    insert(t, 1, 10);

    Throwable failure =
        runAgainst(
            "MERGE INTO "
                + name(t)
                + " t USING (SELECT gate(5L) AS id) s ON t.id = s.id"
                + " WHEN MATCHED THEN UPDATE SET dept = 'first'",
            "MERGE INTO "
                + name(t)
                + " t USING (SELECT 5L AS id) s ON t.id = s.id"
                + " WHEN MATCHED THEN UPDATE SET dept = 'second'");

    assertThat(failure)
        .isInstanceOf(ValidationException.class)
        .hasMessageContaining("Found new conflicting delete files");
    List<Row> five = as("alice", "SELECT dept, ssn FROM " + name(t) + " WHERE id = 5");
    assertThat(five).hasSize(1);
    assertThat(five.get(0).getString(0)).isEqualTo("second");
    assertThat(five.get(0).getString(1)).isEqualTo(ssn(5));
    assertThat(ids(t)).hasSize(10);
    assertNoFilesLeftBehind(t);
  }

  @Test
  void mergeOnReadDeleteFailsOnAConcurrentAppendUnderSerializableIsolation() throws Exception {
    String t = "db.t14";
    create(t, RowLevelOperationsTest.properties(3, "merge-on-read"));
    insert(t, 1, 10);

    Throwable failure =
        runAgainst(
            "DELETE FROM " + name(t) + " WHERE gate(id) = 3",
            "INSERT INTO " + name(t) + " " + values(30, 30));

    assertThat(failure)
        .isInstanceOf(ValidationException.class)
        .hasMessageContaining("Found conflicting files that can contain records matching true");
    assertThat(ids(t)).hasSize(11).contains(3L, 30L);
    assertNoFilesLeftBehind(t);
  }

  /**
   * Files written for a commit whose outcome is unknown are kept (they may be in the table now);
   * after a commit that failed cleanly, or when nothing was committed, they are deleted.
   */
  @Test
  void abortKeepsFilesOnlyWhenTheCommitStateIsUnknown() throws IOException {
    String t = "db.t15";
    create(t, RowLevelOperationsTest.properties(2, "merge-on-read"));
    Table table = iceberg(t);
    BranchWriteConf conf =
        new BranchWriteConf(spark, table, null, CaseInsensitiveStringMap.empty());
    ExpressionRedactor redactor = ExpressionRedactor.all();

    DataFile unknown = fakeFile(table, "unknown.parquet");
    ProtectedCommit committer = new ProtectedCommit(spark, table, conf, redactor);
    assertThatThrownBy(
            () ->
                committer.commit(
                    failingAppend(table, new CommitStateUnknownException(new IOException("lost"))),
                    "append",
                    Expressions.alwaysTrue()))
        .isInstanceOf(CommitStateUnknownException.class)
        .hasMessageContaining("lost");
    committer.abort(List.of(unknown));
    assertThat(Path.of(java.net.URI.create(unknown.location()))).exists();

    DataFile rejected = fakeFile(table, "rejected.parquet");
    ProtectedCommit second = new ProtectedCommit(spark, table, conf, redactor);
    assertThatThrownBy(
            () ->
                second.commit(
                    failingAppend(table, new ValidationException("conflict %s", "x")),
                    "append",
                    null))
        .isInstanceOf(ValidationException.class)
        .hasMessage("conflict x");
    second.abort(List.of(rejected));
    assertThat(Path.of(java.net.URI.create(rejected.location()))).doesNotExist();

    DataFile neverCommitted = fakeFile(table, "never.parquet");
    new ProtectedCommit(spark, table, conf, redactor).abort(List.of(neverCommitted));
    assertThat(Path.of(java.net.URI.create(neverCommitted.location()))).doesNotExist();
  }

  /**
   * Runs {@code operation} as alice in this session, holds it inside its job until {@code
   * concurrent} committed in the other session, and returns the operation's failure (or null).
   */
  private static Throwable runAgainst(String operation, String concurrent) throws Exception {
    Gate.reset();
    Future<?> running = pool.submit(() -> as("alice", operation));
    if (!Gate.entered.await(TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
      running.cancel(true);
      throw new IllegalStateException("the operation never reached its gate");
    }
    try {
      other.sql(concurrent).collectAsList();
    } finally {
      Gate.released.countDown();
    }
    try {
      running.get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
      return null;
    } catch (ExecutionException e) {
      Throwable cause = e.getCause();
      while (cause != null
          && !(cause instanceof ValidationException)
          && cause.getCause() != null
          && cause.getCause() != cause) {
        cause = cause.getCause();
      }
      return cause;
    }
  }

  private static Set<Long> ids(String t) {
    return as("alice", "SELECT id FROM " + name(t)).stream()
        .map(r -> r.getLong(0))
        .collect(Collectors.toSet());
  }

  /** Every data or delete file on disk belongs to some snapshot: failed writes cleaned up. */
  private static void assertNoFilesLeftBehind(String t) {
    Table table = iceberg(t);
    Set<String> committed = new HashSet<>();
    for (Snapshot snapshot : table.snapshots()) {
      snapshot.addedDataFiles(table.io()).forEach(f -> committed.add(fileName(f)));
      snapshot.addedDeleteFiles(table.io()).forEach(f -> committed.add(fileName(f)));
    }
    Set<String> onDisk =
        files(t).stream()
            .filter(p -> p.getParent().getFileName().toString().equals("data"))
            .filter(p -> !p.getFileName().toString().startsWith(".")) // Hadoop's checksum files
            .map(p -> p.getFileName().toString())
            .collect(Collectors.toSet());
    assertThat(onDisk).isEqualTo(committed);
  }

  private static String fileName(ContentFile<?> file) {
    return Path.of(java.net.URI.create(file.location())).getFileName().toString();
  }

  private static DataFile fakeFile(Table table, String fileName) throws IOException {
    Path path = Path.of(java.net.URI.create(table.location() + "/data/" + fileName));
    Files.createDirectories(path.getParent());
    Files.write(path, new byte[] {1, 2, 3});
    return DataFiles.builder(table.spec())
        .withPath(path.toUri().toString())
        .withFormat(FileFormat.PARQUET)
        .withFileSizeInBytes(3)
        .withRecordCount(1)
        .build();
  }

  /** A real append whose commit fails the way a catalog can fail. */
  private static AppendFiles failingAppend(Table table, RuntimeException failure) {
    AppendFiles real = table.newAppend();
    return (AppendFiles)
        Proxy.newProxyInstance(
            AppendFiles.class.getClassLoader(),
            new Class<?>[] {AppendFiles.class},
            (proxy, method, args) -> {
              if (method.getName().equals("commit")) {
                throw failure;
              }
              try {
                Object result = method.invoke(real, args);
                return result == real ? proxy : result;
              } catch (InvocationTargetException e) {
                throw e.getCause();
              }
            });
  }
}
