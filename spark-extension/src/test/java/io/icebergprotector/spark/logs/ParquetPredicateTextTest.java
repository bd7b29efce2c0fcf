/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.spark.logs;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class ParquetPredicateTextTest {
  @Test
  void removesEveryValueAndKeepsColumnsAndOperators() {
    String logged =
        "Filtering using predicate: or(or(eq(ssn, Binary{\"S\\\"}N-1\"}),"
            + " gt(salary, 7100000000019)), and(noteq(id, -5), in(zip, [Binary{\"Z1\"},"
            + " Binary{\"Z2\"}])), eq(raw, Binary{3 reused bytes, [1, 2, 3]}))";
    assertThat(ParquetPredicateText.redact(logged))
        .isEqualTo(
            "Filtering using predicate: or(or(eq(ssn, Binary{<redacted>}),"
                + " gt(salary, <redacted>)), and(noteq(id, <redacted>), in(zip, [<redacted>])),"
                + " eq(raw, Binary{<redacted>}))");
  }

  @Test
  void leavesOtherMessagesAsTheyAre() {
    String message = "RecordReader initialized will read a total of 20 records.";
    assertThat(ParquetPredicateText.redact(message)).isSameAs(message);
  }
}
