/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.spark;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.icebergprotector.policy.Policy;
import io.icebergprotector.policy.TablePolicy;
import io.icebergprotector.spark.core.ProtectorException;
import io.icebergprotector.spark.core.StrictSchema;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.Test;

/** {@link StrictSchema}: which schemas a strict entry accepts. */
class StrictSchemaTest {
  static final Policy POLICY =
      Policy.parse(
          """
          protector {
            keys { pii {}, footer {} }
            paths {
              "s3a://b/strict/" {
                footer-key = footer, strict = true, plain-columns = [id, "meta", "address.city"]
                columns { ssn { key = pii }, "address.zip" { key = pii }, card { key = pii } }
              }
              "s3a://b/loose/" { footer-key = footer, columns { ssn { key = pii } } }
            }
          }
          """,
          "strict.conf");
  static final TablePolicy STRICT = POLICY.paths().get("s3a://b/strict/");
  static final TablePolicy LOOSE = POLICY.paths().get("s3a://b/loose/");

  static StructType schema(String ddl) {
    return StructType.fromDDL(ddl);
  }

  static void check(TablePolicy entry, String ddl) {
    StrictSchema.check(entry, schema(ddl), "s3a://b/strict/t", "strict.conf");
  }

  @Test
  void protectedAndPlainColumnsPass() {
    assertThatCode(
            () ->
                check(
                    STRICT,
                    "ID BIGINT, SSN STRING, address STRUCT<city: STRING, zip: STRING>,"
                        + " meta STRUCT<source: STRING, tags: ARRAY<STRING>>, card STRUCT<number: STRING, ssn: STRING>"))
        .doesNotThrowAnyException();
    // a loose entry takes anything
    assertThatCode(() -> check(LOOSE, "id BIGINT, person STRUCT<ssn: STRING>, note STRING"))
        .doesNotThrowAnyException();
  }

  @Test
  void undecidedColumnsAreRefused() {
    assertThatThrownBy(() -> check(STRICT, "id BIGINT, note STRING"))
        .isInstanceOf(ProtectorException.class)
        .hasMessageContaining("column 'note' is neither protected nor listed in plain-columns")
        .hasMessageContaining("strict entry s3a://b/strict/");
    assertThatThrownBy(() -> check(STRICT, "id BIGINT, ssn_ STRING"))
        .hasMessageContaining("column 'ssn_' is neither");
    assertThatThrownBy(
            () -> check(STRICT, "id BIGINT, address STRUCT<city: STRING, street: STRING>"))
        .hasMessageContaining("column 'address.street' is neither");
    assertThatThrownBy(() -> check(STRICT, "id BIGINT, attrs MAP<STRING, STRING>"))
        .hasMessageContaining("column 'attrs.key' is neither");
  }

  @Test
  void protectedNamesOutOfPlaceAreRefusedEvenInPlainColumns() {
    String nested = "is named like a protected column of strict entry";
    assertThatThrownBy(() -> check(STRICT, "id BIGINT, meta STRUCT<ssn: STRING>"))
        .isInstanceOf(ProtectorException.class)
        .hasMessageContaining("column 'meta.ssn' " + nested);
    assertThatThrownBy(
            () -> check(STRICT, "id BIGINT, meta STRUCT<people: ARRAY<STRUCT<SSN: STRING>>>"))
        .hasMessageContaining("column 'meta.people.SSN' " + nested);
    assertThatThrownBy(() -> check(STRICT, "id BIGINT, meta MAP<STRING, STRUCT<zip: STRING>>"))
        .hasMessageContaining("column 'meta.value.zip' " + nested);
    assertThatThrownBy(() -> check(STRICT, "id BIGINT, meta MAP<STRUCT<card: STRING>, STRING>"))
        .hasMessageContaining("column 'meta.key.card' " + nested);
    // a top-level column named like a protected struct field
    assertThatThrownBy(() -> check(STRICT, "id BIGINT, zip STRING"))
        .hasMessageContaining("column 'zip' " + nested);
  }

  @Test
  void theEmptyStructAndListsAreLeaves() {
    DataType list = DataTypes.createArrayType(DataTypes.StringType);
    StructType schema = new StructType().add("id", "bigint").add("ssn", list);
    assertThatCode(() -> StrictSchema.check(STRICT, schema, "t", "strict.conf"))
        .doesNotThrowAnyException();
  }
}
