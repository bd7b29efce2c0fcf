/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.spark.flow;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.icebergprotector.spark.ProtectingSparkCatalog;
import io.icebergprotector.spark.SparkTestBase;
import io.icebergprotector.spark.core.CatalogOptions;
import io.icebergprotector.spark.core.ProtectorException;
import io.icebergprotector.spark.paths.PathProtection;
import io.icebergprotector.testing.TestPolicy;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.core.LogEvent;
import org.apache.logging.log4j.core.appender.AbstractAppender;
import org.apache.logging.log4j.core.config.Property;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * What protected reads may store: views are never written back as data, and declassification
 * happens only on purpose (a declassify role, the session setting, a WARN line). Catalog {@code
 * flow} and the {@code spark.protector.*} settings share one policy with a table, a second table,
 * an archive and a path prefix.
 */
class DataFlowTest extends SparkTestBase {
  private static final String CARD_1 = "CARD-CNRY-4242";
  private static final String SSN_1 = "SSN-CNRY-0001";

  private static Path dir;
  private static String prefix;

  static String policy(String prefix) {
    Consumer<TestPolicy.Column> ssnMaskedForAnalyst =
        c -> c.key("pii").clear("admin").masked("analyst", "partial(keep_last=4)");
    return TestPolicy.builder()
        .role("admin", "alice")
        .role("analyst", "bob")
        .role("etl", "etl")
        .role("auditor", "carl")
        .keys("pii", "fin", "footer")
        .table(
            "shop.orders",
            t ->
                t.footerKey("footer")
                    .writers("etl", "admin", "analyst")
                    .declassify("admin")
                    .column(
                        "card_number",
                        c ->
                            c.key("pii")
                                .clear("admin", "auditor")
                                .masked("analyst", "partial(keep_last=4)"))
                    .column("amount", c -> c.key("fin").clear("admin", "auditor")))
        .table(
            "shop.customers",
            t ->
                t.footerKey("footer")
                    .writers("etl", "admin", "analyst")
                    .declassify("admin")
                    .column("ssn", ssnMaskedForAnalyst))
        .table(
            "shop.archive",
            t ->
                t.footerKey("footer")
                    .writers("etl", "admin")
                    .column("card_number", c -> c.key("pii").clear("admin"))
                    .column("amount", c -> c.key("fin").clear("admin")))
        .table(
            "shop.vault",
            t ->
                t.footerKey("footer")
                    .writers("admin", "analyst")
                    .column("card_number", c -> c.key("pii").clear("admin")))
        .path(
            prefix,
            p ->
                p.footerKey("footer")
                    .writers("etl", "admin")
                    .declassify("admin")
                    .column("ssn", ssnMaskedForAnalyst))
        .render();
  }

  @BeforeAll
  static void flowCatalog() throws IOException {
    dir = Files.createTempDirectory("protector-flow").toRealPath();
    prefix = "file:" + dir.resolve("pii") + "/";
    Path flowPolicy = dir.resolve("flow-policy.conf");
    Files.writeString(flowPolicy, policy(prefix));
    String c = "spark.sql.catalog.flow";
    spark.conf().set(c, ProtectingSparkCatalog.class.getName());
    spark.conf().set(c + ".type", "hadoop");
    spark.conf().set(c + ".warehouse", dir.resolve("warehouse").toUri().toString());
    spark.conf().set(c + ".cache-enabled", "false");
    for (String scope : List.of(c + ".", "spark.")) {
      spark.conf().set(scope + "protector.policy", flowPolicy.toString());
      spark.conf().set(scope + "protector.kms.keystore", keystore.toString());
      spark.conf().set(scope + "protector.kms.passphrase-file", passphraseFile.toString());
      spark.conf().set(scope + "protector.kms.create-missing-keys", "true");
    }
    PathProtection.forgetCachedKeys();
    as(
        "alice",
        () -> {
          spark.sql("CREATE NAMESPACE IF NOT EXISTS flow.shop");
          spark.sql(
              "CREATE TABLE flow.shop.orders (order_id BIGINT, card_number STRING, amount"
                  + " DECIMAL(10,2), note STRING) USING iceberg");
          spark.sql(
              "CREATE TABLE flow.shop.customers (id BIGINT, name STRING, ssn STRING) USING"
                  + " iceberg");
          spark.sql(
              "CREATE TABLE flow.shop.archive (order_id BIGINT, card_number STRING, amount"
                  + " DECIMAL(10,2)) USING iceberg");
          spark.sql("CREATE TABLE flow.shop.plain (id BIGINT, v STRING) USING iceberg");
        });
    as(
        "etl",
        () -> {
          spark.sql(
              "INSERT INTO flow.shop.orders VALUES (1, '"
                  + CARD_1
                  + "', 12.50, 'first'), (2, 'CARD-CNRY-1111', 7.00, 'second')");
          spark.sql(
              "INSERT INTO flow.shop.customers VALUES (1, 'Ada', '"
                  + SSN_1
                  + "'), (2, 'Bo', 'SSN-CNRY-0002')");
          spark
              .sql("SELECT CAST(1 AS BIGINT) AS id, 'Ada' AS name, '" + SSN_1 + "' AS ssn")
              .write()
              .parquet(prefix + "people");
        });
  }

