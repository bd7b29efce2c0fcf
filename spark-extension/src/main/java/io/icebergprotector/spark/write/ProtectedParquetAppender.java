/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.spark.write;

import static io.icebergprotector.policy.Preconditions.checkArgument;
import static io.icebergprotector.policy.Preconditions.checkState;

import io.icebergprotector.spark.core.ProtectionSpec;
import io.icebergprotector.spark.core.ProtectorException;
import io.icebergprotector.spark.crypto.ColumnTokenizers;
import io.icebergprotector.spark.crypto.FileBinding;
import io.icebergprotector.spark.crypto.FileMarker;
import io.icebergprotector.spark.crypto.ProtectorCrypto;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import org.apache.iceberg.Metrics;
import org.apache.iceberg.MetricsConfig;
import org.apache.iceberg.Schema;
import org.apache.iceberg.SchemaParser;
import org.apache.iceberg.SortOrder;
import org.apache.iceberg.Table;
import org.apache.iceberg.io.FileAppender;
import org.apache.iceberg.io.OutputFile;
import org.apache.iceberg.parquet.ParquetCodecFactory;
import org.apache.iceberg.parquet.ParquetSchemaUtil;
import org.apache.iceberg.parquet.ParquetUtil;
import org.apache.iceberg.parquet.ParquetValueWriter;
import org.apache.iceberg.shaded.org.apache.parquet.column.ColumnWriteStore;
import org.apache.iceberg.shaded.org.apache.parquet.column.ParquetProperties;
import org.apache.iceberg.shaded.org.apache.parquet.compression.CompressionCodecFactory;
import org.apache.iceberg.shaded.org.apache.parquet.crypto.FileEncryptionProperties;
import org.apache.iceberg.shaded.org.apache.parquet.hadoop.ColumnChunkPageWriteStore;
import org.apache.iceberg.shaded.org.apache.parquet.hadoop.ParquetFileWriter;
import org.apache.iceberg.shaded.org.apache.parquet.schema.MessageType;
import org.apache.iceberg.spark.data.SparkParquetWriters;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.types.StructType;

/**
 * Writes one Parquet data file of Spark rows with per-column Parquet Modular Encryption.
 *
 * <p>Iceberg's own Parquet writer only knows one uniform file key, so this appender drives
 * parquet-mr's {@link ParquetFileWriter} directly with the {@link FileEncryptionProperties} of the
 * table's {@link ProtectionSpec}: each protected column under its own data key (wrapped by its
 * policy master key), the footer by the policy's footer key and mode, and the whole file bound to
 * its table and name ({@link FileBinding}). Values are written with Iceberg's Spark value writers,
 * the file honours the table's {@code write.parquet.*} properties, and its metrics carry nothing
 * about protected columns (see {@link ProtectedMetrics}). Tokenized columns are tokenized in
 * batches before they are written ({@link RowTokenizer}), then PME-encrypted under their column key
 * unless the policy says {@code pme = false}; the file's footer records their token key versions.
 *
 * <p>The file is created on the first row: an appender closed without rows creates no file and asks
 * the key service for nothing.
 */
public final class ProtectedParquetAppender implements FileAppender<InternalRow> {
  private static final String ICEBERG_SCHEMA_KEY = "iceberg.schema";
  private static final Metrics NO_ROWS = new Metrics(0L, null, null, null, null);

  private final OutputFile file;
  private final Schema schema;
  private final MessageType parquetSchema;
  private final ProtectionSpec protection;
  private final FileBinding binding;
  private final Set<Integer> protectedIds;
  private final MetricsConfig metricsConfig;
  private final ParquetValueWriter<InternalRow> valueWriter;
  private final ParquetProperties props;
  private final long targetRowGroupSize;
  private final ParquetCodecFactory codecFactory;
  private final CompressionCodecFactory.BytesInputCompressor compressor;
  private final ParquetFileWriter.Mode mode;
  private final Map<String, String> footerMetadata;
  private final RowTokenizer tokenizer;

  private ParquetFileWriter writer = null;
  private ColumnChunkPageWriteStore pageStore = null;
  private ColumnWriteStore writeStore = null;
  private int rowGroupOrdinal = 0;
  private long rowGroupRecords = 0;
  private long nextSizeCheck = 0;
  private boolean closed = false;
  private long finalLength = 0;

