/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.spark.write;

import static io.icebergprotector.policy.Preconditions.checkState;

import io.icebergprotector.spark.core.ProtectionSpec;
import io.icebergprotector.spark.core.ProtectorException;
import io.icebergprotector.spark.crypto.FileBinding;
import io.icebergprotector.spark.crypto.FileMarker;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.MetricsConfig;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.SortOrder;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.Table;
import org.apache.iceberg.deletes.EqualityDeleteWriter;
import org.apache.iceberg.deletes.PositionDeleteWriter;
import org.apache.iceberg.encryption.EncryptedOutputFile;
import org.apache.iceberg.formats.FormatModelRegistry;
import org.apache.iceberg.io.DataWriter;
import org.apache.iceberg.io.FileWriterFactory;
import org.apache.iceberg.io.OutputFile;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.types.StructType;

/**
 * Creates the writers of a protected table's files: every data file is a Parquet file written by
 * {@link ProtectedParquetAppender}, bound to the table ({@link FileBinding}) and recorded with the
 * protector's marker as its key metadata ({@link FileMarker}). Position delete files hold only data
 * file locations and row positions, never row data: they are written by Iceberg's own writers, in
 * the table's delete file format, so every engine can apply them; they hold no column value, so
 * they are neither encrypted nor bound. Equality delete files are refused: they would store the
 * deleted rows' values of their columns in plaintext.
 */
public final class ProtectedFileWriterFactory implements FileWriterFactory<InternalRow> {
  private final Schema dataSchema;
  private final StructType dataSparkType;
  private final SortOrder sortOrder;
  private final Map<String, String> properties;
  private final ProtectionSpec protection;
  private final FileBinding binding;
  private final Table table;
  private FileFormat deleteFormat = null;

  /**
   * @param table the table; its properties set the Parquet and metrics settings
   * @param dataSchema the schema of the rows written, or null for a factory of delete files only
   * @param dataSparkType the Spark type of the rows, or null to derive it from {@code dataSchema}
   * @param sortOrder the order rows arrive in (recorded in each data file), or null for unsorted
   * @param protection the table's protection for the writing principal
   * @param writeProperties write options that override table properties (e.g. compression), or null
   */
  public ProtectedFileWriterFactory(
      Table table,
      Schema dataSchema,
      StructType dataSparkType,
      SortOrder sortOrder,
      ProtectionSpec protection,
      Map<String, String> writeProperties) {
    this.dataSchema = dataSchema;
    this.dataSparkType = dataSparkType;
    this.sortOrder = sortOrder;
    this.protection = Objects.requireNonNull(protection, "protection spec");
    this.binding = FileBinding.of(table);
    this.table = table;
    this.properties = new HashMap<>(table.properties());
    if (writeProperties != null) {
      properties.putAll(writeProperties);
    }
  }

  public ProtectedFileWriterFactory(
      Table table,
      Schema dataSchema,
      StructType dataSparkType,
      SortOrder sortOrder,
      ProtectionSpec protection) {
    this(table, dataSchema, dataSparkType, sortOrder, protection, null);
  }

  /**
   * Lets this factory write position delete files in {@code format} (Iceberg's {@code
   * write.delete.format.default}); without it they are refused.
   */
  public ProtectedFileWriterFactory withPositionDeletes(FileFormat format) {
    this.deleteFormat = Objects.requireNonNull(format, "delete file format");
    return this;
  }

  @Override
  public DataWriter<InternalRow> newDataWriter(
      EncryptedOutputFile file, PartitionSpec spec, StructLike partition) {
    OutputFile output = file.encryptingOutputFile();
    checkState(
        dataSchema != null,
        "This writer factory of %s writes delete files only",
        protection.tableName());
    if (file.keyMetadata() != null && file.keyMetadata().buffer() != null) {
      throw new ProtectorException(
          String.format(
              "Table %s uses Iceberg table encryption as well as column protection; writing %s"
                  + " with both is not supported",
              protection.tableName(), output.location()));
    }
    ProtectedParquetAppender appender =
        ProtectedParquetAppender.write(output)
            .schema(dataSchema)
            .sparkType(dataSparkType)
            .setAll(properties)
            .sortOrder(sortOrder)
            .protection(protection)
            .binding(binding)
            .build();
    return new MarkedDataWriter<>(appender, output.location(), spec, partition, sortOrder);
  }

  @Override
  public EqualityDeleteWriter<InternalRow> newEqualityDeleteWriter(
      EncryptedOutputFile file, PartitionSpec spec, StructLike partition) {
    throw rowLevelDeletes("equality");
  }

  /** A position delete file: {@code file_path} and {@code pos} only, through Iceberg's writers. */
  @Override
  public PositionDeleteWriter<InternalRow> newPositionDeleteWriter(
      EncryptedOutputFile file, PartitionSpec spec, StructLike partition) {
    if (deleteFormat == null) {
      throw rowLevelDeletes("position");
    }
    try {
      return FormatModelRegistry.<InternalRow>positionDeleteWriteBuilder(deleteFormat, file)
          .setAll(properties)
          // path and position only: the files hold no row data, so no column of the table's own
          // metrics modes applies (Iceberg 1.12 keeps only this form)
          .metricsConfig(MetricsConfig.forPositionDelete())
          .spec(spec)
          .partition(partition)
          .keyMetadata(file.keyMetadata())
          .overwrite()
          .build();
    } catch (RuntimeException e) {
      throw e;
    } catch (Exception e) {
      // build() declares an IOException on Iceberg 1.11 and none on 1.12: catching it by name
      // would not compile on 1.12
      throw new UncheckedIOException(
          "Failed to create a position delete writer for " + protection.tableName(),
          e instanceof IOException io ? io : new IOException(e));
    }
  }

  private UnsupportedOperationException rowLevelDeletes(String kind) {
    return new UnsupportedOperationException(
        String.format(
            "Cannot write %2$s delete files for protected table %1$s: %2$s deletes are written only"
                + " by row-level operations in merge-on-read mode%3$s",
            protection.tableName(),
            kind,
            "equality".equals(kind)
                ? ", and never as equality deletes, which would store the deleted rows' values in"
                    + " plaintext"
                : ""));
  }
}
