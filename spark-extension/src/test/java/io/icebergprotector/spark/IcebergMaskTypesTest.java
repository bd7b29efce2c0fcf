/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.spark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.icebergprotector.policy.ColumnType;
import io.icebergprotector.policy.Mask;
import io.icebergprotector.spark.core.ProtectorException;
import io.icebergprotector.spark.masks.MaskEngine;
import io.icebergprotector.spark.masks.MaskType;
import io.icebergprotector.spark.read.IcebergMaskTypes;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.Schema;
import org.apache.iceberg.spark.SparkSchemaUtil;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;

/** Iceberg types reach the masks as the Spark types Iceberg reads them as. */
class IcebergMaskTypesTest {
  private static final List<Type> READABLE =
      List.of(
          Types.StringType.get(),
          Types.UUIDType.get(),
          Types.BinaryType.get(),
          Types.FixedType.ofLength(16),
          Types.BooleanType.get(),
          Types.IntegerType.get(),
          Types.LongType.get(),
          Types.FloatType.get(),
          Types.DoubleType.get(),
          Types.DecimalType.of(9, 2),
          Types.DecimalType.of(38, 0),
          Types.DateType.get(),
          Types.TimestampType.withZone(),
          Types.TimestampType.withoutZone());

  @Test
  void readableTypesMapToTheSparkTypeIcebergReadsThemAs() {
    for (Type type : READABLE) {
      assertThat(IcebergMaskTypes.of(type).sparkType())
          .as("%s", type)
          .isEqualTo(SparkSchemaUtil.convert(type));
    }
    assertThat(IcebergMaskTypes.of(Types.FixedType.ofLength(16))).isEqualTo(MaskType.fixed(16));
    assertThat(IcebergMaskTypes.of(Types.BinaryType.get()).fixedLength()).isZero();
  }

  @Test
  void typesSparkCannotReadFitOnlyTheNullMask() {
    for (Type type :
        List.of(
            Types.TimeType.get(), Types.TimestampNanoType.withZone(), Types.VariantType.get())) {
      MaskType maskType = IcebergMaskTypes.of(type);
      assertThat(maskType.columnType()).as("%s", type).isEqualTo(ColumnType.OTHER);
      assertThat(maskType.sparkType()).isNull();
      assertThat(Mask.nullMask().appliesTo(maskType.columnType())).isTrue();
      assertThatThrownBy(() -> MaskEngine.checkFits(Mask.redact(), maskType, "t", "in table db.t"))
          .isInstanceOf(ProtectorException.class)
          .hasMessageContaining(
              "Mask 'redact' of column 't' in table db.t cannot be applied to type " + type);
    }
  }

  @Test
  void aUuidIsAStringToEveryMask() {
    MaskType uuid = IcebergMaskTypes.of(Types.UUIDType.get());
    assertThat(uuid.columnType()).isEqualTo(ColumnType.STRING);
    MaskEngine.checkFits(Mask.partial(4), uuid, "id", "in table db.t");
    MaskEngine.checkFits(Mask.hash(), uuid, "id", "in table db.t");
  }

  @Test
  void columnTypesNameEveryFieldForPolicyValidation() {
    Schema schema =
        new Schema(
            Types.NestedField.required(1, "id", Types.LongType.get()),
            Types.NestedField.optional(2, "token", Types.UUIDType.get()),
            Types.NestedField.optional(
                3,
                "address",
                Types.StructType.of(
                    Types.NestedField.optional(4, "zip", Types.StringType.get()),
                    Types.NestedField.optional(5, "since", Types.TimestampType.withZone()))),
            Types.NestedField.optional(
                6, "tags", Types.ListType.ofOptional(7, Types.StringType.get())),
            Types.NestedField.optional(8, "digest", Types.FixedType.ofLength(32)));

    Map<String, ColumnType> types = IcebergMaskTypes.columnTypes(schema);

    assertThat(types)
        .containsEntry("id", ColumnType.LONG)
        .containsEntry("token", ColumnType.STRING)
        .containsEntry("address", ColumnType.STRUCT)
        .containsEntry("address.zip", ColumnType.STRING)
        .containsEntry("address.since", ColumnType.TIMESTAMP)
        .containsEntry("tags", ColumnType.LIST)
        .containsEntry("tags.element", ColumnType.STRING)
        .containsEntry("digest", ColumnType.BINARY);
  }
}
