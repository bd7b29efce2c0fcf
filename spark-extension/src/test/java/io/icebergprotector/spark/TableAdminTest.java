/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.spark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.icebergprotector.spark.core.RecordedColumns;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.apache.iceberg.PartitionField;
import org.apache.iceberg.Table;
import org.apache.iceberg.types.Types;
import org.apache.spark.sql.Row;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Who may change a protected table's definition, and which definitions are refused: the writer role
 * for every DDL, checks on field ids (renamed and nested columns), no sort order on protected
 * columns, and read-only protector properties.
 */
class TableAdminTest extends SparkTestBase {
  static final String T = "prot.db.customers";
  private static final String DDL =
      "CREATE TABLE "
          + T
          + " (id BIGINT NOT NULL, name STRING, ssn STRING, email STRING,"
          + " salary DECIMAL(10,2), address STRUCT<city: STRING, zip: STRING>, country STRING)"
          + " USING iceberg PARTITIONED BY (country)";
  private static final String WRITERS = "writer roles [admin, etl]";

  @BeforeAll
  static void sourceData() {
    spark.sql(
        "CREATE OR REPLACE TEMP VIEW admin_src AS SELECT id, concat('name', id) AS name,"
            + " concat('ADMIN-SSN-', id) AS ssn, concat('admin', id, '@example.test') AS email,"
            + " CAST(id * 10 AS DECIMAL(10,2)) AS salary,"
            + " named_struct('city', 'Lyon', 'zip', concat('ADMINZIP', id)) AS address,"
            + " CASE WHEN id % 2 = 0 THEN 'DE' ELSE 'FR' END AS country FROM range(1, 9)");
  }

  @BeforeEach
  void createTable() {
    spark.sql("DROP TABLE IF EXISTS " + T + " PURGE");
    spark.sql("DROP TABLE IF EXISTS prot.db.plain PURGE");
    spark.sql(DDL);
    spark.sql("INSERT INTO " + T + " SELECT * FROM admin_src");
  }

  private static Table table() {
    Table table = ProtectedTableTest.icebergTable();
    table.refresh();
    return table;
  }

  private static String aliceSsn(String column, long id) {
    return sqlAs("alice", "SELECT " + column + " FROM " + T + " WHERE id = " + id)
        .get(0)
        .getString(0);
  }

  // ------------------------------------------------------------- sort orders (issue 11 item 3)

  @Test
  void sortOrdersOnProtectedColumnsAreRefused() {
    Map<String, String> orders =
        Map.of(
            "WRITE ORDERED BY ssn", "ssn",
            "WRITE LOCALLY ORDERED BY ssn", "ssn",
            "WRITE ORDERED BY id, address.zip DESC", "address.zip",
            "WRITE DISTRIBUTED BY PARTITION ORDERED BY email", "email",
            "WRITE DISTRIBUTED BY PARTITION LOCALLY ORDERED BY salary", "salary",
            "WRITE ORDERED BY bucket(4, ssn)", "ssn",
            "WRITE ORDERED BY SSN", "ssn");
    orders.forEach(
        (order, column) ->
            assertRefused(
                () -> spark.sql("ALTER TABLE " + T + " " + order),
                "Cannot order protected table " + T + " by protected column '" + column + "'",
                "rank order"));
    // by field id: a renamed protected column stays refused
    spark.sql("ALTER TABLE " + T + " RENAME COLUMN ssn TO social");
    assertRefused(
        () -> spark.sql("ALTER TABLE " + T + " WRITE ORDERED BY social"),
        "by protected column 'social'");
    assertThat(table().sortOrder().isUnsorted()).isTrue();

    spark.sql("ALTER TABLE " + T + " WRITE ORDERED BY id, name DESC");
    assertThat(table().sortOrder().fields()).hasSize(2);
    spark.sql("INSERT INTO " + T + " SELECT * FROM admin_src");
    assertThat(spark.table(T).count()).isEqualTo(16);
    spark.sql("ALTER TABLE " + T + " WRITE UNORDERED");
    assertThat(table().sortOrder().isUnsorted()).isTrue();
  }