  /** The policy's path prefix, after {@link #flowCatalog()}. */
  static String prefix() {
    return prefix;
  }

  @AfterEach
  void declassifyOff() {
    spark.conf().unset(CatalogOptions.DECLASSIFY.key());
  }

  /** Runs as {@code user}, for catalog {@code flow} and for paths. */
  static void as(String user, Runnable action) {
    String catalogUser = "spark.sql.catalog.flow.protector.user";
    spark.conf().set(catalogUser, user);
    spark.conf().set("spark.protector.user", user);
    try {
      action.run();
    } finally {
      spark.conf().set(catalogUser, "alice");
      spark.conf().set("spark.protector.user", "alice");
    }
  }

  static <T> T as(String user, Supplier<T> action) {
    Object[] result = new Object[1];
    as(
        user,
        () -> {
          result[0] = action.get();
        });
    @SuppressWarnings("unchecked")
    T value = (T) result[0];
    return value;
  }

  /** A DataFrameWriterV2 call, whose checked exceptions are not the point here. */
  private interface V2Write {
    void run() throws Exception;
  }

  private static Runnable v2(V2Write write) {
    return () -> {
      try {
        write.run();
      } catch (RuntimeException e) {
        throw e;
      } catch (Exception e) {
        throw new IllegalStateException(e);
      }
    };
  }

  private static void sql(String user, String query) {
    as(
        user,
        () -> {
          spark.sql(query);
        });
  }

  private static long orders() {
    return as("alice", () -> spark.sql("SELECT count(*) FROM flow.shop.orders").first().getLong(0));
  }

  private static long snapshots(String table) {
    return as(
        "alice",
        () -> spark.sql("SELECT count(*) FROM flow." + table + ".snapshots").first().getLong(0));
  }

  private static boolean exists(String table) {
    return as("alice", () -> spark.catalog().tableExists(table));
  }

  // ------------------------------------------------------------------ views are never data

  @Test
  void deniedWriterCannotStoreItsNullsOverProtectedValues() {
    long rows = orders();
    long snaps = snapshots("shop.orders");
    assertThatThrownBy(
            () ->
                sql(
                    "etl",
                    "INSERT INTO flow.shop.orders SELECT order_id + 500, card_number, amount, note"
                        + " FROM flow.shop.orders WHERE order_id = 1"))
        .isInstanceOf(ProtectorException.class)
        .hasMessageContaining(
            "Cannot write to protected table flow.shop.orders: it would store protector views")
        .hasMessageContaining(
            "column 'card_number' <- column 'card_number' of table flow.shop.orders,"
                + " read by etl as denied (reads as NULL)")
        .hasMessageContaining(
            "column 'amount' <- column 'amount' of table flow.shop.orders,"
                + " read by etl as denied (reads as NULL)")
        .hasMessageContaining("'card_number' of table flow.shop.orders: [admin, auditor]")
        .satisfies(e -> assertThat(e.getMessage()).doesNotContain("\n", CARD_1));
    assertThat(orders()).isEqualTo(rows);
    assertThat(snapshots("shop.orders")).as("nothing committed").isEqualTo(snaps);
  }

