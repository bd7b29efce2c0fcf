/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.spark.binding;

import static org.apache.iceberg.types.Types.NestedField.optional;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import io.icebergprotector.spark.SharedVectors;
import io.icebergprotector.spark.core.ProtectorException;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.HexFormat;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.hadoop.HadoopTables;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The admission vectors of {@code testdata/protection-vectors.json}, which the Python package's
 * {@code tests/test_vectors.py} checks too: both sides admit, read as legacy, or refuse the same
 * data files from the same manifest entries and table property.
 */
class AdmissionVectorsTest {
  private static final Schema SCHEMA = new Schema(optional(1, "id", Types.LongType.get()));

  @TempDir Path dir;

  @Test
  void admissions() {
    JsonNode vectors = SharedVectors.load();
    assertThat(vectors.get("admissions").size()).isGreaterThan(10);
    int n = 0;
    for (JsonNode c : vectors.get("admissions")) {
      String what = c.toString();
      Table table = table("t" + n++, c.get("boundary"));
      String hex = c.get("key_metadata").asText();
      DataFile file =
          withSequenceNumber(
              DataFiles.builder(PartitionSpec.unpartitioned())
                  .withPath(dir.resolve("f" + n + ".parquet").toUri().toString())
                  .withFormat(FileFormat.PARQUET)
                  .withFileSizeInBytes(100)
                  .withRecordCount(1)
                  .withEncryptionKeyMetadata(
                      hex.isEmpty() ? null : ByteBuffer.wrap(HexFormat.of().parseHex(hex)))
                  .build(),
              c.get("sequence_number").asLong());
      boolean accept = c.get("accept_unverified").asBoolean();
      switch (c.get("verdict").asText()) {
        case "malformed":
          assertThatThrownBy(() -> FileAdmission.of(table, "db.t", "prod", accept))
              .as(what)
              .isInstanceOf(ProtectorException.class)
              .hasMessageContaining("malformed " + BindingBoundary.PROPERTY);
          break;
        case "refused":
          assertThatThrownBy(() -> FileAdmission.of(table, "db.t", "prod", accept).admit(file))
              .as(what)
              .isInstanceOf(UnverifiedFileException.class)
              .hasMessageContaining("the protector did not write it");
          break;
        case "unsupported":
          assertThatThrownBy(() -> FileAdmission.of(table, "db.t", "prod", accept).admit(file))
              .as(what)
              .isInstanceOf(ProtectorException.class)
              .hasMessageContaining("newer protector version");
          break;
        default:
          assertThat(FileAdmission.of(table, "db.t", "prod", accept).admit(file).name())
              .as(what)
              .isEqualToIgnoringCase(c.get("verdict").asText());
      }
    }
  }

  private Table table(String name, JsonNode boundary) {
    Map<String, String> properties =
        boundary.isNull()
            ? Map.of("format-version", "2")
            : Map.of("format-version", "2", BindingBoundary.PROPERTY, boundary.asText());
    return new HadoopTables(new Configuration())
        .create(
            SCHEMA,
            PartitionSpec.unpartitioned(),
            properties,
            dir.resolve(name).toUri().toString());
  }

  /** {@code file} as read from a manifest: with the sequence number of the commit that added it. */
  private static DataFile withSequenceNumber(DataFile file, long sequenceNumber) {
    return (DataFile)
        Proxy.newProxyInstance(
            DataFile.class.getClassLoader(),
            new Class<?>[] {DataFile.class},
            (proxy, method, args) -> {
              if (method.getName().equals("fileSequenceNumber")) {
                return sequenceNumber;
              }
              try {
                return method.invoke(file, args);
              } catch (InvocationTargetException e) {
                throw e.getCause();
              }
            });
  }
}
