/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.bench;

import io.icebergprotector.kms.KeyService;
import io.icebergprotector.spark.ProtectingSparkCatalog;
import io.icebergprotector.spark.ProtectorSparkSessionExtensions;
import io.icebergprotector.spark.core.ProtectionSpec;
import io.icebergprotector.spark.crypto.KeyServiceRegistry;
import io.icebergprotector.spark.crypto.ProtectorCrypto;
import io.icebergprotector.spark.crypto.ProtectorUnshadedKmsClient;
import io.icebergprotector.spark.metrics.KeyServiceCallsMetric;
import io.icebergprotector.spark.table.ProtectedTable;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.connector.catalog.Identifier;
import org.apache.spark.sql.execution.ui.SQLAppStatusStore;
import org.apache.spark.sql.execution.ui.SQLExecutionUIData;
import org.apache.spark.sql.execution.ui.SQLPlanMetric;
import org.apache.spark.storage.StorageLevel;
import scala.jdk.javaapi.CollectionConverters;

/**
 * Side-by-side cost of column protection, on one generated dataset and in one JVM:
 *
 * <ul>
 *   <li>(a) a plain Iceberg table (the baseline);
 *   <li>(b) the same table protected: 3 columns under 2 master keys plus an encrypted footer,
 *       written and read (as a clear reader) through {@link ProtectingSparkCatalog};
 *   <li>(c) Spark's native Parquet encryption on a path table, same keys and columns, through
 *       {@link ProtectorUnshadedKmsClient};
 *   <li>(d) do-it-yourself: a plain Iceberg table whose 3 columns hold {@code aes_encrypt} values
 *       (data keys derived from the same master keys once per job), decrypted with {@code
 *       aes_decrypt} on read.
 * </ul>
 *
 * For each: write time, full-scan time (an aggregate over every column), selective-scan time (a 1%
 * range filter on the unprotected, sorted {@code id}), bytes of data files, and key-service calls
 * per job (key caches are emptied before every job, so each job shows its cold-cache calls). A
 * warm-up round comes first; times are medians over the rounds, ratios are medians of the per-round
 * ratios, with (a) and (b) measured side by side in every round (the order alternates). It prints
 * one table with ratios against (a) and asserts nothing. With {@code --reader masked}, (b) is
 * scanned by a masked reader instead ({@code partial(keep_last=4)} on {@code ssn}, {@code hash} on
 * {@code email}, {@code redact} on {@code salary}), which measures the masks on top of decryption.
 *
 * <pre>bin/benchmark --rows 5000000</pre>
 */
public final class ProtectorBenchmark implements AutoCloseable {
  static final String COLUMNS_DDL =
      "id bigint, qty int, score double, salary decimal(12,2), created date, updated timestamp,"
          + " name string, comment string, ssn string, email string";
  static final String DIY_COLUMNS_DDL =
      "id bigint, qty int, score double, salary binary, created date, updated timestamp,"
          + " name string, comment string, ssn binary, email binary";

  /** Touches every column; deterministic (no floating-point sum) so variants can be compared. */
  static final String AGGREGATE =
      "count(*) AS n, sum(id) AS s_id, sum(qty) AS s_qty, sum(CAST(score * 1000 AS BIGINT)) AS"
          + " s_score, sum(salary) AS s_salary, max(created) AS m_created, max(updated) AS"
          + " m_updated, sum(length(name)) AS l_name, sum(length(comment)) AS l_comment,"
          + " sum(length(ssn)) AS l_ssn, sum(length(email)) AS l_email";

  static final String POLICY =
      String.join(
          "\n",
          "protector {",
          "  roles { owner { users = [bench] }, analyst { users = [bench-analyst] } }",
          "  keys { pii {}, fin {}, footer {} }",
          "  tables {",
          tablePolicy("db.protected"),
          // the small-file table of the row-level benchmark's compaction
          tablePolicy("db.small"),
          // the token-table benchmark's table: 2 tokenized columns, PME-encrypted as well
          "    \"db.tokens\" {",
          "      footer-key = footer",
          "      writers = [owner]",
          "      columns {",
          "        ssn   { key = pii, method = \"fpe(alphabet = digits, keep = '-')\","
              + " clear = [owner] }",
          "        email { key = pii, method = deterministic, clear = [owner] }",
          "      }",
          "    }",
          "  }",
          "}");

