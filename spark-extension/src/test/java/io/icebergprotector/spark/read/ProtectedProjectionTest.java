/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.spark.read;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.icebergprotector.spark.core.ProtectionSpec;
import io.icebergprotector.spark.core.ProtectorException;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;
import org.apache.iceberg.Schema;
import org.apache.iceberg.types.TypeUtil;
import org.apache.iceberg.types.Types;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ProtectedProjectionTest {
  @TempDir static Path dir;
  static ReadFixture fixture;

  @BeforeAll
  static void setUp() {
    fixture = new ReadFixture(dir);
  }

  private static ProtectedProjection projection(String user, Schema schema) {
    ProtectionSpec spec = fixture.spec("db.people", ReadFixture.SCHEMA, user);
    return ProtectedProjection.of(schema, spec);
  }

  @Test
  void clearReaderReadsEverythingButSeesProtectedColumnsNullable() {
    Schema requiredSsn =
        new Schema(
            Types.NestedField.required(1, "id", Types.LongType.get()),
            Types.NestedField.required(3, "ssn", Types.StringType.get()));
    ProtectedProjection projection = projection("alice", requiredSsn);

    assertThat(projection.nullFieldIds()).isEmpty();
    assertThat(projection.maskedFields()).isEmpty();
    assertThat(projection.fileSchema().findField(3)).isNotNull();
    assertThat(projection.outputSchema().findField(3).isOptional()).isTrue();
    assertThat(projection.outputSchema().findField(1).isRequired()).isTrue();
    StructType spark = projection.sparkSchema();
    assertThat(spark.apply("ssn").nullable()).isTrue();
    assertThat(spark.apply("id").nullable()).isFalse();
  }

  @Test
  void deniedColumnsAreNeverReadAndComeBackAsNullConstants() {
    ProtectedProjection projection = projection("carol", ReadFixture.SCHEMA);

    // every protected field reads as NULL, nested address.zip included
    assertThat(projection.nullFieldIds()).containsExactlyInAnyOrder(3, 4, 5, 6, 9);
    Schema file = projection.fileSchema();
    assertThat(file.findField(3)).isNull();
    assertThat(file.findField(5)).isNull();
    assertThat(file.findField(9)).isNull();
    // the readable sibling stays
    assertThat(file.findField(8)).isNotNull();
    assertThat(file.findField("address")).isNotNull();
    assertThat(projection.outputSchema().findField(9)).isNotNull();
    assertThat(projection.outputSchema().findField(9).isOptional()).isTrue();
  }

  @Test
  void maskedColumnsAreReadAndMaskedNullMaskIsNotRead() {
    ProtectedProjection projection = projection("bob", ReadFixture.SCHEMA);

    assertThat(projection.maskedFields())
        .containsExactlyInAnyOrderEntriesOf(
            Map.of(3, "partial(keep_last=4)", 4, "hash", 6, "year", 9, "redact"));
    assertThat(projection.nullFieldIds()).containsExactly(5); // salary: denied
    assertThat(projection.fileSchema().findField(3)).isNotNull();
    assertThat(projection.fileSchema().findField(9)).isNotNull();
    assertThat(projection.fileSchema().findField(5)).isNull();
  }

  @Test
  void aStructWhoseOnlyProjectedChildIsDeniedIsNotReadAtAll() {
    Schema zipOnly = TypeUtil.select(ReadFixture.SCHEMA, Set.of(9));
    ProtectedProjection projection = projection("carol", zipOnly);

    assertThat(projection.fileSchema().columns()).isEmpty();
    assertThat(projection.outputSchema().findField(9)).isNotNull();
  }

  @Test
  void onDeniedFailRefusesTheProjectionAtPlanning() {
    ProtectionSpec spec = fixture.spec("db.strict", ReadFixture.SCHEMA, "bob");
    Schema withSalary = TypeUtil.select(ReadFixture.SCHEMA, Set.of(1, 5));

    assertThatThrownBy(() -> ProtectedProjection.of(withSalary, spec))
        .isInstanceOf(ProtectorException.class)
        .hasMessageContaining("bob")
        .hasMessageContaining("'salary'")
        .hasMessageContaining("db.strict")
        .hasMessageContaining("on-denied = fail");

    // other columns read fine, including ssn which bob sees in clear there
    Schema withoutSalary = TypeUtil.select(ReadFixture.SCHEMA, Set.of(1, 3));
    assertThat(ProtectedProjection.of(withoutSalary, spec).nullFieldIds()).isEmpty();
  }

  @Test
  void hiddenIdsCoverDeniedAndMaskedButNotClear() {
    assertThat(
            ProtectedProjection.hiddenFieldIds(
                ReadFixture.SCHEMA, fixture.spec("db.people", ReadFixture.SCHEMA, "bob")))
        .containsExactlyInAnyOrder(3, 4, 5, 6, 9);
    assertThat(
            ProtectedProjection.hiddenFieldIds(
                ReadFixture.SCHEMA, fixture.spec("db.people", ReadFixture.SCHEMA, "alice")))
        .isEmpty();
  }

  @Test
  void aProtectedStructHidesEverythingBelowIt() {
    Schema schema =
        new Schema(
            Types.NestedField.required(1, "id", Types.LongType.get()),
            Types.NestedField.optional(
                2,
                "address",
                Types.StructType.of(
                    Types.NestedField.optional(3, "city", Types.StringType.get()),
                    Types.NestedField.optional(4, "zip", Types.StringType.get()))));
    String policy =
        ReadFixture.POLICY.replace(
            "\"db.strict\" {",
            "\"db.nested\" { footer-key = footer, writers = [etl],"
                + " columns { address { key = pii, clear = [admin] } } }\n    \"db.strict\" {");
    io.icebergprotector.policy.Policy parsed =
        io.icebergprotector.policy.Policy.parse(policy, "nested");
    ProtectionSpec spec =
        ProtectionSpec.resolve(
            io.icebergprotector.spark.core.ProtectorContext.of(parsed, fixture.kms),
            parsed.table("db.nested").orElseThrow(),
            schema,
            io.icebergprotector.policy.Principal.user("bob"));
    ProtectedProjection projection = ProtectedProjection.of(schema, spec);

    assertThat(projection.nullFieldIds()).containsExactly(2);
    assertThat(projection.fileSchema().columns())
        .extracting(Types.NestedField::name)
        .containsExactly("id");
    assertThat(ProtectedProjection.hiddenFieldIds(schema, spec)).containsExactlyInAnyOrder(2, 3, 4);
    assertThat(projection.outputSchema().findField(3).isOptional()).isTrue();
  }
}
