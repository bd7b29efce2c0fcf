/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.spark.metadata;

import static org.apache.iceberg.types.Types.NestedField.optional;
import static org.apache.iceberg.types.Types.NestedField.required;
import static org.assertj.core.api.Assertions.assertThat;

import io.icebergprotector.policy.Policy;
import io.icebergprotector.policy.TablePolicy;
import io.icebergprotector.spark.core.RecordedColumns;
import io.icebergprotector.testing.TestPolicy;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.MetadataTableType;
import org.apache.iceberg.MetadataTableUtils;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.hadoop.HadoopTables;
import org.apache.iceberg.spark.SparkSchemaUtil;
import org.apache.iceberg.types.Types;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.catalyst.util.ArrayBasedMapData;
import org.apache.spark.sql.catalyst.util.GenericArrayData;
import org.apache.spark.sql.catalyst.util.MapData;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.unsafe.types.UTF8String;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Rows of Iceberg's metadata table schemas, redacted without Spark. */
class MetricsRedactionTest {
  private static final String POLICY =
      TestPolicy.resource(MetricsRedactionTest.class, "policies/MetricsRedactionTest.conf");

  @TempDir static Path dir;
  private static Table table;
  private static HiddenColumns hidden;
  private static int ssn;
  private static int zip;
  private static int city;
  private static int contact;
  private static int phone;
  private static int mail;
  private static int legacy;

  @BeforeAll
  static void createTable() {
    Schema schema =
        new Schema(
            required(1, "id", Types.LongType.get()),
            optional(2, "ssn", Types.StringType.get()),
            optional(
                3,
                "address",
                Types.StructType.of(
                    optional(4, "zip", Types.StringType.get()),
                    optional(5, "city", Types.StringType.get()))),
            optional(
                6,
                "contact",
                Types.StructType.of(
                    optional(7, "phone", Types.StringType.get()),
                    optional(8, "mail", Types.StringType.get()))),
            optional(9, "legacy", Types.StringType.get()));
    table =
        new HadoopTables(new Configuration())
            .create(
                schema,
                PartitionSpec.unpartitioned(),
                Map.of("format-version", "2"),
                dir.resolve("t").toUri().toString());
    // the table assigns fresh ids; legacy was protected and recorded, then dropped everywhere
    Schema assigned = table.schema();
    ssn = assigned.findField("ssn").fieldId();
    zip = assigned.findField("address.zip").fieldId();
    city = assigned.findField("address.city").fieldId();
    contact = assigned.findField("contact").fieldId();
    phone = assigned.findField("contact.phone").fieldId();
    mail = assigned.findField("contact.mail").fieldId();
    legacy = assigned.findField("legacy").fieldId();
    table.updateProperties().set(RecordedColumns.PROPERTY, "legacy=" + legacy + ":pii").commit();
    table.updateSchema().deleteColumn("legacy").commit();
    TablePolicy policy = Policy.parse(POLICY, "test").table("db.t").orElseThrow();
    hidden = HiddenColumns.of(table, policy);
  }

  @Test
  void hiddenColumnsCoverPolicyRecordedAndNestedFields() {
    assertThat(hidden.fieldIds()).containsExactlyInAnyOrder(ssn, zip, contact, phone, mail, legacy);
    assertThat(hidden.names())
        .containsExactlyInAnyOrder(
            "ssn", "address.zip", "contact", "contact.phone", "contact.mail", "legacy");
  }

  @Test
  void filesRowsLoseHiddenMapKeysAndReadableMetrics() {
    Table files = MetadataTableUtils.createMetadataTableInstance(table, MetadataTableType.FILES);
    StructType type = SparkSchemaUtil.convert(files.schema());
    StructType metricsType = (StructType) type.apply("readable_metrics").dataType();
    Map<String, Object> values = new HashMap<>();
    values.put("record_count", 3L);
    values.put("lower_bounds", bounds(1, ssn, zip, city, phone, legacy));
    values.put("value_counts", counts(1, ssn, zip, city, phone, legacy));
    Map<String, Object> metrics = new HashMap<>();
    for (String column : metricsType.fieldNames()) {
      metrics.put(column, row((StructType) metricsType.apply(column).dataType(), Map.of()));
    }
    values.put("readable_metrics", row(metricsType, metrics));

    MetricsRedaction redaction = MetricsRedaction.of(type, files.schema().asStruct(), hidden);
    InternalRow redacted = redaction.apply(row(type, values));

    assertThat(redacted.getLong(type.fieldIndex("record_count"))).isEqualTo(3L);
    assertThat(keys(redacted.getMap(type.fieldIndex("lower_bounds")))).containsExactly(1, city);
    assertThat(keys(redacted.getMap(type.fieldIndex("value_counts")))).containsExactly(1, city);
    assertThat(redacted.getMap(type.fieldIndex("value_counts")).valueArray().getLong(1))
        .isEqualTo(10L + city);
    InternalRow readable =
        redacted.getStruct(type.fieldIndex("readable_metrics"), metricsType.size());
    for (String column : metricsType.fieldNames()) {
      boolean isHidden =
          List.of("ssn", "address.zip", "contact.phone", "contact.mail").contains(column);
      assertThat(readable.isNullAt(metricsType.fieldIndex(column))).as(column).isEqualTo(isHidden);
    }
    assertThat(metricsType.fieldNames()).contains("id", "address.city", "ssn");
  }

