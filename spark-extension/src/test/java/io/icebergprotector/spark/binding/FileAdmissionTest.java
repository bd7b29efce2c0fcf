/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.spark.binding;

import static org.apache.iceberg.types.Types.NestedField.optional;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.icebergprotector.spark.core.ProtectorException;
import io.icebergprotector.spark.crypto.FileBinding;
import io.icebergprotector.spark.crypto.FileMarker;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Map;
import java.util.UUID;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.FileMetadata;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.hadoop.HadoopTables;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The marker, the binding's AAD prefix and the admission rules, on tables without Spark. */
class FileAdmissionTest {
  private static final Schema SCHEMA = new Schema(optional(1, "id", Types.LongType.get()));

  @TempDir Path dir;

  @Test
  void markerKinds() {
    DataFile unmarked = dataFile("a.parquet", null);
    assertThat(FileMarker.kindOf(unmarked)).isEqualTo(FileMarker.Kind.NONE);
    DataFile marked = FileMarker.mark(unmarked, PartitionSpec.unpartitioned());
    assertThat(FileMarker.kindOf(marked)).isEqualTo(FileMarker.Kind.BOUND);
    assertThat(marked.location()).isEqualTo(unmarked.location());
    assertThat(marked.recordCount()).isEqualTo(unmarked.recordCount());
    // Iceberg's own key metadata (Avro, version byte 1 first) is not the marker
    assertThat(FileMarker.kindOf(ByteBuffer.wrap(new byte[] {1, 2, 3, 4, 5, 6, 7, 8})))
        .isEqualTo(FileMarker.Kind.FOREIGN);
    assertThat(
            FileMarker.kindOf(
                ByteBuffer.wrap("IPFB\u0002\u0001".getBytes(StandardCharsets.US_ASCII))))
        .isEqualTo(FileMarker.Kind.UNSUPPORTED);
    // reading the marker does not consume the manifest's buffer
    ByteBuffer buffer = marked.keyMetadata();
    int before = buffer.remaining();
    FileMarker.kindOf(buffer);
    assertThat(buffer.remaining()).isEqualTo(before);

    DeleteFile deletes =
        FileMetadata.deleteFileBuilder(PartitionSpec.unpartitioned())
            .ofPositionDeletes()
            .withPath(dir.resolve("d.parquet").toString())
            .withFormat(FileFormat.PARQUET)
            .withFileSizeInBytes(10)
            .withRecordCount(1)
            .build();
    assertThat(FileMarker.kindOf(deletes)).isEqualTo(FileMarker.Kind.NONE);
    assertThat(FileMarker.kindOf(FileMarker.mark(deletes, PartitionSpec.unpartitioned())))
        .isEqualTo(FileMarker.Kind.BOUND);
  }