  @Test
  void maskedWriterCannotStoreMasksAsData() {
    assertThatThrownBy(
            () ->
                sql(
                    "bob",
                    "INSERT INTO flow.shop.orders SELECT order_id + 500, card_number, amount, note"
                        + " FROM flow.shop.orders WHERE order_id = 1"))
        .isInstanceOf(ProtectorException.class)
        .hasMessageContaining(
            "column 'card_number' <- column 'card_number' of table flow.shop.orders,"
                + " read by bob as masked (partial(keep_last=4))")
        .hasMessageContaining(
            "column 'amount' <- column 'amount' of table flow.shop.orders,"
                + " read by bob as denied (reads as NULL)");
    // an expression over a masked view is no better
    assertThatThrownBy(
            () ->
                sql(
                    "bob",
                    "INSERT INTO flow.shop.orders SELECT order_id + 500, concat('x', card_number),"
                        + " NULL, note FROM flow.shop.orders WHERE order_id = 1"))
        .isInstanceOf(ProtectorException.class)
        .hasMessageContaining(
            "column 'card_number' <- column 'card_number' of table flow.shop.orders,"
                + " read by bob as masked (partial(keep_last=4))");
  }

  @Test
  void viewsFromAnotherProtectedTableAreRefusedToo() {
    for (String user : List.of("etl", "bob")) {
      String access =
          user.equals("etl") ? "denied (reads as NULL)" : "masked (partial(keep_last=4))";
      assertThatThrownBy(
              () ->
                  sql(
                      user,
                      "INSERT INTO flow.shop.orders SELECT id + 600, ssn, NULL, name FROM"
                          + " flow.shop.customers"))
          .isInstanceOf(ProtectorException.class)
          .hasMessageContaining(
              "column 'card_number' <- column 'ssn' of table flow.shop.customers, read by "
                  + user
                  + " as "
                  + access)
          .hasMessageContaining("'ssn' of table flow.shop.customers: [admin]");
    }
    // the same through a temp view
    as("etl", () -> spark.table("flow.shop.customers").createOrReplaceTempView("customers_view"));
    assertThatThrownBy(
            () ->
                sql(
                    "etl",
                    "INSERT INTO flow.shop.orders SELECT id + 600, ssn, NULL, name FROM"
                        + " customers_view"))
        .isInstanceOf(ProtectorException.class)
        .hasMessageContaining(
            "column 'card_number' <- column 'ssn' of table flow.shop.customers, read by etl");
  }

  @Test
  void aDataFrameIsCheckedAsThePrincipalThatRunsIt() {
    // built by alice, who reads card numbers in clear; etl's write would scan them as NULLs
    Dataset<Row> built =
        as(
            "alice",
            () ->
                spark
                    .table("flow.shop.orders")
                    .where("order_id = 1")
                    .selectExpr("order_id + 800 AS order_id", "card_number", "amount", "note"));
    assertThatThrownBy(() -> as("etl", v2(() -> built.writeTo("flow.shop.orders").append())))
        .isInstanceOf(ProtectorException.class)
        .hasMessageContaining(
            "column 'card_number' <- column 'card_number' of table flow.shop.orders,"
                + " read by etl as denied (reads as NULL)");
  }