  /** The protection of benchmark table {@code name}: 3 protected columns under 2 keys. */
  private static String tablePolicy(String name) {
    return String.join(
        "\n",
        "    \"" + name + "\" {",
        "      footer-key = footer",
        "      footer-mode = encrypted",
        "      algorithm = AES_GCM_V1",
        "      writers = [owner]",
        "      columns {",
        "        ssn    { key = pii, clear = [owner], masked { analyst = \"partial(keep_last=4)\" } }",
        "        email  { key = pii, clear = [owner], masked { analyst = hash } }",
        "        salary { key = fin, clear = [owner], masked { analyst = redact } }",
        "      }",
        "    }");
  }

  static final String DIY_CONTEXT = "iceberg-protector/bench/aes_encrypt/v1";

  /** The writer and clear reader of the protected table. */
  static final String OWNER = "bench";

  /** The reader of {@code --reader masked}. */
  static final String ANALYST = "bench-analyst";

  private final Options options;
  private final Path work;
  private final SparkSession spark;
  private final HeapPeaks heap = new HeapPeaks();
  private ProtectionSpec spec;
  private Dataset<Row> source;

  ProtectorBenchmark(Options options) throws IOException {
    this.options = options;
    this.work =
        options.dir != null
            ? Files.createDirectories(options.dir)
            : Files.createTempDirectory("protector-bench");
    this.spark = startSpark(options.master, work);
  }

  /**
   * A local session with catalog {@code plain} (Iceberg's {@code SparkCatalog}) and catalog {@code
   * prot} (the protecting catalog, acting as the benchmark principal {@code bench}, a clear writer
   * of {@code db.protected}), both Hadoop catalogs under {@code work}.
   */
  static SparkSession startSpark(String master, Path work) throws IOException {
    Path passphrase = work.resolve("passphrase");
    Files.writeString(passphrase, "bench-" + System.nanoTime());
    Path policy = work.resolve("policy.conf");
    Files.writeString(policy, POLICY);
    SparkSession session =
        SparkSession.builder()
            .master(master)
            .appName("iceberg-protector-benchmark")
            .config("spark.ui.enabled", "false")
            .config("spark.sql.shuffle.partitions", "2")
            .config("spark.sql.parquet.compression.codec", "zstd") // Iceberg's default codec
            .config(
                "spark.sql.extensions",
                "org.apache.iceberg.spark.extensions.IcebergSparkSessionExtensions,"
                    + ProtectorSparkSessionExtensions.class.getName())
            .config("spark.sql.catalog.plain", "org.apache.iceberg.spark.SparkCatalog")
            .config("spark.sql.catalog.plain.type", "hadoop")
            .config("spark.sql.catalog.plain.warehouse", work.resolve("plain").toUri().toString())
            .config("spark.sql.catalog.prot", ProtectingSparkCatalog.class.getName())
            .config("spark.sql.catalog.prot.type", "hadoop")
            .config("spark.sql.catalog.prot.warehouse", work.resolve("prot").toUri().toString())
            .config("spark.sql.catalog.prot.protector.policy", policy.toString())
            .config(
                "spark.sql.catalog.prot.protector.kms.keystore",
                work.resolve("keys.p12").toString())
            .config("spark.sql.catalog.prot.protector.kms.passphrase-file", passphrase.toString())
            .config("spark.sql.catalog.prot.protector.kms.create-missing-keys", "true")
            .config("spark.sql.catalog.prot.protector.user", OWNER)
            .getOrCreate();
    session.sparkContext().setLogLevel("WARN");
    return session;
  }

  public static void main(String[] args) throws Exception {
    Options options = Options.parse(args);
    try (ProtectorBenchmark bench = new ProtectorBenchmark(options)) {
      bench.run();
    }
  }