  private ProtectedParquetAppender(Builder b) {
    this.file = b.file;
    this.schema = b.schema;
    this.protection = b.protection;
    this.binding = b.binding;
    this.mode = b.overwrite ? ParquetFileWriter.Mode.OVERWRITE : ParquetFileWriter.Mode.CREATE;
    this.parquetSchema = ParquetSchemaUtil.convert(schema, "table");
    this.protectedIds = protection.protectedFieldIds(schema);
    this.metricsConfig =
        ProtectedMetrics.metricsConfig(b.properties, schema, b.sortOrder, protectedIds);
    ParquetWriteSettings settings =
        ParquetWriteSettings.from(
            b.properties,
            schema,
            parquetSchema,
            protectedIds,
            protection.tokenizedColumns().keySet(),
            protection.plaintextFooter());
    this.props = settings.properties();
    this.targetRowGroupSize = settings.rowGroupSize();
    this.codecFactory = new ParquetCodecFactory(settings.codecConf(), props.getPageSizeThreshold());
    this.compressor = codecFactory.getCompressor(settings.codec());
    this.valueWriter = SparkParquetWriters.buildWriter(schema, parquetSchema, b.sparkType);
    this.footerMetadata = new HashMap<>();
    footerMetadata.put(ICEBERG_SCHEMA_KEY, SchemaParser.toJson(schema));
    this.tokenizer =
        RowTokenizer.of(
            protection,
            schema,
            b.sparkType != null
                ? b.sparkType
                : org.apache.iceberg.spark.SparkSchemaUtil.convert(schema));
  }

  public static Builder write(OutputFile file) {
    return new Builder(file);
  }

  @Override
  public void add(InternalRow row) {
    // Per row: the file's location (a string built by some FileIOs) only once it is closed.
    if (closed) {
      throw new IllegalStateException("Cannot add rows to closed file " + file.location());
    }
    if (writer == null) {
      open();
    }
    if (tokenizer != null) {
      // tokenized columns are written in batches: the buffered rows go out once tokenized
      if (tokenizer.add(row)) {
        tokenizer.flush(this::write);
      }
      return;
    }
    write(row);
  }

  private void write(InternalRow row) {
    valueWriter.write(0, row);
    writeStore.endRecord();
    rowGroupRecords += 1;
    if (rowGroupRecords >= nextSizeCheck) {
      checkRowGroupSize();
    }
  }

  /** Exact after close; before close, bytes written so far plus what the open row group buffers. */
  @Override
  public long length() {
    if (closed) {
      return finalLength;
    }
    if (writer == null) {
      return 0L;
    }
    try {
      return writer.getPos() + (rowGroupRecords > 0 ? writeStore.getBufferedSize() : 0L);
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot get the length of " + file.location(), e);
    }
  }

  @Override
  public Metrics metrics() {
    checkState(closed, "Cannot return metrics of unclosed file %s", file.location());
    if (writer == null) {
      return NO_ROWS;
    }
    Metrics metrics =
        ParquetUtil.footerMetrics(writer.getFooter(), valueWriter.metrics(), metricsConfig);
    // The metrics config already sets protected columns to none; this is the backstop.
    return ProtectedMetrics.withoutFieldMetrics(metrics, protectedIds);
  }

  /**
   * The key metadata Iceberg must record in this file's manifest entry: the marker that tells
   * readers the file is bound ({@link FileMarker}). A file recorded without it does not read.
   */
  public ByteBuffer keyMetadata() {
    return FileMarker.bytes();
  }

  @Override
  public List<Long> splitOffsets() {
    if (!closed || writer == null) {
      return null;
    }
    return ParquetUtil.getSplitOffsets(writer.getFooter());
  }

  @Override
  public void close() throws IOException {
    if (closed) {
      return;
    }
    this.closed = true;
    try {
      if (writer != null) {
        if (tokenizer != null) {
          tokenizer.flush(this::write);
          footerMetadata.put(
              ColumnTokenizers.VERSIONS_KEY, ColumnTokenizers.versionsValue(tokenizer.versions()));
        }
        flushRowGroup();
        writer.end(footerMetadata);
        this.finalLength = writer.getPos();
      }
    } catch (IOException | RuntimeException e) {
      if (writer != null) {
        // Release the stream; the partial file is never committed.
        closeQuietly(writer, e);
      }
      throw e;
    } finally {
      releaseRowGroupBuffers();
      codecFactory.release();
      if (tokenizer != null) {
        tokenizer.close();
      }
    }
  }

  private void open() {
    FileEncryptionProperties encryption =
        ProtectorCrypto.fileEncryption(protection, parquetSchema, file.location(), binding);
    if (encryption == null) {
      throw new ProtectorException(
          "No encryption properties for protected file "
              + file.location()
              + " of table "
              + protection.tableName());
    }
    try {
      ParquetFileWriter fileWriter =
          new ParquetFileWriter(
              new IcebergParquetOutputFile(file),
              parquetSchema,
              mode,
              targetRowGroupSize,
              0 /* no padding */,
              encryption,
              props);
      fileWriter.start();
      this.writer = fileWriter;
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot create protected Parquet file " + file.location(), e);
    }
    startRowGroup();
  }

