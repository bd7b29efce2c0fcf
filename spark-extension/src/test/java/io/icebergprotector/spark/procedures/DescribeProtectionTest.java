/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.spark.procedures;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.icebergprotector.spark.SparkTestBase;
import io.icebergprotector.spark.core.ProtectorException;
import java.util.List;
import java.util.stream.Collectors;
import org.apache.spark.sql.Row;
import org.junit.jupiter.api.Test;

/** {@code CALL prot.system.describe_protection(...)}: each principal sees its own view. */
class DescribeProtectionTest extends SparkTestBase {

  private static List<String> describe(String user, String table) {
    return sqlAs(user, "CALL prot.system.describe_protection(table => '" + table + "')").stream()
        .map(DescribeProtectionTest::line)
        .collect(Collectors.toList());
  }

  private static String line(Row r) {
    return String.join(
        " ",
        r.getString(0),
        r.getString(1),
        String.valueOf(r.get(2)),
        String.valueOf(r.get(3)),
        r.getString(4),
        r.getString(5),
        String.valueOf(r.getBoolean(6)));
  }

  @Test
  void eachPrincipalSeesWhatItsReadsWouldGet() {
    assertThat(describe("alice", "db.customers"))
        .containsExactly(
            "ssn clear null null pii alice true",
            "email clear null null pii alice true",
            "salary clear null null fin alice true",
            "address.zip clear null null pii alice true");
    assertThat(describe("bob", "prot.db.customers"))
        .containsExactly(
            "ssn masked partial(keep_last=4) null pii bob false",
            "email masked hash null pii bob false",
            "salary denied null null fin bob false",
            "address.zip denied null null pii bob false");
    assertThat(describe("bob", "db.strict"))
        .containsExactly("salary denied null fail fin bob false");
    assertThat(describe("etl", "db.customers"))
        .allSatisfy(l -> assertThat(l).contains(" denied ").endsWith(" etl true"));
  }

  @Test
  void aTableOutsideThePolicyIsNamed() {
    assertThatThrownBy(() -> describe("alice", "db.not_listed"))
        .isInstanceOf(ProtectorException.class)
        .hasMessageContaining("table db.not_listed is not in the policy of catalog prot")
        .hasMessageContaining("none of its columns is protected");
  }
}