  @Test
  void bindingPrefixIsTableUuidAndFileName() {
    UUID uuid = UUID.fromString("0f8fad5b-d9cb-469f-a165-70867728950e");
    FileBinding binding = FileBinding.of(uuid);
    String expected = "iceberg-protector/file-binding/v1:" + uuid + ":00000-1-x.parquet";
    // the prefix ignores where the table lives: relocations keep it
    assertThat(
            new String(
                binding.aadPrefix("s3://a/wh/db/t/data/00000-1-x.parquet"), StandardCharsets.UTF_8))
        .isEqualTo(expected);
    assertThat(binding.aadPrefix("file:/other/place/data/k=1/00000-1-x.parquet"))
        .isEqualTo(expected.getBytes(StandardCharsets.UTF_8));
    assertThat(FileBinding.of(UUID.randomUUID()).aadPrefix("s3://a/00000-1-x.parquet"))
        .isNotEqualTo(expected.getBytes(StandardCharsets.UTF_8));
    assertThatThrownBy(() -> binding.aadPrefix("s3://a/dir/"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("s3://a/dir/");
  }

  @Test
  void unmarkedFilesAfterTheBoundaryAreRefusedUnlessAccepted() {
    Table table = table("bound");
    BindingBoundary.record(table); // a table without snapshots: every file must be bound
    assertThat(table.properties()).containsEntry(BindingBoundary.PROPERTY, "0");

    DataFile planted = dataFile("planted.parquet", null);
    FileAdmission strict = FileAdmission.of(table, "db.t", "prod", false);
    assertThat(strict.admit(FileMarker.mark(planted, PartitionSpec.unpartitioned())))
        .isEqualTo(FileAdmission.Verdict.BOUND);
    assertThatThrownBy(() -> strict.admit(planted))
        .isInstanceOf(UnverifiedFileException.class)
        .hasMessageContaining(planted.location())
        .hasMessageContaining("protected table db.t")
        .hasMessageContaining("no file-binding marker")
        .hasMessageContaining("spark.sql.catalog.prod.protector.accept-unverified-files=true")
        .hasMessageContaining("CALL prod.system.rewrite_protected(table => 'db.t')");
    DataFile foreign = dataFile("foreign.parquet", ByteBuffer.wrap(new byte[] {1, 9, 9, 9, 9, 9}));
    assertThatThrownBy(() -> strict.admit(foreign))
        .isInstanceOf(UnverifiedFileException.class)
        .hasMessageContaining("not the protector's file-binding marker");
    DataFile newer =
        dataFile(
            "newer.parquet",
            ByteBuffer.wrap("IPFB\u0007\u0001".getBytes(StandardCharsets.US_ASCII)));
    assertThatThrownBy(() -> strict.admit(newer))
        .isInstanceOf(ProtectorException.class)
        .hasMessageContaining("newer protector version")
        .hasMessageContaining(newer.location());

    FileAdmission accepting = FileAdmission.of(table, "db.t", "prod", true);
    assertThat(accepting.admit(planted)).isEqualTo(FileAdmission.Verdict.UNVERIFIED);
    assertThat(accepting.unverifiedFiles()).containsExactly(planted.location());
  }

  @Test
  void withoutABoundaryUnmarkedFilesAreLegacy() {
    Table table = table("legacy");
    table.newAppend().appendFile(dataFile("old.parquet", null)).commit();
    FileAdmission admission = FileAdmission.of(table, "db.t", "prod", false);
    DataFile old = dataFile("old2.parquet", null);
    assertThat(admission.admit(old)).isEqualTo(FileAdmission.Verdict.LEGACY);
    assertThat(admission.legacyFiles()).containsExactly(old.location());

    // recorded after a snapshot: the next sequence number, so the existing files stay legacy
    BindingBoundary.record(table);
    assertThat(table.properties()).containsEntry(BindingBoundary.PROPERTY, "2");
    BindingBoundary.record(table); // never moved
    assertThat(table.properties()).containsEntry(BindingBoundary.PROPERTY, "2");
  }

  @Test
  void aMalformedBoundaryIsAnError() {
    Table table = table("malformed");
    table.updateProperties().set(BindingBoundary.PROPERTY, "soon").commit();
    assertThatThrownBy(() -> FileAdmission.of(table, "db.t", "prod", false))
        .isInstanceOf(ProtectorException.class)
        .hasMessageContaining(BindingBoundary.PROPERTY)
        .hasMessageContaining("'soon'");
  }

  private Table table(String name) {
    return new HadoopTables(new Configuration())
        .create(
            SCHEMA,
            PartitionSpec.unpartitioned(),
            Map.of("format-version", "2"),
            dir.resolve(name).toUri().toString());
  }

  private DataFile dataFile(String name, ByteBuffer keyMetadata) {
    return DataFiles.builder(PartitionSpec.unpartitioned())
        .withPath(dir.resolve(name).toUri().toString())
        .withFormat(FileFormat.PARQUET)
        .withFileSizeInBytes(100)
        .withRecordCount(1)
        .withEncryptionKeyMetadata(keyMetadata)
        .build();
  }
}