  private void startRowGroup() {
    // The page store encrypts each page as it is written, so it must share the file writer's
    // encryptor (column setups, file AAD) and know the row group's ordinal for the page AADs.
    this.pageStore =
        new ColumnChunkPageWriteStore(
            compressor,
            parquetSchema,
            props.getAllocator(),
            props.getColumnIndexTruncateLength(),
            props.getPageWriteChecksumEnabled(),
            writer.getEncryptor(),
            rowGroupOrdinal);
    this.rowGroupOrdinal += 1;
    this.writeStore = props.newColumnWriteStore(parquetSchema, pageStore, pageStore);
    valueWriter.setColumnStore(writeStore);
    this.rowGroupRecords = 0;
    this.nextSizeCheck = props.getMinRowCountForPageSizeCheck();
  }

  /**
   * Bounds memory like parquet-mr: measure the buffered size every so many rows, flush the row
   * group when one more average row could overshoot the target, and otherwise plan the next check
   * halfway to the estimated remaining room.
   */
  private void checkRowGroupSize() {
    long buffered = writeStore.getBufferedSize();
    double bytesPerRow = (double) buffered / rowGroupRecords;
    if (buffered + 2 * bytesPerRow >= targetRowGroupSize) {
      flushRowGroup();
      releaseRowGroupBuffers();
      startRowGroup();
    } else {
      long rowsThatFit = (long) ((targetRowGroupSize - buffered) / Math.max(bytesPerRow, 1.0));
      long step =
          Math.max(
              props.getMinRowCountForPageSizeCheck(),
              Math.min(rowsThatFit / 2, props.getMaxRowCountForPageSizeCheck()));
      this.nextSizeCheck = rowGroupRecords + step;
    }
  }

  private void flushRowGroup() {
    if (rowGroupRecords == 0) {
      return;
    }
    try {
      writer.startBlock(rowGroupRecords);
      writeStore.flush();
      pageStore.flushToFileWriter(writer);
      writer.endBlock();
      this.rowGroupRecords = 0;
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot write a row group to " + file.location(), e);
    }
  }

  private void releaseRowGroupBuffers() {
    if (writeStore != null) {
      writeStore.close();
      this.writeStore = null;
    }
    if (pageStore != null) {
      pageStore.close();
      this.pageStore = null;
    }
  }

  private static void closeQuietly(ParquetFileWriter fileWriter, Exception cause) {
    try {
      fileWriter.close();
    } catch (IOException | RuntimeException suppressed) {
      cause.addSuppressed(suppressed);
    }
  }

  /** Builds a {@link ProtectedParquetAppender}; the protection spec and schema are required. */
  public static final class Builder {
    private final OutputFile file;
    private final Map<String, String> properties = new HashMap<>();
    private Schema schema;
    private StructType sparkType;
    private SortOrder sortOrder;
    private ProtectionSpec protection;
    private FileBinding binding;
    private boolean overwrite;

    private Builder(OutputFile file) {
      this.file = Objects.requireNonNull(file, "output file");
    }

    /** Write schema, properties, sort order and file binding of {@code table}. */
    public Builder forTable(Table table) {
      binding(FileBinding.of(table));
      schema(table.schema());
      setAll(table.properties());
      sortOrder(table.sortOrder());
      return this;
    }

    public Builder schema(Schema writeSchema) {
      this.schema = writeSchema;
      return this;
    }

    /** The Spark type of incoming rows; derived from the schema when not set. */
    public Builder sparkType(StructType rowType) {
      this.sparkType = rowType;
      return this;
    }

    /** Sorted columns default to truncate(16) metrics, as in Iceberg; may be null. */
    public Builder sortOrder(SortOrder order) {
      this.sortOrder = order;
      return this;
    }

    /** Table properties or write options; later calls override earlier ones. */
    public Builder setAll(Map<String, String> props) {
      if (props != null) {
        properties.putAll(props);
      }
      return this;
    }

    public Builder set(String key, String value) {
      properties.put(key, value);
      return this;
    }

    public Builder protection(ProtectionSpec spec) {
      this.protection = spec;
      return this;
    }

    /** The table the file is bound to ({@link FileBinding#of(Table)}); required. */
    public Builder binding(FileBinding fileBinding) {
      this.binding = fileBinding;
      return this;
    }

    public Builder overwrite() {
      this.overwrite = true;
      return this;
    }

    public ProtectedParquetAppender build() {
      checkArgument(schema != null, "Missing write schema for %s", file.location());
      checkArgument(
          protection != null,
          "Missing protection spec for %s: use Iceberg's writer for unprotected tables",
          file.location());
      checkArgument(
          binding != null,
          "Missing file binding for %s: every protected file is bound to "
              + "its table (binding(FileBinding.of(table)) or forTable(table))",
          file.location());
      return new ProtectedParquetAppender(this);
    }
  }
}