  @Test
  void entriesRowsAreRedactedInsideDataFile() {
    Table entries =
        MetadataTableUtils.createMetadataTableInstance(table, MetadataTableType.ALL_ENTRIES);
    StructType type = SparkSchemaUtil.convert(entries.schema());
    StructType dataFileType = (StructType) type.apply("data_file").dataType();
    InternalRow dataFile =
        row(
            dataFileType,
            Map.of("upper_bounds", bounds(ssn, city), "column_sizes", counts(ssn, 1)));
    InternalRow entry = row(type, Map.of("status", 1, "data_file", dataFile));

    MetricsRedaction redaction = MetricsRedaction.of(type, entries.schema().asStruct(), hidden);
    InternalRow redacted =
        redaction.apply(entry).getStruct(type.fieldIndex("data_file"), dataFileType.size());

    assertThat(keys(redacted.getMap(dataFileType.fieldIndex("upper_bounds"))))
        .containsExactly(city);
    assertThat(keys(redacted.getMap(dataFileType.fieldIndex("column_sizes")))).containsExactly(1);
    assertThat(redaction.touches(new String[] {"data_file", "upper_bounds"})).isTrue();
    assertThat(redaction.touches(new String[] {"DATA_FILE"})).isTrue();
    assertThat(redaction.touches(new String[] {"data_file", "file_path"})).isFalse();
    assertThat(redaction.touches(new String[] {"readable_metrics", "ssn", "lower_bound"})).isTrue();
    assertThat(redaction.touches(new String[] {"status"})).isFalse();
  }

  @Test
  void deletedRowsOfPositionDeletesLoseHiddenFields() {
    Table deletes =
        MetadataTableUtils.createMetadataTableInstance(table, MetadataTableType.POSITION_DELETES);
    StructType type = SparkSchemaUtil.convert(deletes.schema());
    StructType rowType = (StructType) type.apply("row").dataType();
    StructType addressType = (StructType) rowType.apply("address").dataType();
    StructType contactType = (StructType) rowType.apply("contact").dataType();
    InternalRow deleted =
        row(
            rowType,
            Map.of(
                "id", 7L,
                "ssn", UTF8String.fromString("DELETED-CANARY-SSN"),
                "address",
                    row(
                        addressType,
                        Map.of(
                            "zip", UTF8String.fromString("DELETED-CANARY-ZIP"),
                            "city", UTF8String.fromString("Springfield"))),
                "contact", row(contactType, Map.of("phone", UTF8String.fromString("555")))));
    InternalRow input = row(type, Map.of("pos", 4L, "row", deleted));

    MetricsRedaction redaction = MetricsRedaction.of(type, deletes.schema().asStruct(), hidden);
    InternalRow redacted = redaction.apply(input).getStruct(type.fieldIndex("row"), rowType.size());

    assertThat(redacted.getLong(rowType.fieldIndex("id"))).isEqualTo(7L);
    assertThat(redacted.isNullAt(rowType.fieldIndex("ssn"))).isTrue();
    assertThat(redacted.isNullAt(rowType.fieldIndex("contact"))).isTrue();
    InternalRow address = redacted.getStruct(rowType.fieldIndex("address"), addressType.size());
    assertThat(address.isNullAt(addressType.fieldIndex("zip"))).isTrue();
    assertThat(address.getUTF8String(addressType.fieldIndex("city")).toString())
        .isEqualTo("Springfield");
  }

  @Test
  void projectionsWithoutRedactedFieldsPassRowsThrough() {
    Table files = MetadataTableUtils.createMetadataTableInstance(table, MetadataTableType.FILES);
    StructType projected = new StructType().add("file_path", "string").add("record_count", "long");
    MetricsRedaction redaction = MetricsRedaction.of(projected, files.schema().asStruct(), hidden);
    InternalRow input = row(projected, Map.of("record_count", 2L));
    assertThat(redaction.apply(input)).isSameAs(input);
    assertThat(redaction.redactedPaths()).isEmpty();
  }

  private static InternalRow row(StructType type, Map<String, Object> values) {
    Object[] fields = new Object[type.size()];
    values.forEach((name, value) -> fields[type.fieldIndex(name)] = value);
    return new GenericInternalRow(fields);
  }

  private static MapData bounds(int... ids) {
    return byId(ids, id -> ("bound-" + id).getBytes(java.nio.charset.StandardCharsets.UTF_8));
  }

  private static MapData counts(int... ids) {
    return byId(ids, id -> 10L + id);
  }

  private static MapData byId(int[] ids, java.util.function.IntFunction<Object> value) {
    Object[] keys = new Object[ids.length];
    Object[] values = new Object[ids.length];
    for (int i = 0; i < ids.length; i++) {
      keys[i] = ids[i];
      values[i] = value.apply(ids[i]);
    }
    return new ArrayBasedMapData(new GenericArrayData(keys), new GenericArrayData(values));
  }

  private static List<Integer> keys(MapData map) {
    List<Integer> keys = new java.util.ArrayList<>();
    for (int i = 0; i < map.numElements(); i++) {
      keys.add(map.keyArray().getInt(i));
    }
    return keys;
  }
}
