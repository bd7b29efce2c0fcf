/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.spark.read;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.icebergprotector.policy.Principal;
import io.icebergprotector.spark.ProtectingSparkCatalog;
import io.icebergprotector.spark.SparkTestBase;
import io.icebergprotector.spark.core.ProtectionSpec;
import io.icebergprotector.spark.core.ProtectorContext;
import io.icebergprotector.spark.crypto.ProtectorCrypto;
import io.icebergprotector.spark.masks.ExpectedMasks;
import io.icebergprotector.spark.read.TestTables.Person;
import java.math.BigDecimal;
import java.time.LocalDate;
import java.util.List;
import org.apache.iceberg.Table;
import org.apache.iceberg.spark.source.SparkTable;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.connector.catalog.Identifier;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * SQL reads through the protector catalog {@code prot} of a table holding a plaintext file (written
 * before protection) and a PME-encrypted file. Users of the test policy: alice (admin: clear), bob
 * (analyst: ssn partial, email hash, salary and address.zip denied), etl (no read role).
 */
class ProtectedReadSqlTest extends SparkTestBase {
  static final List<Person> PLAIN =
      List.of(
          new Person(
              1,
              "Ann",
              "123-45-6789",
              "ann@example.com",
              new BigDecimal("1234.50"),
              LocalDate.of(1990, 5, 17),
              "Berlin",
              "10115",
              List.of("a")),
          new Person(2, "Bob", null, null, null, null, null, null, null));
  static final List<Person> ENCRYPTED =
      List.of(
          new Person(
              11,
              "Dan",
              "111-22-3333",
              "dan@example.com",
              new BigDecimal("500.00"),
              LocalDate.of(1970, 1, 2),
              "Rome",
              "00100",
              List.of("t1")),
          new Person(
              12,
              "Eve",
              "444-55-6666",
              "eve@example.com",
              new BigDecimal("99.99"),
              LocalDate.of(2001, 2, 3),
              "Oslo",
              "0150",
              List.of()));

  static Table table;
  static long firstSnapshot;
  static String encryptedLocation;

  @BeforeAll
  static void createTable() throws Exception {
    spark.sql(
        "CREATE TABLE prot.db.customers (id bigint NOT NULL, name string, ssn string, email string,"
            + " salary decimal(10,2), birth date, address struct<city: string, zip: string>,"
            + " tags array<string>) USING iceberg");
    spark.sql("CREATE TABLE prot.db.strict (id bigint, salary decimal(10,2)) USING iceberg");
    table = icebergTable("customers");
    // The files below are appended as protector versions before file binding wrote them, so the
    // table must predate binding too: without the boundary they read as legacy files.
    table
        .updateProperties()
        .remove(io.icebergprotector.spark.binding.BindingBoundary.PROPERTY)
        .commit();
    TestTables.appendPlaintext(table, PLAIN);
    firstSnapshot = table.currentSnapshot().snapshotId();
    encryptedLocation = TestTables.appendEncrypted(table, spec("etl"), ENCRYPTED, 1).location();
  }

  static ProtectingSparkCatalog catalog() {
    return (ProtectingSparkCatalog) spark.sessionState().catalogManager().catalog("prot");
  }

  static Table icebergTable(String name) throws Exception {
    return ((SparkTable) catalog().loadTable(Identifier.of(new String[] {"db"}, name))).table();
  }

  static ProtectionSpec spec(String user) {
    ProtectorContext context = catalog().protectorContext();
    return ProtectionSpec.resolve(
        context,
        context.policy().table("db.customers").orElseThrow(),
        table.schema(),
        Principal.user(user));
  }

  static List<Long> ids(List<Row> rows) {
    return rows.stream().map(r -> r.getLong(0)).sorted().toList();
  }