  @Test
  void aSortOrderSetOutsideSqlRefusesProtectedWrites() {
    // another engine or the Java API sorts the table by a protected column
    table().replaceSortOrder().asc("ssn").desc("id").commit();
    assertRefused(
        () -> spark.sql("INSERT INTO " + T + " SELECT * FROM admin_src"),
        "Table " + T + " has sort order [ssn ASC NULLS FIRST, id DESC NULLS LAST]",
        "protected column 'ssn'",
        "ALTER TABLE " + T + " WRITE UNORDERED");
    assertThat(spark.table(T).count()).isEqualTo(8);

    spark.sql("ALTER TABLE " + T + " WRITE UNORDERED");
    spark.sql("INSERT INTO " + T + " SELECT * FROM admin_src");
    assertThat(spark.table(T).count()).isEqualTo(16);
  }

  @Test
  void aSortOrderOnANestedProtectedFieldRefusesWrites() {
    table().replaceSortOrder().asc("address.zip").commit();
    assertRefused(
        () -> src().writeTo(T).append(), "protected column 'address.zip'", "WRITE UNORDERED");
  }

  private static org.apache.spark.sql.Dataset<Row> src() {
    return spark.table("admin_src");
  }

  // ------------------------------------------------------------- DDL needs the writer role

  @Test
  void definitionChangesNeedTheWriterRole() {
    Map<String, String> statements = new java.util.LinkedHashMap<>();
    statements.put(
        "ALTER TABLE " + T + " RENAME COLUMN ssn TO x", "ALTER TABLE (rename column ssn to x)");
    statements.put("ALTER TABLE " + T + " ADD COLUMN ssn2 STRING", "ALTER TABLE (add column ssn2)");
    statements.put("ALTER TABLE " + T + " DROP COLUMN email", "ALTER TABLE (drop column email)");
    statements.put(
        "ALTER TABLE " + T + " ALTER COLUMN salary TYPE DECIMAL(12,2)", "alter column salary");
    statements.put(
        "ALTER TABLE " + T + " SET TBLPROPERTIES ('write.format.default' = 'avro')",
        "set property write.format.default");
    statements.put("ALTER TABLE " + T + " SET LOCATION '/tmp/elsewhere'", "set property location");
    statements.put(
        "ALTER TABLE " + T + " ADD PARTITION FIELD bucket(4, id)", "ADD PARTITION FIELD");
    statements.put("ALTER TABLE " + T + " DROP PARTITION FIELD country", "DROP PARTITION FIELD");
    statements.put(
        "ALTER TABLE " + T + " REPLACE PARTITION FIELD country WITH bucket(2, country)",
        "REPLACE PARTITION FIELD");
    statements.put("ALTER TABLE " + T + " WRITE ORDERED BY id", "WRITE ORDERED BY id");
    statements.put(
        "ALTER TABLE " + T + " WRITE DISTRIBUTED BY PARTITION", "distribution mode hash");
    statements.put("ALTER TABLE " + T + " SET IDENTIFIER FIELDS id", "SET IDENTIFIER FIELDS id");
    statements.put("ALTER TABLE " + T + " DROP IDENTIFIER FIELDS id", "DROP IDENTIFIER FIELDS id");
    statements.put("ALTER TABLE " + T + " CREATE BRANCH audit", "CREATE BRANCH audit");
    statements.put("ALTER TABLE " + T + " CREATE OR REPLACE TAG v1", "CREATE OR REPLACE TAG v1");
    statements.put("ALTER TABLE " + T + " DROP BRANCH IF EXISTS audit", "DROP BRANCH audit");
    statements.put("ALTER TABLE " + T + " DROP TAG IF EXISTS v1", "DROP TAG v1");
    statements.put(
        "ALTER TABLE " + T + " RENAME TO db.customers_old",
        "RENAME TABLE db.customers TO db.customers_old");
    statements.put("DROP TABLE " + T, "DROP TABLE on");
    statements.put("DROP TABLE " + T + " PURGE", "DROP TABLE ... PURGE");
    statements.put(
        "CREATE OR REPLACE TABLE " + T + " (id BIGINT) USING iceberg", "CREATE OR REPLACE TABLE");
    statements.put(
        "REPLACE TABLE " + T + " USING iceberg AS SELECT * FROM admin_src", "REPLACE TABLE");
    long snapshots = spark.sql("SELECT * FROM " + T + ".snapshots").count();
    Table before = table();
    for (Map.Entry<String, String> statement : statements.entrySet()) {
      assertRefusedAs(
          "mallory",
          statement.getKey(),
          "Principal 'mallory' (roles [])",
          statement.getValue(),
          "protected table " + T,
          WRITERS);
    }
    // an analyst reads, but is not a writer
    assertRefusedAs(
        "bob",
        "ALTER TABLE " + T + " RENAME COLUMN ssn TO x",
        "Principal 'bob' (roles [analyst])",
        "rename column ssn to x",
        WRITERS);

    // nothing changed: alice still reads in clear, etl still writes
    Table after = table();
    assertThat(after.schema().sameSchema(before.schema())).isTrue();
    assertThat(after.spec()).isEqualTo(before.spec());
    assertThat(after.sortOrder().isUnsorted()).isTrue();
    assertThat(after.refs().keySet()).containsExactly("main");
    assertThat(after.properties()).isEqualTo(before.properties());
    assertThat(after.location()).isEqualTo(before.location());
    assertThat(spark.sql("SELECT * FROM " + T + ".snapshots").count()).isEqualTo(snapshots);
    assertThat(aliceSsn("ssn", 3)).isEqualTo("ADMIN-SSN-3");
    spark.sql("INSERT INTO " + T + " SELECT * FROM admin_src");
    assertThat(spark.table(T).count()).isEqualTo(16);
  }