  void run() {
    spark.sql("CREATE NAMESPACE IF NOT EXISTS plain.db");
    spark.sql("CREATE NAMESPACE IF NOT EXISTS prot.db");
    List<Variant> variants = new ArrayList<>();
    for (Variant v :
        List.of(new PlainIceberg(), new Protected(), new NativeParquet(), new AesColumns())) {
      if (options.variants.contains(v.key)) {
        variants.add(v);
      }
    }
    this.spec = protectionSpec();

    if (options.cached) {
      log("generating %,d rows (cached in memory)...", options.rows);
      this.source = generate(options.rows).persist(StorageLevel.MEMORY_ONLY());
      long count = source.count();
      log("generated %,d rows in %d partitions", count, source.rdd().getNumPartitions());
    } else {
      // generated again by every write: the heap holds no copy of the data
      this.source = generate(options.rows);
    }

    for (int round = 0; round < options.warmup; round++) {
      log("warm-up round %d of %d", round + 1, options.warmup);
      for (Variant v : variants) {
        measure(v, false);
      }
    }
    for (int rep = 0; rep < options.reps; rep++) {
      log("round %d of %d", rep + 1, options.reps);
      for (Variant v : roundOrder(variants, rep)) {
        measure(v, true);
      }
    }
    if (options.machine) {
      for (Variant v : variants) {
        System.out.println(machineLine(v));
      }
      return;
    }
    System.out.println();
    System.out.println(report(variants));
  }

  /** One variant's figures as {@code key=value} fields, for {@link ScalingBenchmark}. */
  private String machineLine(Variant v) {
    return String.format(
        Locale.ROOT,
        "%s variant=%s rows=%d write=%.3f full=%.3f selective=%.3f peak_used=%d after_gc=%d"
            + " max_heap=%d bytes=%d files=%d",
        MACHINE_PREFIX,
        v.key,
        options.rows,
        median(v.writes),
        median(v.fulls),
        median(v.selectives),
        v.peakUsed,
        v.maxAfterGc,
        Runtime.getRuntime().maxMemory(),
        v.bytes,
        v.files);
  }

  /** The prefix of {@code --machine} output lines. */
  static final String MACHINE_PREFIX = "BENCH-RESULT";

  /**
   * The order of a round: (a) and (b) always side by side (likewise (c) and (d)), so that their
   * per-round ratio sees the same machine load; which pair comes first and which variant leads in a
   * pair alternate from round to round.
   */
  static List<Variant> roundOrder(List<Variant> variants, int round) {
    List<List<Variant>> pairs = new ArrayList<>();
    for (int i = 0; i < variants.size(); i += 2) {
      List<Variant> pair = new ArrayList<>(variants.subList(i, Math.min(i + 2, variants.size())));
      if ((round / 2) % 2 == 1) {
        java.util.Collections.reverse(pair);
      }
      pairs.add(pair);
    }
    if (round % 2 == 1) {
      java.util.Collections.reverse(pairs);
    }
    List<Variant> order = new ArrayList<>();
    pairs.forEach(order::addAll);
    return order;
  }

  /** One write, full scan and selective scan of a variant. */
  private void measure(Variant v, boolean record) {
    v.reset();
    Job write = job(v, () -> v.write(source));
    long bytes = v.bytes();
    Job full = job(v, v::fullScan);
    Job selective = job(v, v::selectiveScan);
    log(
        "  %s write %.2fs (%d calls), full %.2fs (%d), selective %.2fs (%d), %,d bytes",
        v.key,
        write.seconds,
        write.calls,
        full.seconds,
        full.calls,
        selective.seconds,
        selective.calls,
        bytes);
    if (record) {
      v.writes.add(write);
      v.fulls.add(full);
      v.selectives.add(selective);
      v.bytes = bytes;
      v.files = v.fileCount();
      v.fullResult = (Row) full.result;
      v.selectiveResult = (Row) selective.result;
    }
  }

  private Job job(Variant v, Supplier<Object> action) {
    heap.reset();
    Job job = time(spec, action);
    v.peakUsed = Math.max(v.peakUsed, heap.peakUsed());
    v.maxAfterGc = Math.max(v.maxAfterGc, heap.maxAfterGc());
    return job;
  }

  private Job job(Variant v, Runnable action) {
    return job(
        v,
        () -> {
          action.run();
          return null;
        });
  }

  /**
   * Times one Spark job with cold key caches; counts the calls that reached the key service of
   * {@code spec}.
   */
  static Job time(ProtectionSpec spec, Supplier<Object> action) {
    ProtectorCrypto.forgetAllCachedKeys();
    org.apache.parquet.crypto.keytools.KeyToolkit.removeCacheEntriesForAllTokens();
    System.gc();
    long calls = KeyServiceRegistry.backendCalls(spec.kms());
    long start = System.nanoTime();
    Object result = action.get();
    double seconds = (System.nanoTime() - start) / 1e9;
    return new Job(seconds, KeyServiceRegistry.backendCalls(spec.kms()) - calls, result);
  }

