/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.policy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SchemaAndLoadTest {
  static final String TEXT =
      """
      protector {
        roles { admin { users = [alice] }, analyst { users = [bob] } }
        keys { pii {}, fin {}, footer {} }
        tables {
          "db.customers" {
            footer-key = footer
            columns {
              ssn    { key = pii, clear = [admin], masked { analyst = "partial(keep_last=4)" } }
              salary { key = fin, masked { analyst = redact } }
              birth  { key = pii, masked { analyst = year } }
              "address.zip" { key = pii, clear = [admin] }
            }
          }
        }
      }
      """;
  static final Policy P = Policy.parse(TEXT, "schema.conf");

  static Map<String, ColumnType> schema() {
    Map<String, ColumnType> m = new LinkedHashMap<>();
    m.put("ssn", ColumnType.STRING);
    m.put("salary", ColumnType.DECIMAL);
    m.put("birth", ColumnType.DATE);
    m.put("Address.Zip", ColumnType.STRING);
    return m;
  }

  @Test
  void schemaFits() {
    P.validateSchema("DB.Customers", schema());
  }

  @Test
  void unknownColumn() {
    Map<String, ColumnType> s = schema();
    s.remove("Address.Zip");
    PolicyException e =
        catchThrowableOfType(PolicyException.class, () -> P.validateSchema("db.customers", s));
    assertThat(e.getMessage())
        .startsWith("schema.conf:11: protector.tables.\"db.customers\".columns.\"address.zip\": ")
        .contains("column 'address.zip' is not in the schema of table db.customers")
        .contains("ssn, salary, birth");
    assertThat(e.line()).isEqualTo(11);
  }

  @Test
  void partialOnLong() {
    Map<String, ColumnType> s = schema();
    s.put("ssn", ColumnType.LONG);
    PolicyException e =
        catchThrowableOfType(PolicyException.class, () -> P.validateSchema("db.customers", s));
    assertThat(e.getMessage())
        .startsWith("schema.conf:8: protector.tables.\"db.customers\".columns.ssn.masked.analyst: ")
        .contains(
            "mask 'partial(keep_last=4)' does not fit column 'ssn' of type LONG; partial applies to: STRING");
  }

  @Test
  void yearOnString() {
    Map<String, ColumnType> s = schema();
    s.put("birth", ColumnType.STRING);
    PolicyException e =
        catchThrowableOfType(PolicyException.class, () -> P.validateSchema("db.customers", s));
    assertThat(e.getMessage())
        .startsWith(
            "schema.conf:10: protector.tables.\"db.customers\".columns.birth.masked.analyst: ")
        .contains(
            "mask 'year' does not fit column 'birth' of type STRING; year applies to: DATE, TIMESTAMP");
  }

  @Test
  void redactOnStruct() {
    Map<String, ColumnType> s = schema();
    s.put("salary", ColumnType.STRUCT);
    assertThatThrownBy(() -> P.validateSchema("db.customers", s))
        .isInstanceOf(PolicyException.class)
        .hasMessageContaining("mask 'redact' does not fit column 'salary' of type STRUCT");
  }

  @Test
  void loadMissingFile(@TempDir Path dir) {
    Path missing = dir.resolve("nope.conf");
    PolicyException e = catchThrowableOfType(PolicyException.class, () -> Policy.load(missing));
    assertThat(e.getMessage()).isEqualTo(missing + ": policy file not found");
    assertThat(e.origin()).isEqualTo(missing.toString());
    assertThat(e.line()).isEqualTo(-1);
    assertThatThrownBy(() -> Policy.load(missing.toString()))
        .hasMessageContaining(missing.toString());
    assertThatThrownBy(() -> Policy.load("classpath:nope.conf"))
        .isInstanceOf(PolicyException.class)
        .hasMessage("classpath:nope.conf: policy resource not found on the classpath");
  }

  @Test
  void loadFromFileAndUrl(@TempDir Path dir) throws Exception {
    Path f = dir.resolve("p.conf");
    Files.writeString(f, TEXT, StandardCharsets.UTF_8);
    assertThat(Policy.load(f).origin()).isEqualTo(f.toString());
    assertThat(Policy.load(f.toString()).tables()).containsKey("db.customers");
    assertThat(Policy.load(f.toUri().toString()).tables()).containsKey("db.customers");
    assertThat(Policy.load(f.toUri().toURL()).tables()).containsKey("db.customers");
    Files.writeString(f, TEXT.replace("key = fin", "key = fim"), StandardCharsets.UTF_8);
    assertThatThrownBy(() -> Policy.load(f))
        .hasMessageStartingWith(
            f + ":9: protector.tables.\"db.customers\".columns.salary.key: unknown key 'fim'");
  }

  @Test
  void loadFromClasspath() {
    Policy p = Policy.load("classpath:test-policy.conf");
    assertThat(p.origin()).isEqualTo("classpath:test-policy.conf");
    assertThat(p.tables()).containsKey("db.t");
  }
}
