package io.icebergprotector.spark.write;

import io.icebergprotector.spark.ProtectionSpec;
import io.icebergprotector.spark.ProtectorException;
import io.icebergprotector.spark.crypto.FileBinding;
import io.icebergprotector.spark.crypto.FileMarker;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.SortOrder;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.Table;
import org.apache.iceberg.deletes.EqualityDeleteWriter;
import org.apache.iceberg.deletes.PositionDeleteWriter;
import org.apache.iceberg.encryption.EncryptedOutputFile;
import org.apache.iceberg.io.DataWriter;
import org.apache.iceberg.io.FileWriterFactory;
import org.apache.iceberg.io.OutputFile;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.types.StructType;

/**
 * Creates data writers for a protected table: every file is a Parquet file written by {@link
 * ProtectedParquetAppender}, bound to the table ({@link FileBinding}) and recorded with the
 * protector's marker as its key metadata ({@link FileMarker}). Row-level delete files are refused,
 * since they would need their own protection (a later issue).
 */
public final class ProtectedFileWriterFactory implements FileWriterFactory<InternalRow> {
  private final Schema dataSchema;
  private final StructType dataSparkType;
  private final SortOrder sortOrder;
  private final Map<String, String> properties;
  private final ProtectionSpec protection;
  private final FileBinding binding;

  /**
   * @param table the table; its properties set the Parquet and metrics settings
   * @param dataSchema the schema of the rows written
   * @param dataSparkType the Spark type of the rows, or null to derive it from {@code dataSchema}
   * @param sortOrder the order rows arrive in (recorded in each data file), or null for unsorted
   * @param protection the table's protection for the writing principal
   * @param writeProperties write options that override table properties (e.g. compression), or
   *     null
   */
  public ProtectedFileWriterFactory(
      Table table,
      Schema dataSchema,
      StructType dataSparkType,
      SortOrder sortOrder,
      ProtectionSpec protection,
      Map<String, String> writeProperties) {
    this.dataSchema = Objects.requireNonNull(dataSchema, "data schema");
    this.dataSparkType = dataSparkType;
    this.sortOrder = sortOrder;
    this.protection = Objects.requireNonNull(protection, "protection spec");
    this.binding = FileBinding.of(table);
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

  @Override
  public DataWriter<InternalRow> newDataWriter(
      EncryptedOutputFile file, PartitionSpec spec, StructLike partition) {
    OutputFile output = file.encryptingOutputFile();
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

  @Override
  public PositionDeleteWriter<InternalRow> newPositionDeleteWriter(
      EncryptedOutputFile file, PartitionSpec spec, StructLike partition) {
    throw rowLevelDeletes("position");
  }

  private UnsupportedOperationException rowLevelDeletes(String kind) {
    return new UnsupportedOperationException(
        String.format(
            "Row-level deletes are not supported on protected table %s: cannot write %s delete"
                + " files (DELETE, UPDATE and MERGE are refused on protected tables)",
            protection.tableName(), kind));
  }
}