  static Job time(ProtectionSpec spec, Runnable action) {
    return time(
        spec,
        () -> {
          action.run();
          return null;
        });
  }

  /** The protected table's spec for the benchmark principal (registers its key service). */
  private ProtectionSpec protectionSpec() {
    spark.sql("CREATE TABLE IF NOT EXISTS prot.db.protected (" + COLUMNS_DDL + ") USING iceberg");
    return loadProtectionSpec(spark);
  }

  /** The spec of the existing table prot.db.protected for the benchmark principal. */
  static ProtectionSpec loadProtectionSpec(SparkSession spark) {
    try {
      ProtectingSparkCatalog catalog =
          (ProtectingSparkCatalog) spark.sessionState().catalogManager().catalog("prot");
      ProtectedTable table =
          (ProtectedTable) catalog.loadTable(Identifier.of(new String[] {"db"}, "protected"));
      ProtectionSpec protection = table.protection();
      KeyServiceRegistry.obtain(protection.keyScope(), protection.policy());
      return protection;
    } catch (Exception e) {
      throw new IllegalStateException("Cannot load the protected benchmark table", e);
    }
  }

  private Dataset<Row> generate(long rows) {
    return generate(spark, rows, options.partitions);
  }

  /** 10 columns: long, int, double, decimal, date, timestamp and strings of varied length. */
  static Dataset<Row> generate(SparkSession spark, long rows, int partitions) {
    return spark
        .range(0, rows, 1, partitions)
        .selectExpr(
            "id",
            "CAST(pmod(hash(id, 1), 100000) AS INT) AS qty",
            "pmod(hash(id, 2), 10000000) / 1000.0D AS score",
            "CAST(pmod(hash(id, 3), 100000000) / 100.0 AS DECIMAL(12,2)) AS salary",
            "date_add(DATE'2000-01-01', pmod(hash(id, 4), 9000)) AS created",
            "timestamp_seconds(946684800L + pmod(hash(id, 5), 700000000)) AS updated",
            "substr(md5(CAST(id AS STRING)), 1, 4 + pmod(hash(id, 6), 16)) AS name",
            "CASE WHEN pmod(hash(id, 7), 10) = 0 THEN NULL ELSE substr(repeat(concat('lorem"
                + " ipsum dolor sit amet ', sha1(CAST(id AS STRING))), 3), 1 + pmod(hash(id, 8),"
                + " 20), pmod(hash(id, 9), 160)) END AS comment",
            "format_string('%03d-%02d-%04d', pmod(hash(id, 10), 1000), pmod(hash(id, 11), 100),"
                + " pmod(hash(id, 12), 10000)) AS ssn",
            "concat(substr(sha1(CAST(id AS STRING)), 1, 6 + pmod(hash(id, 13), 10)), '@',"
                + " element_at(array('example.com', 'mail.example.org', 'corp.test'), 1 +"
                + " pmod(hash(id, 14), 3))) AS email");
  }

  private String selectiveFilter() {
    long lo = options.rows / 2;
    return "id BETWEEN " + lo + " AND " + (lo + Math.max(1, options.rows / 100) - 1);
  }

  private Row aggregate(String relation, String filter) {
    String where = filter == null ? "" : " WHERE " + filter;
    return spark.sql("SELECT " + AGGREGATE + " FROM " + relation + where).collectAsList().get(0);
  }

  private void recreateIceberg(String table, String ddl, Path dir) {
    spark.sql("DROP TABLE IF EXISTS " + table);
    deleteRecursively(dir);
    spark.sql("CREATE TABLE " + table + " (" + ddl + ") USING iceberg");
  }