  @Test
  void realNullsAndUnprotectedColumnsAreFine() {
    long rows = orders();
    sql(
        "etl",
        "INSERT INTO flow.shop.orders SELECT order_id + 900, NULL, NULL, note FROM flow.shop.orders"
            + " WHERE order_id = 1");
    sql("etl", "INSERT INTO flow.shop.orders VALUES (902, NULL, NULL, 'values')");
    assertThat(orders()).isEqualTo(rows + 2);
    List<Row> written =
        as(
            "alice",
            () ->
                spark
                    .sql(
                        "SELECT card_number, amount, note FROM flow.shop.orders WHERE order_id >="
                            + " 900 ORDER BY order_id")
                    .collectAsList());
    assertThat(written)
        .extracting(r -> r.isNullAt(0), r -> r.isNullAt(1), r -> r.getString(2))
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple(true, true, "first"),
            org.assertj.core.groups.Tuple.tuple(true, true, "values"));
  }

  @Test
  void clearValuesMayMoveBetweenProtectedColumns() {
    sql(
        "alice",
        "INSERT INTO flow.shop.archive SELECT order_id, card_number, amount FROM flow.shop.orders"
            + " WHERE order_id = 1");
    assertThat(
            as(
                "alice",
                () ->
                    spark
                        .sql("SELECT card_number FROM flow.shop.archive WHERE order_id = 1")
                        .first()
                        .getString(0)))
        .isEqualTo(CARD_1);
    // a new table the policy lists protects what CTAS stores in it, for clear readers only
    assertThatThrownBy(
            () ->
                sql(
                    "bob",
                    "CREATE TABLE flow.shop.vault USING iceberg AS SELECT order_id, card_number"
                        + " FROM flow.shop.orders"))
        .isInstanceOf(ProtectorException.class)
        .hasMessageContaining(
            "Cannot write to protected table flow.shop.vault: it would store protector views")
        .hasMessageContaining("read by bob as masked (partial(keep_last=4))");
    assertThat(exists("flow.shop.vault")).isFalse();
    sql(
        "alice",
        "CREATE TABLE flow.shop.vault USING iceberg AS SELECT order_id, card_number FROM"
            + " flow.shop.orders");
    assertThat(
            as(
                "bob",
                () ->
                    spark
                        .sql("SELECT card_number FROM flow.shop.vault WHERE order_id = 1")
                        .first()
                        .isNullAt(0)))
        .as("bob has no role on shop.vault")
        .isTrue();
    // ...but not into a column the destination leaves in plaintext
    assertThatThrownBy(
            () ->
                sql(
                    "alice",
                    "INSERT INTO flow.shop.orders SELECT order_id + 100, card_number, amount,"
                        + " upper(card_number) FROM flow.shop.orders WHERE order_id = 1"))
        .isInstanceOf(ProtectorException.class)
        .hasMessageContaining(
            "Cannot write to protected table flow.shop.orders: it would declassify")
        .hasMessageContaining(
            "column 'note' <- column 'card_number' of table flow.shop.orders, read by alice as"
                + " clear");
  }

  // ------------------------------------------------------------- declassification on purpose

  /** Captures the WARN lines of allowed declassifications. */
  private static final class Capture extends AbstractAppender {
    final List<String> lines = new CopyOnWriteArrayList<>();

    Capture() {
      super("flow-capture", null, null, true, Property.EMPTY_ARRAY);
    }

    @Override
    public void append(LogEvent event) {
      lines.add(event.getLevel() + " " + event.getMessage().getFormattedMessage());
    }
  }

  private static List<String> logged(Runnable action) {
    org.apache.logging.log4j.core.Logger logger =
        (org.apache.logging.log4j.core.Logger) LogManager.getLogger(DeclassificationGate.LOGGER);
    Capture capture = new Capture();
    capture.start();
    logger.addAppender(capture);
    try {
      action.run();
    } finally {
      logger.removeAppender(capture);
      capture.stop();
    }
    return capture.lines;
  }

  private static void assertDeclassificationRefused(
      String user, Runnable write, String destination) {
    assertThatThrownBy(() -> as(user, write))
        .isInstanceOf(ProtectorException.class)
        .hasMessageContaining(
            "Cannot write to " + destination + ": it would declassify protected data")
        .hasMessageContaining(
            "column 'card_number' <- column 'card_number' of table flow.shop.orders, read by "
                + user
                + " as clear")
        .hasMessageContaining("shop.orders: declassify = [admin], which " + user)
        .hasMessageContaining(CatalogOptions.DECLASSIFY.key() + "=true")
        .satisfies(e -> assertThat(e.getMessage()).doesNotContain("\n", CARD_1));
  }

  /** Refused by default, refused without the role, allowed and logged with both. */
  private static void declassifyOnPurpose(Runnable write, String destination) {
    assertDeclassificationRefused("alice", write, destination);
    spark.conf().set(CatalogOptions.DECLASSIFY.key(), "true");
    assertDeclassificationRefused("carl", write, destination);
    List<String> lines = logged(() -> as("alice", write));
    assertThat(lines)
        .hasSize(1)
        .allSatisfy(
            line ->
                assertThat(line)
                    .startsWith(
                        "WARN Declassifying write: principal alice declassifies column(s)"
                            + " [card_number, amount] of table flow.shop.orders (policy entry"
                            + " shop.orders) into "
                            + destination)
                    .doesNotContain(CARD_1));
  }

  @Test
  void ctasIntoAnUnprotectedIcebergTableIsDeclassification() {
    Runnable ctas =
        () ->
            spark.sql(
                "CREATE TABLE flow.shop.orders_copy USING iceberg AS SELECT * FROM"
                    + " flow.shop.orders");
    declassifyOnPurpose(ctas, "new table flow.shop.orders_copy, which the policy does not protect");
    assertThat(
            as(
                "bob",
                () ->
                    spark
                        .sql("SELECT card_number FROM flow.shop.orders_copy WHERE order_id = 1")
                        .first()
                        .getString(0)))
        .as("declassified on purpose")
        .isEqualTo(CARD_1);
  }

  @Test
  void ctasUsingParquetIsDeclassification() {
    Path location = dir.resolve("v1").resolve("orders_pq");
    Runnable ctas =
        () ->
            spark.sql(
                "CREATE TABLE default.orders_pq USING parquet LOCATION '"
                    + location
                    + "' AS SELECT * FROM flow.shop.orders");
    declassifyOnPurpose(
        ctas,
        "table spark_catalog.default.orders_pq (USING parquet) at file://"
            + location
            + ", outside every protected path prefix");
  }

  @Test
  void parquetOutsideEveryPrefixIsDeclassification() {
    String out = "file:" + dir.resolve("out").resolve("orders");
    Runnable write = () -> spark.table("flow.shop.orders").write().parquet(out);
    declassifyOnPurpose(write, "path " + out + ", outside every protected path prefix");
    assertThat(
            as(
                "bob",
                () ->
                    spark
                        .read()
                        .parquet(out)
                        .where("order_id = 1")
                        .select("card_number")
                        .first()
                        .getString(0)))
        .isEqualTo(CARD_1);
  }

  @Test
  void countsCarryNoValues() {
    sql(
        "alice",
        "CREATE TABLE flow.shop.order_stats USING iceberg AS SELECT count(*) AS n,"
            + " count(card_number) AS cards, count(DISTINCT card_number) AS distinct_cards,"
            + " count(amount) FILTER (WHERE amount > 10) AS large FROM flow.shop.orders");
    assertThat(exists("flow.shop.order_stats")).isTrue();
    // conditions decide which rows, not which values: filters, join keys, grouping keys not output
    sql(
        "alice",
        "CREATE TABLE flow.shop.matched USING iceberg AS SELECT o.order_id, count(*) AS n FROM"
            + " flow.shop.orders o JOIN flow.shop.archive a ON o.card_number = a.card_number WHERE"
            + " o.card_number LIKE 'CARD%' GROUP BY o.order_id, o.amount ORDER BY o.order_id");
    assertThat(exists("flow.shop.matched")).isTrue();
    sql(
        "alice",
        "CREATE TABLE flow.shop.ranked USING iceberg AS SELECT order_id,"
            + " row_number() OVER (PARTITION BY card_number ORDER BY amount) AS r,"
            + " count(card_number) OVER (PARTITION BY order_id) AS c FROM flow.shop.orders");
    assertThat(exists("flow.shop.ranked")).isTrue();
  }

  @Test
  void everyOtherExpressionCarriesValues() {
    for (String expression :
        List.of(
            "sha2(card_number, 256)",
            "substr(card_number, 1, 3)",
            "upper(card_number)",
            "length(card_number)",
            "max(card_number)",
            "first(card_number) OVER (ORDER BY order_id)",
            "(SELECT max(card_number) FROM flow.shop.orders)")) {
      String table = "flow.shop.derived";
      assertThatThrownBy(
              () ->
                  sql(
                      "alice",
                      "CREATE TABLE "
                          + table
                          + " USING iceberg AS SELECT "
                          + expression
                          + " AS v FROM flow.shop.orders WHERE order_id < 100"))
          .as(expression)
          .isInstanceOf(ProtectorException.class)
          .hasMessageContaining(
              "column 'v' <- column 'card_number' of table flow.shop.orders, read by alice as"
                  + " clear");
      assertThat(exists(table)).isFalse();
    }
  }

  @Test
  void cachedDataFramesKeepTheirLineage() {
    Dataset<Row> cached =
        as(
            "alice",
            () -> spark.table("flow.shop.orders").selectExpr("order_id", "card_number", "amount"));
    cached.cache();
    try {
      assertThat(cached.count()).isPositive();
      assertThatThrownBy(
              () -> as("alice", v2(() -> cached.writeTo("flow.shop.cached_copy").create())))
          .isInstanceOf(ProtectorException.class)
          .hasMessageContaining(
              "new table flow.shop.cached_copy, which the policy does not protect")
          .hasMessageContaining(
              "column 'card_number' <- column 'card_number' of table flow.shop.orders");
    } finally {
      cached.unpersist();
    }
  }

  @Test
  void mergeIntoAnUnprotectedTableIsDeclassification() {
    assertThatThrownBy(
            () ->
                sql(
                    "alice",
                    "MERGE INTO flow.shop.plain t USING flow.shop.orders s ON t.id = s.order_id"
                        + " WHEN NOT MATCHED THEN INSERT (id, v) VALUES (s.order_id,"
                        + " s.card_number)"))
        .isInstanceOf(ProtectorException.class)
        .hasMessageContaining(
            "Cannot write to table flow.shop.plain, which the policy does not protect")
        .hasMessageContaining(
            "column 'v' <- column 'card_number' of table flow.shop.orders, read by alice as clear");
    // a protected column in the conditions only decides which rows
    sql(
        "alice",
        "MERGE INTO flow.shop.plain t USING flow.shop.orders s ON t.id = s.order_id WHEN NOT"
            + " MATCHED AND s.card_number IS NOT NULL THEN INSERT (id, v) VALUES (s.order_id,"
            + " 'seen')");
    assertThat(
            as(
                "alice",
                () ->
                    spark
                        .sql("SELECT count(*) FROM flow.shop.plain WHERE v = 'seen'")
                        .first()
                        .getLong(0)))
        .isPositive();
  }

  /**
   * Issue 30 item 4, as reported: a clear reader without declassify rights joins the protected
   * column with a table of every candidate value and stores the candidate column, which in each row
   * kept is the clear value. An equality ties that column to the protected one.
   */
  @Test
  void anEqualityCopiesTheValueItMatches() {
    spark
        .sql("SELECT lpad(CAST(id AS STRING), 6, '0') AS v FROM range(1000000)")
        .createOrReplaceTempView("every_six_digits");
    List<String> copies =
        List.of(
            "SELECT o.order_id, d.v FROM flow.shop.orders o JOIN every_six_digits d ON"
                + " o.card_number = d.v",
            "SELECT o.order_id, d.v FROM flow.shop.orders o JOIN every_six_digits d ON"
                + " d.v <=> o.card_number",
            "SELECT o.order_id, upper(d.v) FROM flow.shop.orders o, every_six_digits d WHERE"
                + " d.v = o.card_number",
            "SELECT 1, v FROM every_six_digits WHERE v IN (SELECT card_number FROM"
                + " flow.shop.orders)",
            "SELECT 1, d.v FROM every_six_digits d WHERE EXISTS (SELECT 1 FROM flow.shop.orders o"
                + " WHERE o.card_number = d.v)",
            "SELECT o.order_id, d.v FROM flow.shop.orders o JOIN every_six_digits d ON"
                + " substr(o.card_number, 1, 6) = d.v");
    for (String copy : copies) {
      long before = snapshots("shop.plain");
      assertThatThrownBy(() -> sql("carl", "INSERT INTO flow.shop.plain " + copy))
          .as(copy)
          .isInstanceOf(ProtectorException.class)
          .hasMessageContaining(
              "Cannot write to table flow.shop.plain, which the policy does not protect")
          .hasMessageContaining(
              "column 'v' <- column 'card_number' of table flow.shop.orders, read by carl as"
                  + " clear")
          .hasMessageContaining("shop.orders: declassify = [admin], which carl does not hold");
      assertThat(snapshots("shop.plain")).as("nothing committed").isEqualTo(before);
    }
  }

  /** A masked reader's equality ties the candidate to the mask: stored as data, it is refused. */
  @Test
  void anEqualityWithAMaskedViewIsAView() {
    spark
        .sql("SELECT * FROM VALUES ('**********4242'), ('CARD-CNRY-1111') AS t(v)")
        .createOrReplaceTempView("card_candidates");
    assertThatThrownBy(
            () ->
                sql(
                    "bob",
                    "INSERT INTO flow.shop.orders SELECT o.order_id + 500, d.v, NULL, NULL FROM"
                        + " flow.shop.orders o JOIN card_candidates d ON o.card_number = d.v"))
        .isInstanceOf(ProtectorException.class)
        .hasMessageContaining("it would store protector views as data")
        .hasMessageContaining(
            "column 'card_number' <- column 'card_number' of table flow.shop.orders,"
                + " read by bob as masked (partial(keep_last=4))");
  }

  /** Equalities on unprotected columns and on a denied view (NULL matches nothing) copy nothing. */
  @Test
  void equalitiesThatMatchNoProtectedValueCopyNothing() {
    spark
        .sql("SELECT * FROM VALUES ('first'), ('CARD-CNRY-1111') AS t(v)")
        .createOrReplaceTempView("note_candidates");
    sql(
        "carl",
        "INSERT INTO flow.shop.plain SELECT o.order_id + 900, d.v FROM flow.shop.orders o JOIN"
            + " note_candidates d ON o.note = d.v");
    sql(
        "etl",
        "INSERT INTO flow.shop.plain SELECT o.order_id + 950, d.v FROM flow.shop.orders o JOIN"
            + " note_candidates d ON o.card_number <=> d.v");
    assertThat(
            as(
                "alice",
                () ->
                    spark
                        .sql("SELECT id, v FROM flow.shop.plain WHERE id >= 900 ORDER BY id")
                        .collectAsList()
                        .toString()))
        .isEqualTo("[[901,first]]");
  }

  // ----------------------------------------------------------------------- plain Parquet paths

  @Test
  void pathViewsAreNeverWrittenAsData() {
    assertThatThrownBy(
            () ->
                as(
                    "bob",
                    v2(
                        () ->
                            spark
                                .read()
                                .parquet(prefix + "people")
                                .writeTo("flow.shop.customers")
                                .append())))
        .isInstanceOf(ProtectorException.class)
        .hasMessageContaining(
            "column 'ssn' <- column 'ssn' of path prefix "
                + prefix
                + ", read by bob as masked (partial(keep_last=4))");
    // a denied reader of a protected table may not fill a protected prefix with its NULLs
    assertThatThrownBy(
            () ->
                as(
                    "etl",
                    () ->
                        spark
                            .table("flow.shop.customers")
                            .write()
                            .mode("append")
                            .parquet(prefix + "people")))
        .isInstanceOf(ProtectorException.class)
        .hasMessageContaining("(protected path prefix " + prefix + ")")
        .hasMessageContaining(
            "column 'ssn' <- column 'ssn' of table flow.shop.customers, read by etl as denied");
  }

  @Test
  void pathDataLeavesItsPrefixOnlyOnPurpose() {
    String out = "file:" + dir.resolve("out").resolve("people");
    Runnable write = () -> spark.read().parquet(prefix + "people").write().parquet(out);
    assertThatThrownBy(() -> as("alice", write))
        .isInstanceOf(ProtectorException.class)
        .hasMessageContaining(
            "column 'ssn' <- column 'ssn' of path prefix " + prefix + ", read by alice as clear");
    spark.conf().set(CatalogOptions.DECLASSIFY.key(), "true");
    List<String> lines = logged(() -> as("alice", write));
    assertThat(lines)
        .singleElement()
        .asString()
        .contains("principal alice declassifies column(s) [ssn] of path prefix " + prefix)
        .doesNotContain(SSN_1);
    // clear values into a protected prefix stay protected: no declassification
    spark.conf().unset(CatalogOptions.DECLASSIFY.key());
    as(
        "alice",
        () -> spark.table("flow.shop.customers").write().mode("append").parquet(prefix + "copies"));
  }
}
