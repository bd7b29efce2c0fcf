/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.spark.streaming;

import static io.icebergprotector.spark.TableFiles.assertBoundWithoutProtectedMetrics;
import static io.icebergprotector.spark.TableFiles.liveFiles;
import static io.icebergprotector.spark.TableFiles.location;
import static io.icebergprotector.spark.TableFiles.writtenDataFiles;
import static org.apache.spark.sql.functions.first;
import static org.apache.spark.sql.functions.max;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.icebergprotector.spark.SparkTestBase;
import io.icebergprotector.spark.core.ProtectorException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Collectors;
import java.util.stream.StreamSupport;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.spark.Spark3Util;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.streaming.StreamingQuery;
import org.apache.spark.sql.streaming.StreamingQueryException;
import org.apache.spark.sql.streaming.StreamingQueryListener;
import org.apache.spark.sql.streaming.Trigger;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Structured Streaming into and out of protected tables: append and complete output modes write
 * protected, bound files with one commit per epoch, exactly once across restarts from a checkpoint;
 * non-writers fail before the first epoch; micro-batch reads give each principal the view a batch
 * read gives.
 */
class StreamingTest extends SparkTestBase {
  private static final String T = "strm.db.customers";
  private static final StructType ROWS =
      StructType.fromDDL(
          "id BIGINT, name STRING, ssn STRING, email STRING, salary DECIMAL(10,2),"
              + " address STRUCT<city: STRING, zip: STRING>, country STRING");
  private static final List<String> PROTECTED = List.of("ssn", "email", "salary", "address.zip");

  private static Path work;
  private Path input;
  private Path checkpoint;

  @BeforeAll
  static void catalog() throws IOException {
    work = Files.createTempDirectory(root, "streaming");
    addProtectingCatalog("strm", work.resolve("warehouse"));
    spark.sql("CREATE NAMESPACE IF NOT EXISTS strm.db");
  }

  @BeforeEach
  void table() throws IOException {
    spark.sql("DROP TABLE IF EXISTS " + T + " PURGE");
    spark.sql(
        "CREATE TABLE "
            + T
            + " ("
            + ROWS.toDDL()
            + ") USING iceberg TBLPROPERTIES"
            + " ('format-version'='2', 'write.parquet.compression-codec'='uncompressed')");
    input = Files.createTempDirectory(work, "input");
    checkpoint = Files.createTempDirectory(work, "checkpoint");
  }

  // ------------------------------------------------------------------ writes

  @Test
  void appendIsExactlyOnceAcrossARestartThatReplaysACommittedEpoch() throws Exception {
    writeInput("f0", 0, 4);
    writeInput("f1", 4, 8);
    StreamingQuery first = startAppend("etl");
    first.processAllAvailable();
    first.stop();
    assertThat(epochs()).containsExactly(0L, 1L);

    // The run stopped after the sink committed epoch 1 but before Spark recorded that commit in
    // the checkpoint (a crash between the two): the restarted query replays epoch 1.
    Files.delete(checkpoint.resolve("commits/1"));
    Files.deleteIfExists(checkpoint.resolve("commits/.1.crc"));
    writeInput("f2", 8, 12);
    BatchIds batches = new BatchIds(2);
    spark.streams().addListener(batches);
    try {
      StreamingQuery second = startAppend("etl");
      second.processAllAvailable();
      second.stop();
      assertThat(batches.await()).as("progress of both batches reported").isTrue();
    } finally {
      spark.streams().removeListener(batches);
    }
    assertThat(batches.ids).as("batches the restarted query ran").containsExactly(1L, 2L);
    assertThat(epochs())
        .as("one commit per epoch: the replay was skipped")
        .containsExactly(0L, 1L, 2L);
    assertThat(writtenDataFiles(icebergTable()))
        .as("the files of the skipped replay were deleted: only committed files remain")
        .isEqualTo(liveFiles(icebergTable()).size());

    List<Row> rows = sqlAsStrm("alice", "SELECT id, ssn FROM " + T + " ORDER BY id");
    assertThat(rows)
        .extracting(r -> r.getLong(0))
        .as("every row exactly once")
        .containsExactly(0L, 1L, 2L, 3L, 4L, 5L, 6L, 7L, 8L, 9L, 10L, 11L);
    assertThat(rows).allSatisfy(r -> assertThat(r.getString(1)).isEqualTo(ssn(r.getLong(0))));
    assertPerRoleReads(12);
    assertProtectedAtRest();
  }