  @Test
  void creatingAPolicyTableNeedsTheWriterRole() {
    spark.sql("DROP TABLE " + T + " PURGE");
    assertRefusedAs(
        "mallory", DDL, "Principal 'mallory'", "CREATE TABLE on protected table " + T, WRITERS);
    assertRefusedAs(
        "bob",
        "CREATE TABLE " + T + " USING iceberg AS SELECT * FROM admin_src",
        "Principal 'bob'",
        "CREATE TABLE",
        WRITERS);
    assertThat(spark.sql("SHOW TABLES IN prot.db LIKE 'customers'").count()).isZero();
    asUser("alice", () -> spark.sql(DDL));
    assertThat(table().schema().findField("ssn")).isNotNull();
  }

  @Test
  void writersChangeDefinitionsAsBefore() {
    spark.sql("ALTER TABLE " + T + " RENAME COLUMN ssn TO social");
    spark.sql("ALTER TABLE " + T + " ADD COLUMN note STRING");
    spark.sql("ALTER TABLE " + T + " ADD PARTITION FIELD bucket(4, id)");
    spark.sql("ALTER TABLE " + T + " WRITE ORDERED BY id");
    spark.sql("ALTER TABLE " + T + " SET IDENTIFIER FIELDS id");
    spark.sql(
        "ALTER TABLE " + T + " SET TBLPROPERTIES ('write.metadata.previous-versions-max' = '7')");
    spark.sql("ALTER TABLE " + T + " CREATE BRANCH audit");
    spark.sql("ALTER TABLE " + T + " CREATE TAG v1");
    Table table = table();
    assertThat(table.refs().keySet()).contains("audit", "v1");
    assertThat(table.schema().identifierFieldNames()).containsExactly("id");
    assertThat(table.spec().fields()).hasSize(2);
    spark.sql("ALTER TABLE " + T + " DROP TAG v1");
    spark.sql("ALTER TABLE " + T + " DROP BRANCH audit");
    spark.sql("ALTER TABLE " + T + " DROP IDENTIFIER FIELDS id");
    spark.sql(
        "INSERT INTO "
            + T
            + " SELECT id, name, ssn, email, salary, address, country, 'n' FROM admin_src");
    assertThat(aliceSsn("social", 5)).isEqualTo("ADMIN-SSN-5");
    assertThat(filesContaining("db.customers", "ADMIN-SSN-", "ADMINZIP")).isEmpty();
    assertThat(table().properties()).containsKey(RecordedColumns.PROPERTY);
    // an admin (also a writer) drops it
    asUser("alice", () -> spark.sql("DROP TABLE " + T + " PURGE"));
    assertThat(spark.sql("SHOW TABLES IN prot.db LIKE 'customers'").count()).isZero();
  }

