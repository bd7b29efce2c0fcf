/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.cli;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class SqlScriptTest {
  @Test
  void splitsAtSemicolonsOutsideQuotesAndComments() {
    assertThat(SqlScript.split("SELECT 1; SELECT 2;\n\n")).containsExactly("SELECT 1", "SELECT 2");
    assertThat(SqlScript.split("SELECT 'a;b', \"c;d\", `e;f` FROM t"))
        .containsExactly("SELECT 'a;b', \"c;d\", `e;f` FROM t");
    assertThat(SqlScript.split("SELECT 'it''s; fine', 'esc\\'; still'; SELECT 3"))
        .containsExactly("SELECT 'it''s; fine', 'esc\\'; still'", "SELECT 3");
    assertThat(SqlScript.split("-- comment; not a statement\nSELECT 1 /* a; b */ + 1;"))
        .containsExactly("SELECT 1   + 1");
    assertThat(SqlScript.split(" ; ;\n-- only comments\n")).isEmpty();
  }
}
