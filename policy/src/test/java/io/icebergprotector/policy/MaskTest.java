/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.policy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.EnumSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class MaskTest {
  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        "null                     | NULL    | 0 | null",
        "redact                   | REDACT  | 0 | redact",
        "hash                     | HASH    | 0 | hash",
        "YEAR                     | YEAR    | 0 | year",
        "partial(keep_last=4)     | PARTIAL | 4 | partial(keep_last=4)",
        "' Partial( keep_last = 0 ) ' | PARTIAL | 0 | partial(keep_last=0)",
      })
  void parse(String spec, Mask.Kind kind, int keep, String canonical) {
    Mask m = Mask.parse(spec);
    assertThat(m.kind()).isEqualTo(kind);
    assertThat(m.keepLast()).isEqualTo(keep);
    assertThat(m.spec()).isEqualTo(canonical);
    assertThat(Mask.parse(m.spec())).isEqualTo(m);
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "sha1",
        "",
        "partial",
        "partial()",
        "partial(keep_last=-1)",
        "partial(keep_last=x)",
        "partial(keep_first=2)",
        "partial(keep_last=4",
        "partial(keep_last=99999999999)",
        "nul"
      })
  void parseRejectsNamingTheSpec(String spec) {
    assertThatThrownBy(() -> Mask.parse(spec))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("'" + spec + "'");
  }

  @Test
  void parseNull() {
    assertThatThrownBy(() -> Mask.parse(null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("Mask spec is null");
    assertThatThrownBy(() -> Mask.partial(-1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("Invalid mask 'partial(keep_last=-1)': keep_last must be >= 0");
  }

  @Test
  void appliesTo() {
    EnumSet<ColumnType> all = EnumSet.allOf(ColumnType.class);
    assertThat(all).allMatch(Mask.nullMask()::appliesTo);
    assertThat(all.stream().filter(Mask.redact()::appliesTo))
        .containsExactlyInAnyOrder(
            ColumnType.STRING,
            ColumnType.BINARY,
            ColumnType.BOOLEAN,
            ColumnType.INT,
            ColumnType.LONG,
            ColumnType.FLOAT,
            ColumnType.DOUBLE,
            ColumnType.DECIMAL,
            ColumnType.DATE,
            ColumnType.TIMESTAMP);
    assertThat(all.stream().filter(Mask.partial(2)::appliesTo)).containsExactly(ColumnType.STRING);
    assertThat(all.stream().filter(Mask.year()::appliesTo))
        .containsExactlyInAnyOrder(ColumnType.DATE, ColumnType.TIMESTAMP);
    assertThat(all.stream().filter(Mask.hash()::appliesTo))
        .containsExactlyInAnyOrder(
            ColumnType.STRING,
            ColumnType.BINARY,
            ColumnType.INT,
            ColumnType.LONG,
            ColumnType.DECIMAL,
            ColumnType.DATE,
            ColumnType.TIMESTAMP);
    assertThat(Mask.hash().appliesTo(null)).isFalse();
    assertThat(Mask.year().applicableTypes()).isEqualTo("DATE, TIMESTAMP");
  }

  @Test
  void columnTypeNames() {
    assertThat(ColumnType.fromName("VARCHAR")).isEqualTo(ColumnType.STRING);
    assertThat(ColumnType.fromName("decimal(10,2)")).isEqualTo(ColumnType.DECIMAL);
    assertThat(ColumnType.fromName("bigint")).isEqualTo(ColumnType.LONG);
    assertThat(ColumnType.fromName("timestamptz")).isEqualTo(ColumnType.TIMESTAMP);
    assertThat(ColumnType.fromName("array<string>")).isEqualTo(ColumnType.LIST);
    assertThatThrownBy(() -> ColumnType.fromName("strng"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("'strng'");
  }
}