  @Test
  void eachPrincipalSeesItsView() {
    String query =
        "SELECT id, name, ssn, email, salary, address.zip FROM prot.db.customers ORDER BY id";
    List<Row> alice = sqlAs("alice", query);
    List<Row> bob = sqlAs("bob", query);
    List<Row> etl = sqlAs("etl", query);

    assertThat(alice.get(0).getString(2)).isEqualTo("123-45-6789");
    assertThat(alice.get(2).getString(2)).isEqualTo("111-22-3333");
    assertThat(alice.get(2).getDecimal(4)).isEqualByComparingTo("500.00");
    assertThat(alice.get(2).getString(5)).isEqualTo("00100");

    byte[] hashKey = ProtectorCrypto.hashMaskKey(spec("bob"), "pii");
    assertThat(bob.get(0).getString(2)).isEqualTo("*******6789");
    assertThat(bob.get(2).getString(2)).isEqualTo("*******3333");
    assertThat(bob.get(2).getString(3))
        .isEqualTo(ExpectedMasks.hashHex(hashKey, "dan@example.com"));
    assertThat(bob.get(2).isNullAt(4)).isTrue();
    assertThat(bob.get(2).isNullAt(5)).isTrue();
    assertThat(bob.get(2).getString(1)).isEqualTo("Dan");

    for (Row row : etl) {
      for (int i = 2; i <= 5; i++) {
        assertThat(row.isNullAt(i)).isTrue();
      }
    }
    assertThat(ids(etl)).containsExactly(1L, 2L, 11L, 12L);
  }

  @Test
  void filtersOnHiddenColumnsBehaveLikeFiltersOnTheReturnedValues() {
    String bySalary = "SELECT id FROM prot.db.customers WHERE salary > 0";
    assertThat(ids(sqlAs("alice", bySalary))).containsExactly(1L, 11L, 12L);
    assertThat(sqlAs("bob", bySalary)).isEmpty();
    assertThat(ids(sqlAs("bob", "SELECT id FROM prot.db.customers WHERE salary IS NULL")))
        .containsExactly(1L, 2L, 11L, 12L);

    String bySsn = "SELECT id FROM prot.db.customers WHERE ssn = '444-55-6666'";
    assertThat(ids(sqlAs("alice", bySsn))).containsExactly(12L);
    assertThat(sqlAs("bob", bySsn)).isEmpty();
    assertThat(ids(sqlAs("bob", "SELECT id FROM prot.db.customers WHERE ssn = '*******6666'")))
        .containsExactly(12L);
    assertThat(sqlAs("etl", bySsn)).isEmpty();
  }

  @Test
  void filtersOnVisibleColumnsStillWork() {
    assertThat(ids(sqlAs("etl", "SELECT id FROM prot.db.customers WHERE name = 'Eve'")))
        .containsExactly(12L);
    assertThat(sqlAs("bob", "SELECT count(*) FROM prot.db.customers").get(0).getLong(0))
        .isEqualTo(4L);
  }

  @Test
  void explainShowsTheProtectedScan() {
    String plan =
        sqlAs("bob", "EXPLAIN SELECT id, ssn FROM prot.db.customers WHERE name = 'Eve'")
            .get(0)
            .getString(0);
    assertThat(plan).contains("ProtectedScan").contains("masked=[ssn:partial(keep_last=4)");
  }

  @Test
  void metadataColumnsAndTimeTravel() {
    List<Row> meta = sqlAs("bob", "SELECT id, _file, _pos FROM prot.db.customers WHERE id = 12");
    assertThat(meta.get(0).getString(1)).isEqualTo(encryptedLocation);
    assertThat(meta.get(0).getLong(2)).isEqualTo(1L);

    List<Row> old =
        sqlAs("alice", "SELECT id, ssn FROM prot.db.customers VERSION AS OF " + firstSnapshot);
    assertThat(ids(old)).containsExactly(1L, 2L);
  }

  @Test
  void onDeniedFailFailsTheQuery() {
    assertThatThrownBy(() -> sqlAs("bob", "SELECT id, salary FROM prot.db.strict"))
        .hasMessageContaining("bob")
        .hasMessageContaining("salary")
        .hasMessageContaining("on-denied = fail");
    assertThat(sqlAs("bob", "SELECT id FROM prot.db.strict")).isEmpty();
    assertThat(sqlAs("alice", "SELECT id, salary FROM prot.db.strict")).isEmpty();
  }
}