  @Test
  void mergeAppendMergesTheManifestsOfEachEpoch() throws Exception {
    spark.sql("ALTER TABLE " + T + " SET TBLPROPERTIES ('commit.manifest.min-count-to-merge'='2')");
    for (int i = 0; i < 3; i++) {
      writeInput("f" + i, i * 4, i * 4 + 4);
    }
    StreamingQuery query =
        asUser(
            "strm",
            "etl",
            () ->
                start(
                    source()
                        .writeStream()
                        .outputMode("append")
                        .option("use-merge-append-for-streaming", "true")));
    query.processAllAvailable();
    query.stop();
    Table table = icebergTable();
    assertThat(epochs()).containsExactly(0L, 1L, 2L);
    assertThat(table.currentSnapshot().dataManifests(table.io()))
        .as("a merge append merged the epochs' manifests (a fast append keeps one per epoch)")
        .hasSize(1);
    assertPerRoleReads(12);
    assertProtectedAtRest();
  }

  @Test
  void completeModeReplacesTheTableEveryEpoch() throws Exception {
    writeInput("f0", 0, 4); // countries DE, FR, IT, DE
    Dataset<Row> totals =
        asUser(
            "strm",
            "etl",
            () ->
                source()
                    .groupBy("country")
                    .agg(
                        max("id").as("id"),
                        first("name").as("name"),
                        max("ssn").as("ssn"),
                        max("email").as("email"),
                        max("salary").as("salary"),
                        first("address").as("address"))
                    .select("id", "name", "ssn", "email", "salary", "address", "country"));
    StreamingQuery query =
        asUser("strm", "etl", () -> start(totals.writeStream().outputMode("complete")));
    query.processAllAvailable();
    assertThat(maxIdByCountry()).isEqualTo(Map.of("DE", 3L, "FR", 1L, "IT", 2L));
    writeInput("f1", 4, 6);
    query.processAllAvailable();
    query.stop();
    assertThat(maxIdByCountry()).isEqualTo(Map.of("DE", 3L, "FR", 4L, "IT", 5L));
    Table table = icebergTable();
    assertThat(table.currentSnapshot().operation()).isEqualTo("overwrite");
    assertThat(liveFiles(table))
        .as("the last epoch's files only")
        .isNotEmpty()
        .allMatch(f -> f.recordCount() <= 3);
    assertThat(sqlAsStrm("alice", "SELECT ssn FROM " + T + " WHERE country = 'IT'"))
        .singleElement()
        .satisfies(r -> assertThat(r.getString(0)).isEqualTo(ssn(5)));
    assertProtectedAtRest();
  }

  @Test
  void principalsWhoMayNotWriteFailBeforeTheFirstEpoch() throws Exception {
    writeInput("f0", 0, 4);
    long snapshots = snapshots().size();
    StreamingQuery query = startAppend("bob");
    Throwable failure = catchThrowable(query::awaitTermination);
    assertThat(failure).isInstanceOf(StreamingQueryException.class);
    ProtectorException refused = causeOf(failure, ProtectorException.class);
    assertThat(refused.getMessage())
        .contains(
            "Principal 'bob' (roles [analyst]) may not write to protected table"
                + " db.customers: it is not a writer for key(s)")
        .contains("(writers: [etl, admin])");
    assertThat(snapshots()).hasSize((int) snapshots);
    assertThat(writtenDataFiles(icebergTable())).isZero();
    assertThat(checkpoint.resolve("commits/0")).doesNotExist();
  }

  // ------------------------------------------------------------------ reads

