/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.spark.read;

import static org.assertj.core.api.Assertions.assertThat;

import io.icebergprotector.spark.core.ProtectionSpec;
import java.nio.file.Path;
import java.util.Set;
import org.apache.spark.sql.connector.expressions.Expression;
import org.apache.spark.sql.connector.expressions.Expressions;
import org.apache.spark.sql.connector.expressions.LiteralValue;
import org.apache.spark.sql.connector.expressions.filter.And;
import org.apache.spark.sql.connector.expressions.filter.Or;
import org.apache.spark.sql.connector.expressions.filter.Predicate;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.unsafe.types.UTF8String;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ProtectedFiltersTest {
  @TempDir static Path dir;
  static ReadFixture fixture;

  @BeforeAll
  static void setUp() {
    fixture = new ReadFixture(dir);
  }

  static Predicate eq(String column, String value) {
    return new Predicate(
        "=",
        new Expression[] {
          Expressions.column(column),
          new LiteralValue<>(UTF8String.fromString(value), DataTypes.StringType)
        });
  }

  static Predicate gt(String column, long value) {
    return new Predicate(
        ">",
        new Expression[] {
          Expressions.column(column), new LiteralValue<>(value, DataTypes.LongType)
        });
  }

  static Predicate isNull(String column) {
    return new Predicate("IS_NULL", new Expression[] {Expressions.column(column)});
  }

  private static ProtectedFilters split(String user, Predicate... predicates) {
    ProtectionSpec spec = fixture.spec("db.people", ReadFixture.SCHEMA, user);
    Set<Integer> hidden = ProtectedProjection.hiddenFieldIds(ReadFixture.SCHEMA, spec);
    return ProtectedFilters.split(predicates, ReadFixture.SCHEMA, hidden, false);
  }

  @Test
  void filtersOnVisibleColumnsArePushed() {
    Predicate byName = eq("name", "Ann");
    Predicate byId = gt("id", 1);
    Predicate byCity = eq("address.city", "Berlin");
    ProtectedFilters filters = split("bob", byName, byId, byCity);

    assertThat(filters.pushed()).containsExactly(byName, byId, byCity);
    assertThat(filters.withheld()).isEmpty();
    assertThat(filters.expression().toString()).contains("name").contains("id").contains("city");
  }

  @Test
  void filtersOnDeniedOrMaskedColumnsAreNeverPushed() {
    Predicate bySsn = eq("ssn", "123-45-6789"); // masked for bob
    Predicate byZip = eq("address.zip", "10115"); // masked (redact) for bob
    Predicate bySalaryNull = isNull("salary"); // denied for bob
    Predicate byName = eq("name", "Ann");
    Predicate mixed = new Or(eq("name", "Ann"), eq("ssn", "123-45-6789"));
    Predicate both = new And(eq("name", "Ann"), eq("email", "ann@example.com"));
    ProtectedFilters filters = split("bob", bySsn, byZip, bySalaryNull, byName, mixed, both);

    assertThat(filters.pushed()).containsExactly(byName);
    assertThat(filters.withheld()).containsExactly(bySsn, byZip, bySalaryNull, mixed, both);
    assertThat(filters.expression().toString()).doesNotContain("123-45-6789");
  }

  @Test
  void aClearReaderPushesFiltersOnProtectedColumns() {
    Predicate bySsn = eq("ssn", "123-45-6789");
    ProtectedFilters filters = split("alice", bySsn);

    assertThat(filters.pushed()).containsExactly(bySsn);
  }

  @Test
  void aReaderWithoutRolePushesOnlyUnprotectedColumns() {
    ProtectedFilters filters =
        split("carol", eq("ssn", "x"), eq("name", "x"), eq("address.zip", "x"));

    assertThat(filters.pushed()).hasSize(1);
    assertThat(filters.withheld()).hasSize(2);
  }

  @Test
  void predicatesThatDoNotConvertOrBindAreLeftToSpark() {
    Predicate unknownColumn = eq("nope", "x");
    Predicate unsupported =
        new Predicate("UNKNOWN_FN", new Expression[] {Expressions.column("name")});
    ProtectedFilters filters = split("alice", unknownColumn, unsupported);

    assertThat(filters.pushed()).isEmpty();
    assertThat(filters.withheld()).containsExactly(unknownColumn, unsupported);
  }
}