  // ------------------------------------------------------------- field ids

  @Test
  void partitionChecksUseFieldIds() {
    spark.sql("ALTER TABLE " + T + " RENAME COLUMN ssn TO x");
    List<String> refused =
        List.of(
            "ADD PARTITION FIELD x",
            "ADD PARTITION FIELD truncate(2, x)",
            "ADD PARTITION FIELD X",
            "ADD PARTITION FIELD address.zip",
            "ADD PARTITION FIELD bucket(8, salary) AS salary_bucket",
            "REPLACE PARTITION FIELD country WITH x");
    for (String change : refused) {
      assertRefused(
          () -> spark.sql("ALTER TABLE " + T + " " + change),
          "Cannot partition protected table " + T + " by protected column",
          "plaintext");
    }
    assertThat(
            table().spec().fields().stream().map(PartitionField::name).collect(Collectors.toList()))
        .containsExactly("country");
  }

  @Test
  void protectedColumnsCannotBeIdentifierFields() {
    assertRefused(
        () -> spark.sql("ALTER TABLE " + T + " SET IDENTIFIER FIELDS id, ssn"),
        "protected column 'ssn' an identifier field of " + T,
        "equality-delete");
    assertThat(table().schema().identifierFieldIds()).isEmpty();
  }

  @Test
  void aPolicyNameCannotBeTakenOverByAnotherColumn() {
    spark.sql("ALTER TABLE " + T + " RENAME COLUMN ssn TO social");
    int socialId = table().schema().findField("social").fieldId();
    assertRefused(
        () -> spark.sql("ALTER TABLE " + T + " ADD COLUMN ssn STRING"),
        "ALTER TABLE (add column ssn) on protected table " + T,
        "column 'ssn' is protected as field id " + socialId + ", which is now named 'social'",
        "Rename 'social' back to 'ssn'");
    assertRefused(
        () -> spark.sql("ALTER TABLE " + T + " RENAME COLUMN name TO SSN"),
        "ALTER TABLE (rename column name to SSN)",
        "now named 'social'");
    // nested: the policy protects address.zip
    spark.sql("ALTER TABLE " + T + " RENAME COLUMN address.zip TO postcode");
    assertRefused(
        () -> spark.sql("ALTER TABLE " + T + " ADD COLUMN address.zip STRING"),
        "column 'address.zip' is protected as field id",
        "now named 'address.postcode'");
    Types.NestedField ssn = table().schema().findField("ssn");
    assertThat(ssn).as("no column took the policy's name").isNull();

    // protection stayed with the renamed fields
    spark.sql(
        "INSERT INTO "
            + T
            + " SELECT id + 100, name, ssn, email, salary, address, country FROM admin_src");
    assertThat(filesContaining("db.customers", "ADMIN-SSN-", "ADMINZIP")).isEmpty();
    assertThat(aliceSsn("social", 103)).isEqualTo("ADMIN-SSN-3");
    // renaming back is fine, and then the name is the field's again
    spark.sql("ALTER TABLE " + T + " RENAME COLUMN social TO ssn");
    assertThat(table().schema().findField("ssn").fieldId()).isEqualTo(socialId);
    assertThat(aliceSsn("ssn", 103)).isEqualTo("ADMIN-SSN-3");
  }