  @Test
  void microBatchReadsGiveEachPrincipalItsView() throws Exception {
    insert(0, 3);
    insert(3, 5);
    List<Row> alice = readStreamAs("alice");
    assertThat(alice)
        .hasSize(5)
        .allSatisfy(
            r -> {
              assertThat(r.getString(2)).isEqualTo(ssn(r.getLong(0)));
              assertThat(r.getString(3)).isEqualTo("strm" + r.getLong(0) + "@canary.test");
            });
    List<Row> bob = readStreamAs("bob");
    assertThat(bob)
        .hasSize(5)
        .allSatisfy(
            r -> {
              String ssn = ssn(r.getLong(0));
              assertThat(r.getString(2))
                  .isEqualTo("*".repeat(ssn.length() - 4) + ssn.substring(ssn.length() - 4));
              assertThat(r.getString(3)).isNotNull().doesNotContain("@canary.test");
              assertThat(r.isNullAt(4)).as("salary").isTrue();
            });
    List<Row> mallory = readStreamAs("mallory");
    assertThat(mallory)
        .hasSize(5)
        .allSatisfy(r -> assertThat(r.isNullAt(2) && r.isNullAt(3) && r.isNullAt(4)).isTrue());

    // restarted from its checkpoint, a query reads only what was committed since
    insert(5, 7);
    assertThat(readStreamAs("alice")).extracting(r -> r.getLong(0)).containsExactly(5L, 6L);
    assertThat(readStreamAs("mallory"))
        .hasSize(2)
        .allSatisfy(r -> assertThat(r.isNullAt(2)).isTrue());
  }

  // ------------------------------------------------------------------ helpers

  /**
   * Runs a micro-batch read of the table as {@code user} to its end ({@code Trigger.AvailableNow}),
   * from the user's checkpoint, and returns the rows its batches read, ordered by id.
   */
  private List<Row> readStreamAs(String user) throws Exception {
    Path readCheckpoint = work.resolve("read-checkpoint-" + user);
    List<Row> rows = java.util.Collections.synchronizedList(new ArrayList<>());
    StreamingQuery query =
        asUser(
            "strm",
            user,
            () ->
                start(
                    spark
                        .readStream()
                        .table(T)
                        .writeStream()
                        .foreachBatch(
                            (org.apache.spark.api.java.function.VoidFunction2<Dataset<Row>, Long>)
                                (batch, id) -> rows.addAll(batch.collectAsList()))
                        .trigger(Trigger.AvailableNow())
                        .option("checkpointLocation", readCheckpoint.toString()),
                    null));
    query.awaitTermination();
    List<Row> sorted = new ArrayList<>(rows);
    sorted.sort(java.util.Comparator.comparingLong(r -> r.getLong(0)));
    return sorted;
  }

  private StreamingQuery startAppend(String user) {
    return asUser("strm", user, () -> start(source().writeStream().outputMode("append")));
  }

  private StreamingQuery start(org.apache.spark.sql.streaming.DataStreamWriter<Row> writer) {
    return start(writer.option("checkpointLocation", checkpoint.toString()), T);
  }

  private static StreamingQuery start(
      org.apache.spark.sql.streaming.DataStreamWriter<Row> writer, String table) {
    try {
      return table == null ? writer.start() : writer.toTable(table);
    } catch (TimeoutException e) {
      throw new IllegalStateException(e);
    }
  }

  /** One JSON file per micro-batch. */
  private Dataset<Row> source() {
    return spark.readStream().schema(ROWS).option("maxFilesPerTrigger", 1).json(input.toString());
  }