  /** Data files (*.parquet) under {@code dir}: count and bytes. */
  static long[] parquetFiles(Path dir) {
    if (!Files.exists(dir)) {
      return new long[] {0, 0};
    }
    try (Stream<Path> walk = Files.walk(dir)) {
      long[] result = new long[2];
      walk.filter(p -> p.getFileName().toString().endsWith(".parquet"))
          .forEach(
              p -> {
                result[0] += 1;
                try {
                  result[1] += Files.size(p);
                } catch (IOException e) {
                  throw new UncheckedIOException(e);
                }
              });
      return result;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static void deleteRecursively(Path dir) {
    if (!Files.exists(dir)) {
      return;
    }
    try (Stream<Path> walk = Files.walk(dir)) {
      for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) {
        Files.delete(p);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The sum of the "key service calls" SQL metrics of the latest SQL execution, or -1. */
  long keyServiceCallsSqlMetric() {
    try {
      spark.sparkContext().listenerBus().waitUntilEmpty();
    } catch (java.util.concurrent.TimeoutException e) {
      return -1;
    }
    SQLAppStatusStore store = spark.sharedState().statusStore();
    SQLExecutionUIData last =
        CollectionConverters.asJava(store.executionsList()).stream()
            .max(Comparator.comparingLong(SQLExecutionUIData::executionId))
            .orElse(null);
    if (last == null) {
      return -1;
    }
    scala.collection.Map<Object, String> values = store.executionMetrics(last.executionId());
    // adaptive execution lists a node again in each plan version: count each metric once
    Map<Long, Long> byAccumulator = new LinkedHashMap<>();
    for (SQLPlanMetric metric : CollectionConverters.asJava(last.metrics())) {
      if (metric.name().equals(KeyServiceCallsMetric.DESCRIPTION)) {
        scala.Option<String> value = values.get(metric.accumulatorId());
        byAccumulator.put(
            metric.accumulatorId(), value.isDefined() ? Long.parseLong(value.get().trim()) : 0L);
      }
    }
    return byAccumulator.isEmpty()
        ? -1
        : byAccumulator.values().stream().mapToLong(Long::longValue).sum();
  }

  // ---------------------------------------------------------------------------------------------
  // variants

  abstract class Variant {
    final String key;
    final String label;
    final List<Job> writes = new ArrayList<>();
    final List<Job> fulls = new ArrayList<>();
    final List<Job> selectives = new ArrayList<>();
    long bytes;
    long files;
    long peakUsed;
    long maxAfterGc;
    Row fullResult;
    Row selectiveResult;
    String note = "";

    Variant(String key, String label) {
      this.key = key;
      this.label = label;
    }

    abstract Path dataDir();

    abstract void reset();

    abstract void write(Dataset<Row> data);

    abstract Row fullScan();

    abstract Row selectiveScan();

    long bytes() {
      return parquetFiles(dataDir())[1];
    }

    long fileCount() {
      return parquetFiles(dataDir())[0];
    }
  }

  final class PlainIceberg extends Variant {
    PlainIceberg() {
      super("a", "plain Iceberg");
    }

    @Override
    Path dataDir() {
      return work.resolve("plain/db/base");
    }

    @Override
    void reset() {
      recreateIceberg("plain.db.base", COLUMNS_DDL, dataDir());
    }

    @Override
    void write(Dataset<Row> data) {
      try {
        data.writeTo("plain.db.base").append();
      } catch (Exception e) {
        throw new IllegalStateException(e);
      }
    }

    @Override
    Row fullScan() {
      return aggregate("plain.db.base", null);
    }

    @Override
    Row selectiveScan() {
      return aggregate("plain.db.base", selectiveFilter());
    }
  }

  final class Protected extends Variant {
    Protected() {
      super("b", "protected (Iceberg Protector)");
    }

    @Override
    Path dataDir() {
      return work.resolve("prot/db/protected");
    }

    @Override
    void reset() {
      recreateIceberg("prot.db.protected", COLUMNS_DDL, dataDir());
    }

    @Override
    void write(Dataset<Row> data) {
      try {
        data.writeTo("prot.db.protected").append();
      } catch (Exception e) {
        throw new IllegalStateException(e);
      }
      note("write", keyServiceCallsSqlMetric());
    }

    @Override
    Row fullScan() {
      Row row = asReader(() -> aggregate("prot.db.protected", null));
      note("scan", keyServiceCallsSqlMetric());
      return row;
    }

    @Override
    Row selectiveScan() {
      return asReader(() -> aggregate("prot.db.protected", selectiveFilter()));
    }

    /** Scans as the clear owner, or as the masked analyst with {@code --reader masked}. */
    private Row asReader(Supplier<Row> scan) {
      if (!options.masked) {
        return scan.get();
      }
      String user = "spark.sql.catalog.prot.protector.user";
      spark.conf().set(user, ANALYST);
      try {
        return scan.get();
      } finally {
        spark.conf().set(user, OWNER);
      }
    }

    private void note(String what, long metric) {
      String text = what + " SQL metric '" + KeyServiceCallsMetric.DESCRIPTION + "' = " + metric;
      if (!note.contains(what + " SQL")) {
        note = note.isEmpty() ? text : note + "; " + text;
      } else {
        note = note.replaceAll(what + " SQL metric '[^']*' = -?\\d+", text);
      }
    }
  }

  final class NativeParquet extends Variant {
    NativeParquet() {
      super("c", "Spark native Parquet encryption");
    }

    @Override
    Path dataDir() {
      return work.resolve("native/t");
    }

    private Map<String, String> crypto() {
      Map<String, String> settings = new LinkedHashMap<>();
      settings.put(
          "parquet.crypto.factory.class",
          "org.apache.parquet.crypto.keytools.PropertiesDrivenCryptoFactory");
      settings.put(
          "parquet.encryption.kms.client.class", ProtectorUnshadedKmsClient.class.getName());
      settings.put("parquet.encryption.kms.instance.id", spec.kms().endpoint());
      settings.put("parquet.encryption.key.access.token", spec.keyScope().handle());
      return settings;
    }

    @Override
    void reset() {
      deleteRecursively(dataDir());
    }

    @Override
    void write(Dataset<Row> data) {
      data.write()
          .options(crypto())
          .option("parquet.encryption.footer.key", "footer")
          .option("parquet.encryption.column.keys", "pii:ssn,email;fin:salary")
          .parquet(dataDir().toString());
    }

    private String view() {
      spark
          .read()
          .options(crypto())
          .parquet(dataDir().toString())
          .createOrReplaceTempView("native_t");
      return "native_t";
    }

    @Override
    Row fullScan() {
      return aggregate(view(), null);
    }

    @Override
    Row selectiveScan() {
      return aggregate(view(), selectiveFilter());
    }
  }

  final class AesColumns extends Variant {
    AesColumns() {
      super("d", "aes_encrypt columns (DIY)");
    }

    @Override
    Path dataDir() {
      return work.resolve("plain/db/diy");
    }

    @Override
    void reset() {
      recreateIceberg("plain.db.diy", DIY_COLUMNS_DDL, dataDir());
    }

    /** What a do-it-yourself job does: fetch its data keys (hex) from the key service. */
    private String[] keys() {
      KeyService keys = KeyServiceRegistry.obtain(spec.keyScope(), spec.policy());
      HexFormat hex = HexFormat.of();
      byte[] pii = keys.deriveKey("pii", DIY_CONTEXT);
      byte[] fin = keys.deriveKey("fin", DIY_CONTEXT);
      String[] result = {hex.formatHex(pii), hex.formatHex(fin)};
      Arrays.fill(pii, (byte) 0);
      Arrays.fill(fin, (byte) 0);
      return result;
    }

    @Override
    void write(Dataset<Row> data) {
      String[] k = keys();
      try {
        data.selectExpr(
                "id",
                "qty",
                "score",
                "aes_encrypt(CAST(CAST(salary AS STRING) AS BINARY), unhex('"
                    + k[1]
                    + "')) AS salary",
                "created",
                "updated",
                "name",
                "comment",
                "aes_encrypt(CAST(ssn AS BINARY), unhex('" + k[0] + "')) AS ssn",
                "aes_encrypt(CAST(email AS BINARY), unhex('" + k[0] + "')) AS email")
            .writeTo("plain.db.diy")
            .append();
      } catch (Exception e) {
        throw new IllegalStateException(e);
      }
    }

    private String decrypted() {
      String[] k = keys();
      return "(SELECT id, qty, score, created, updated, name, comment,"
          + " CAST(CAST(aes_decrypt(salary, unhex('"
          + k[1]
          + "')) AS STRING) AS DECIMAL(12,2))"
          + " AS salary,"
          + " CAST(aes_decrypt(ssn, unhex('"
          + k[0]
          + "')) AS STRING) AS ssn,"
          + " CAST(aes_decrypt(email, unhex('"
          + k[0]
          + "')) AS STRING) AS email"
          + " FROM plain.db.diy) diy";
    }

    @Override
    Row fullScan() {
      return aggregate(decrypted(), null);
    }

    @Override
    Row selectiveScan() {
      return aggregate(decrypted(), selectiveFilter());
    }
  }

  // ---------------------------------------------------------------------------------------------
  // report

  String report(List<Variant> variants) {
    Variant base = variants.stream().filter(v -> v.key.equals("a")).findFirst().orElse(null);
    StringBuilder sb = new StringBuilder();
    sb.append(
        String.format(
            Locale.ROOT,
            "Iceberg Protector benchmark: %,d rows x 10 columns (3 protected under 2 keys + footer"
                + " key), %s reader of (b), %s, %d partitions, %d repetitions after %d warm-up"
                + " round(s), median seconds; Java %s, Spark %s%n%n",
            options.rows,
            options.masked ? "masked" : "clear",
            options.master,
            options.partitions,
            options.reps,
            options.warmup,
            System.getProperty("java.version"),
            spark.version()));
    sb.append(
        "| variant | write s | x(a) | full scan s | x(a) | selective scan s | x(a) | data MB"
            + " (files) | x(a) | key-service calls write / full / selective |\n");
    sb.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    for (Variant v : variants) {
      sb.append(
          String.format(
              Locale.ROOT,
              "| (%s) %s | %.2f | %s | %.2f | %s | %.3f | %s | %.1f (%d) | %s | %d / %d / %d |%n",
              v.key,
              v.label,
              median(v.writes),
              ratio(v.writes, base == null ? null : base.writes),
              median(v.fulls),
              ratio(v.fulls, base == null ? null : base.fulls),
              median(v.selectives),
              ratio(v.selectives, base == null ? null : base.selectives),
              v.bytes / 1e6,
              v.files,
              base == null
                  ? "-"
                  : String.format(Locale.ROOT, "%.3f", (double) v.bytes / base.bytes),
              last(v.writes).calls,
              last(v.fulls).calls,
              last(v.selectives).calls));
    }
    Variant b = find(variants, "b");
    Variant d = find(variants, "d");
    sb.append('\n');
    sb.append(
        "Seconds: medians over the rounds. x(a): median over the rounds of the ratio to (a) in"
            + " the same round.\n");
    if (b != null && d != null) {
      sb.append(
          String.format(
              Locale.ROOT,
              "(d)/(b): write %sx, full scan %sx, selective scan %sx, data size %.2fx%n",
              ratio(d.writes, b.writes),
              ratio(d.fulls, b.fulls),
              ratio(d.selectives, b.selectives),
              (double) d.bytes / b.bytes));
    }
    if (b != null && !b.note.isEmpty()) {
      sb.append("(b) ").append(b.note).append('\n');
    }
    sb.append(checksums(options.masked ? withoutMasked(variants) : variants));
    if (options.masked && b != null) {
      sb.append("(b) masked reader's full-scan aggregates: ").append(b.fullResult).append('\n');
    }
    sb.append(
        "Key-service calls: per job with emptied key caches; one executor (local mode), so the"
            + " bound keys x executors is 3.\n");
    return sb.toString();
  }

  private static String checksums(List<Variant> variants) {
    Variant first = variants.get(0);
    List<String> differ = new ArrayList<>();
    for (Variant v : variants) {
      if (!String.valueOf(v.fullResult).equals(String.valueOf(first.fullResult))
          || !String.valueOf(v.selectiveResult).equals(String.valueOf(first.selectiveResult))) {
        differ.add(v.key);
      }
    }
    return differ.isEmpty()
        ? "Results: every variant returned the same aggregates.\n"
        : "WARNING: aggregates of "
            + differ
            + " differ from ("
            + first.key
            + "): "
            + first.fullResult
            + " vs "
            + variants.stream().map(v -> v.key + "=" + v.fullResult).toList()
            + "\n";
  }

  /** The masked reader of (b) sees other values: leave it out of the comparison of results. */
  private static List<Variant> withoutMasked(List<Variant> variants) {
    List<Variant> compared = variants.stream().filter(v -> !v.key.equals("b")).toList();
    return compared.isEmpty() ? variants.subList(0, 1) : compared;
  }

  private static Variant find(List<Variant> variants, String key) {
    return variants.stream().filter(v -> v.key.equals(key)).findFirst().orElse(null);
  }

  private static Job last(List<Job> jobs) {
    return jobs.get(jobs.size() - 1);
  }

  static double median(List<Job> jobs) {
    double[] values = jobs.stream().mapToDouble(j -> j.seconds).sorted().toArray();
    if (values.length == 0) {
      return Double.NaN;
    }
    int mid = values.length / 2;
    return values.length % 2 == 1 ? values[mid] : (values[mid - 1] + values[mid]) / 2;
  }

  /** Median of the per-round ratios {@code jobs[r] / base[r]}. */
  static String ratio(List<Job> jobs, List<Job> base) {
    if (base == null || base.size() != jobs.size() || jobs.isEmpty()) {
      return "-";
    }
    List<Job> ratios = new ArrayList<>();
    for (int i = 0; i < jobs.size(); i++) {
      ratios.add(new Job(jobs.get(i).seconds / base.get(i).seconds, 0, null));
    }
    return String.format(Locale.ROOT, "%.2f", median(ratios));
  }

  static void log(String format, Object... args) {
    System.err.printf(Locale.ROOT, "[bench] " + format + "%n", args);
  }

  @Override
  public void close() {
    heap.close();
    if (source != null && options.cached) {
      source.unpersist();
    }
    spark.stop();
    if (options.dir == null && !options.keep) {
      deleteRecursively(work);
    } else {
      log("kept %s", work);
    }
  }

  record Job(double seconds, long calls, Object result) {}

  /** Command-line options. */
  static class Options {
    long rows = 5_000_000L;
    int reps = 3;
    int warmup = 1;
    int partitions = 2;
    String master = "local[2]";
    String variants = "abcd";
    Path dir = null;
    boolean keep = false;
    boolean masked = false;
    boolean cached = true;
    boolean machine = false;

    static Options parse(String[] args) {
      Options o = new Options();
      for (int i = 0; i < args.length; i++) {
        int next = o.parseCommon(args, i);
        if (next >= 0) {
          i = next;
        } else if (args[i].equals("--variants")) {
          o.variants = value(args, ++i, args[i - 1]).replace(",", "").toLowerCase(Locale.ROOT);
        } else if (args[i].equals("--reader")) {
          String reader = value(args, ++i, args[i - 1]);
          if (!reader.equals("clear") && !reader.equals("masked")) {
            throw new IllegalArgumentException("--reader takes clear or masked: " + reader);
          }
          o.masked = reader.equals("masked");
        } else if (args[i].equals("--source")) {
          String source = value(args, ++i, args[i - 1]);
          if (!source.equals("cached") && !source.equals("generated")) {
            throw new IllegalArgumentException("--source takes cached or generated: " + source);
          }
          o.cached = source.equals("cached");
        } else if (args[i].equals("--machine")) {
          o.machine = true;
        } else if (args[i].equals("-h") || args[i].equals("--help")) {
          System.out.println(
              "usage: bin/benchmark [--rows N (5000000)] [--reps R (3)] [--warmup W (1)]"
                  + " [--partitions P (2)] [--master local[2]] [--variants abcd] [--dir PATH]"
                  + " [--reader clear|masked (clear)] [--source cached|generated (cached)]"
                  + " [--machine] [--keep]");
          System.exit(0);
        } else {
          throw new IllegalArgumentException("Unknown option: " + args[i] + " (try --help)");
        }
      }
      o.checkCommon();
      if (!o.variants.matches("[abcd]+")) {
        throw new IllegalArgumentException("--variants takes letters of abcd: " + o.variants);
      }
      return o;
    }

    /**
     * Reads the option at {@code args[i]} if it is one every benchmark takes: returns the index of
     * its last token, or -1 when it is not a common option.
     */
    int parseCommon(String[] args, int i) {
      String arg = args[i];
      switch (arg) {
        case "--rows":
          rows = Long.parseLong(value(args, i + 1, arg).replace("_", ""));
          return i + 1;
        case "--reps":
          reps = Integer.parseInt(value(args, i + 1, arg));
          return i + 1;
        case "--warmup":
          warmup = Integer.parseInt(value(args, i + 1, arg));
          return i + 1;
        case "--partitions":
          partitions = Integer.parseInt(value(args, i + 1, arg));
          return i + 1;
        case "--master":
          master = value(args, i + 1, arg);
          return i + 1;
        case "--dir":
          dir = Path.of(value(args, i + 1, arg));
          return i + 1;
        case "--keep":
          keep = true;
          return i;
        default:
          return -1;
      }
    }

    void checkCommon() {
      if (rows < 100 || reps < 1 || warmup < 0 || partitions < 1) {
        throw new IllegalArgumentException(
            "Invalid options: rows >= 100, reps >= 1, warmup >= 0, partitions >= 1");
      }
    }

    static String value(String[] args, int i, String option) {
      if (i >= args.length) {
        throw new IllegalArgumentException("Missing value for " + option);
      }
      return args[i];
    }
  }
}