  // ------------------------------------------------------------- protector properties

  @Test
  void protectorPropertiesAreReadOnlyThroughSql() {
    String recorded = table().properties().get(RecordedColumns.PROPERTY);
    assertThat(recorded).contains("ssn=");
    for (String user : List.of("mallory", "etl", "alice")) {
      assertRefusedAs(
          user,
          "ALTER TABLE " + T + " UNSET TBLPROPERTIES ('protector.protected-columns')",
          "Cannot unset table property 'protector.protected-columns' of " + T,
          "belong to the protector");
      assertRefusedAs(
          user,
          "ALTER TABLE " + T + " SET TBLPROPERTIES ('protector.protected-columns' = 'ssn=999:pii')",
          "Cannot set table property 'protector.protected-columns' of " + T);
      assertRefusedAs(
          user,
          "ALTER TABLE " + T + " SET TBLPROPERTIES ('Protector.Anything' = 'x')",
          "Cannot set table property 'Protector.Anything'");
    }
    assertThat(table().properties().get(RecordedColumns.PROPERTY)).isEqualTo(recorded);

    // on unprotected tables and at creation too
    spark.sql("CREATE TABLE prot.db.plain (id BIGINT, ssn STRING) USING iceberg");
    assertRefused(
        () ->
            spark.sql(
                "ALTER TABLE prot.db.plain SET TBLPROPERTIES ('protector.protected-columns' = 'id=1:pii')"),
        "Cannot set table property 'protector.protected-columns' of prot.db.plain");
    assertRefused(
        () ->
            spark.sql(
                "CREATE TABLE prot.db.plain2 (id BIGINT) USING iceberg"
                    + " TBLPROPERTIES ('protector.protected-columns' = 'id=1:pii')"),
        "Cannot set table property 'protector.protected-columns' of prot.db.plain2");
    assertRefused(
        () ->
            spark.sql(
                "CREATE TABLE prot.db.plain2 (id BIGINT) USING iceberg OPTIONS ('protector.user' = 'alice')"),
        "Cannot set table property 'protector.user' of prot.db.plain2");
    assertRefused(
        () ->
            src()
                .writeTo("prot.db.plain2")
                .tableProperty(RecordedColumns.PROPERTY, "id=1:pii")
                .create(),
        "Cannot set table property 'protector.protected-columns' of prot.db.plain2");
    assertRefused(
        () ->
            src().writeTo(T).tableProperty(RecordedColumns.PROPERTY, "id=1:pii").createOrReplace(),
        "Cannot set table property 'protector.protected-columns' of " + T);
    assertThat(spark.sql("SHOW TABLES IN prot.db LIKE 'plain2'").count()).isZero();
    assertThat(ProtectedTableTest.catalog().protectorContext()).isNotNull();
    assertThat(aliceSsn("ssn", 2)).isEqualTo("ADMIN-SSN-2");
    spark.sql("DROP TABLE prot.db.plain PURGE");
  }

  @Test
  void sortOrderIsNotSettableThroughProperties() {
    // Iceberg reserves 'sort-order' (and Spark's CREATE TABLE has no sort order): only WRITE
    // ORDERED BY, guarded above, or the Java API, caught at write time, set one
    Throwable thrown =
        catchThrowable(
            () -> spark.sql("ALTER TABLE " + T + " SET TBLPROPERTIES ('sort-order' = 'ssn')"));
    assertThat(thrown).hasMessageContaining("sort-order");
    assertThat(table().sortOrder().isUnsorted()).isTrue();
  }
}