  /** Rows {@code from} until {@code to} as one JSON file named {@code name}. */
  private void writeInput(String name, int from, int to) {
    StringBuilder json = new StringBuilder();
    for (long id = from; id < to; id++) {
      json.append(
          String.format(
              "{\"id\": %d, \"name\": \"name-%d\", \"ssn\": \"%s\", \"email\": \"strm%d@canary.test\","
                  + " \"salary\": %d.25, \"address\": {\"city\": \"city-%d\", \"zip\": \"STRMZIP%d\"},"
                  + " \"country\": \"%s\"}%n",
              id, id, ssn(id), id, id, id, 1000 + id, country(id)));
    }
    try {
      // written elsewhere and moved in, so the source never sees a partial file
      Path staging = Files.createTempFile(work, name, ".tmp");
      Files.writeString(staging, json);
      Files.move(staging, input.resolve(name + ".json"));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static void insert(int from, int to) {
    sqlAsStrm(
        "etl",
        String.format(
            "INSERT INTO %s SELECT id, concat('name-', id), concat('STRMSSN-', 1000 + id),"
                + " concat('strm', id, '@canary.test'), CAST(id + 0.25 AS DECIMAL(10,2)),"
                + " named_struct('city', concat('city-', id), 'zip', concat('STRMZIP', 1000 + id)),"
                + " 'DE' FROM range(%d, %d, 1, 1)",
            T, from, to));
  }

  private static String ssn(long id) {
    return "STRMSSN-" + (1000 + id);
  }

  private static String country(long id) {
    return List.of("DE", "FR", "IT").get((int) (id % 3));
  }

  private static List<Row> sqlAsStrm(String user, String query) {
    return asUser("strm", user, () -> spark.sql(query).collectAsList());
  }

  private static Map<String, Long> maxIdByCountry() {
    return sqlAsStrm("alice", "SELECT country, id FROM " + T).stream()
        .collect(Collectors.toMap(r -> r.getString(0), r -> r.getLong(1)));
  }

  private static void assertPerRoleReads(int rows) {
    assertThat(sqlAsStrm("bob", "SELECT ssn, salary FROM " + T))
        .hasSize(rows)
        .allSatisfy(
            r -> {
              assertThat(r.getString(0)).startsWith("********").doesNotContain("STRMSSN");
              assertThat(r.isNullAt(1)).isTrue();
            });
    assertThat(sqlAsStrm("mallory", "SELECT ssn, email FROM " + T))
        .hasSize(rows)
        .allSatisfy(r -> assertThat(r.isNullAt(0) && r.isNullAt(1)).isTrue());
  }

  private static void assertProtectedAtRest() {
    Table table = icebergTable();
    assertThat(filesContaining(location(table), "STRMSSN-", "@canary.test", "STRMZIP")).isEmpty();
    assertBoundWithoutProtectedMetrics(table, liveFiles(table), PROTECTED, "id");
  }

  /** The epoch ids the table's snapshots record, oldest first. */
  private static List<Long> epochs() {
    return snapshots().stream()
        .map(s -> s.summary().get(ProtectedStreamingWrite.EPOCH_ID_PROPERTY))
        .filter(java.util.Objects::nonNull)
        .map(Long::valueOf)
        .collect(Collectors.toList());
  }

  private static List<Snapshot> snapshots() {
    return StreamSupport.stream(icebergTable().snapshots().spliterator(), false)
        .sorted(java.util.Comparator.comparingLong(Snapshot::sequenceNumber))
        .collect(Collectors.toList());
  }

  private static Table icebergTable() {
    try {
      return Spark3Util.loadIcebergTable(spark, T);
    } catch (Exception e) {
      throw new IllegalStateException("Cannot load " + T, e);
    }
  }

  /** Records the ids of the batches that read rows, as their progress events arrive. */
  private static final class BatchIds extends StreamingQueryListener {
    private final List<Long> ids = java.util.Collections.synchronizedList(new ArrayList<>());
    private final CountDownLatch expected;

    BatchIds(int batches) {
      this.expected = new CountDownLatch(batches);
    }

    /** Waits for the expected batches' events: the listener bus delivers them asynchronously. */
    boolean await() throws InterruptedException {
      return expected.await(2, TimeUnit.MINUTES);
    }

    @Override
    public void onQueryStarted(QueryStartedEvent event) {}

    @Override
    public void onQueryProgress(QueryProgressEvent event) {
      if (event.progress().numInputRows() > 0) {
        ids.add(event.progress().batchId());
        expected.countDown();
      }
    }

    @Override
    public void onQueryTerminated(QueryTerminatedEvent event) {}
  }
}
