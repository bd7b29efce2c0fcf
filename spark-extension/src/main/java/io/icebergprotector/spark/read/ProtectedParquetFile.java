/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.spark.read;

import io.icebergprotector.spark.crypto.FileBinding;
import java.io.Closeable;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Set;
import org.apache.iceberg.Schema;
import org.apache.iceberg.expressions.Binder;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.io.CloseableIterator;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.mapping.NameMapping;
import org.apache.iceberg.parquet.ParquetBloomRowGroupFilter;
import org.apache.iceberg.parquet.ParquetDictionaryRowGroupFilter;
import org.apache.iceberg.parquet.ParquetMetricsRowGroupFilter;
import org.apache.iceberg.parquet.ParquetSchemaUtil;
import org.apache.iceberg.parquet.ParquetValueReader;
import org.apache.iceberg.parquet.VectorizedReader;
import org.apache.iceberg.shaded.org.apache.parquet.ParquetReadOptions;
import org.apache.iceberg.shaded.org.apache.parquet.column.page.DictionaryPageReadStore;
import org.apache.iceberg.shaded.org.apache.parquet.column.page.PageReadStore;
import org.apache.iceberg.shaded.org.apache.parquet.conf.PlainParquetConfiguration;
import org.apache.iceberg.shaded.org.apache.parquet.crypto.FileDecryptionProperties;
import org.apache.iceberg.shaded.org.apache.parquet.crypto.InternalFileDecryptor;
import org.apache.iceberg.shaded.org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.iceberg.shaded.org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.iceberg.shaded.org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.iceberg.shaded.org.apache.parquet.hadoop.metadata.ColumnPath;
import org.apache.iceberg.shaded.org.apache.parquet.hadoop.metadata.FileMetaData;
import org.apache.iceberg.shaded.org.apache.parquet.internal.filter2.columnindex.RowRanges;
import org.apache.iceberg.shaded.org.apache.parquet.schema.MessageType;
import org.apache.iceberg.shaded.org.apache.parquet.schema.Type;

/**
 * One split of a Parquet data file opened for a protected read: footer decrypted, field ids
 * resolved, the projection requested and the row groups chosen.
 *
 * <p>Why not Iceberg's {@code ParquetReader}: its row-group filters read the statistics and
 * encodings of <em>every</em> column chunk of a row group as soon as any filter is set. For a chunk
 * encrypted with a column key, that decrypts the chunk's metadata and so requests the column's key,
 * even for a column the reader is denied (the request fails, or at best the key is fetched for
 * nothing). Here the filters only see the chunks of the columns the filter references, and those
 * are always columns the principal may see in clear. Everything else matches Iceberg: the same
 * public filter classes, id resolution and name mapping, and the same row-group loop (that of
 * Iceberg's {@code ParquetReader} and {@code VectorizedParquetReader}), so the row and the columnar
 * reader both iterate through {@link #rows} and {@link #batches}.
 */
final class ProtectedParquetFile implements Closeable {
  private final String location;
  private final ParquetFileReader reader;
  private final MessageType typeWithIds;
  private final MessageType requested;
  private final List<BlockMetaData> rowGroups;
  private final boolean[] skip;
  private final RowRanges[] pageRows;
  private final long totalRows;
  private final boolean encrypted;

  private ProtectedParquetFile(
      String location,
      ParquetFileReader reader,
      MessageType typeWithIds,
      MessageType requested,
      List<BlockMetaData> rowGroups,
      boolean[] skip,
      RowRanges[] pageRows,
      long totalRows,
      boolean encrypted) {
    this.location = location;
    this.reader = reader;
    this.typeWithIds = typeWithIds;
    this.requested = requested;
    this.rowGroups = rowGroups;
    this.skip = skip;
    this.pageRows = pageRows;
    this.totalRows = totalRows;
    this.encrypted = encrypted;
  }

  /**
   * Opens a split.
   *
   * @param file the data file, from the table's FileIO
   * @param start first byte of the split
   * @param length bytes in the split; row groups whose midpoint falls inside belong to it
   * @param readSchema the Iceberg columns whose chunks are read; never a denied column
   * @param filterSchema the schema {@code filter} binds to
   * @param filter row-group filter over clear columns only, or null
   * @param nameMapping for files written without field ids; null means {@link NameMapping#empty}
   * @param decryption PME decryption properties (they also accept plaintext files)
   * @param verifyPageChecksums check page CRCs (useful when page payloads are not authenticated)
   * @param pageFiltering read only the pages whose rows may match {@code filter} ({@link
   *     PageFilter}); only for readers that need no row positions
   */
  static ProtectedParquetFile open(
      InputFile file,
      long start,
      long length,
      Schema readSchema,
      Schema filterSchema,
      Expression filter,
      NameMapping nameMapping,
      boolean caseSensitive,
      FileDecryptionProperties decryption,
      boolean verifyPageChecksums,
      boolean pageFiltering) {
    boolean filterPages = pageFiltering && filter != null && filter != Expressions.alwaysTrue();
    ParquetReadOptions.Builder builder =
        ParquetReadOptions.builder(new PlainParquetConfiguration())
            .withRange(start, start + length)
            .withDecryption(decryption)
            .usePageChecksumVerification(verifyPageChecksums);
    if (filterPages) {
      builder.withRecordFilter(PageFilter.rangesFromCaller()).useColumnIndexFilter(true);
    }
    ParquetReadOptions options = builder.build();

    ParquetFileReader reader;
    try {
      reader = ParquetFileReader.open(new ParquetInputFileAdapter(file), options);
    } catch (IOException | RuntimeException e) {
      // the footer (and with it the file's authenticity) is checked here: say so to ReadErrors
      throw new FooterException(file.location(), e);
    }

    try {
      FileMetaData footer = reader.getFileMetaData();
      if (decryption != null && decryption.getAADPrefix() == null) {
        refuseStoredBinding(file.location(), footer);
      }
      MessageType fileSchema = footer.getSchema();
      MessageType typeWithIds;
      MessageType projection;
      if (ParquetSchemaUtil.hasIds(fileSchema)) {
        typeWithIds = fileSchema;
        projection = ParquetSchemaUtil.pruneColumns(fileSchema, readSchema);
      } else {
        NameMapping mapping = nameMapping != null ? nameMapping : NameMapping.empty();
        typeWithIds = ParquetSchemaUtil.applyNameMapping(fileSchema, mapping);
        projection = ParquetSchemaUtil.pruneColumns(typeWithIds, readSchema);
      }

      List<BlockMetaData> rowGroups = reader.getRowGroups();
      boolean[] skip = new boolean[rowGroups.size()];
      long totalRows = 0;
      RowGroupFilters filters = RowGroupFilters.of(filterSchema, filter, caseSensitive);
      for (int i = 0; i < rowGroups.size(); i++) {
        BlockMetaData rowGroup = rowGroups.get(i);
        skip[i] = filters != null && !filters.mayMatch(reader, typeWithIds, rowGroup);
        if (!skip[i]) {
          totalRows += rowGroup.getRowCount();
        }
      }

      reader.setRequestedSchema(projection);
      RowRanges[] pageRows = new RowRanges[rowGroups.size()];
      PageFilter pages =
          filterPages ? PageFilter.of(filterSchema, filter, typeWithIds, caseSensitive) : null;
      if (pages != null) {
        for (int i = 0; i < rowGroups.size(); i++) {
          if (skip[i]) {
            continue;
          }
          RowRanges rows = pages.rowsToRead(reader, i, rowGroups.get(i), projection);
          if (rows != null) {
            totalRows -= rowGroups.get(i).getRowCount() - rows.rowCount();
            skip[i] = rows.rowCount() == 0;
            pageRows[i] = skip[i] ? null : rows;
          }
        }
      }
      boolean encrypted = footer.getEncryptionType() != FileMetaData.EncryptionType.UNENCRYPTED;
      return new ProtectedParquetFile(
          file.location(),
          reader,
          typeWithIds,
          projection,
          rowGroups,
          skip,
          pageRows,
          totalRows,
          encrypted);
    } catch (RuntimeException e) {
      closeQuietly(reader, e);
      throw e;
    }
  }

  /**
   * A read that expects no binding (the table lists the file as unbound) of a file that stores one:
   * parquet would decrypt it with its stored prefix, but it is a bound file of some table and file
   * name copied where an unbound file was expected.
   */
  private static void refuseStoredBinding(String location, FileMetaData footer) {
    InternalFileDecryptor decryptor = footer.getFileDecryptor();
    byte[] fileAad = decryptor == null ? null : decryptor.getFileAAD();
    // the file AAD is the AAD prefix followed by the writer's 8 random bytes
    if (fileAad == null || fileAad.length <= AAD_FILE_UNIQUE_LENGTH) {
      return;
    }
    String[] binding =
        FileBinding.parse(Arrays.copyOf(fileAad, fileAad.length - AAD_FILE_UNIQUE_LENGTH));
    if (binding != null) {
      throw new FooterException(
          location,
          new StoredBindingException(
              String.format(
                  "the file stores a binding to table %s, file %s", binding[0], binding[1])));
    }
  }

  private static final int AAD_FILE_UNIQUE_LENGTH = 8;

  /** A file read as unbound stores a binding: it was written for some table and file name. */
  static final class StoredBindingException extends RuntimeException {
    StoredBindingException(String message) {
      super(message);
    }
  }

  String location() {
    return location;
  }

  /** The footer's key-value metadata (Iceberg's schema, the protector's token key versions). */
  java.util.Map<String, String> keyValueMetadata() {
    return reader.getFileMetaData().getKeyValueMetaData();
  }

  /** The footer of a file could not be read, decrypted or authenticated. */
  static final class FooterException extends RuntimeException {
    FooterException(String location, Exception cause) {
      super("Failed to open Parquet file " + location, cause);
    }
  }

  /** The file's schema with Iceberg field ids (from the file or the name mapping). */
  MessageType typeWithIds() {
    return typeWithIds;
  }

  /**
   * Whether the file uses Parquet Modular Encryption (plaintext files written before protection
   * don't).
   */
  boolean encrypted() {
    return encrypted;
  }

  long totalRows() {
    return totalRows;
  }

  /** Rows of the chosen row groups, read with {@code model} (built from {@link #typeWithIds()}). */
  <T> CloseableIterator<T> rows(ParquetValueReader<T> model, boolean reuseContainers) {
    return new RowIterator<>(model, reuseContainers);
  }

  @Override
  public void close() throws IOException {
    reader.close();
  }

  private static void closeQuietly(Closeable closeable, Exception failure) {
    try {
      closeable.close();
    } catch (IOException | RuntimeException e) {
      failure.addSuppressed(e);
    }
  }

  /**
   * Columnar batches of the chosen row groups, at most {@code batchSize} rows each, read with
   * {@code model} (built from {@link #typeWithIds()}, e.g. Iceberg's {@code
   * VectorizedSparkParquetReaders}). Closing the iterator closes the model and the file.
   */
  <T> CloseableIterator<T> batches(
      VectorizedReader<T> model, int batchSize, boolean reuseContainers) {
    return new BatchIterator<>(model, batchSize, reuseContainers);
  }

  /** The row-group loop shared by both iterators: skips pruned row groups, reads the next one. */
  private abstract class RowGroupIterator<T> implements CloseableIterator<T> {
    private int nextRowGroup = 0;
    private long nextRowGroupStart = 0;
    private long rowsRead = 0;

    @Override
    public boolean hasNext() {
      return rowsRead < totalRows;
    }

    @Override
    public T next() {
      if (!hasNext()) {
        throw new NoSuchElementException("No more rows in " + location);
      }
      if (rowsRead >= nextRowGroupStart) {
        advance();
      }
      int rows = (int) Math.min(nextRowGroupStart - rowsRead, maxRows());
      T result = read(rows);
      rowsRead += rows;
      return result;
    }

    private void advance() {
      while (skip[nextRowGroup]) {
        nextRowGroup += 1;
        reader.skipNextRowGroup();
      }
      PageReadStore pages;
      try {
        if (pageRows[nextRowGroup] != null) {
          pages = reader.readFilteredRowGroup(nextRowGroup, pageRows[nextRowGroup]);
          reader.skipNextRowGroup(); // keep the reader's sequential position in step
        } else {
          pages = reader.readNextRowGroup();
        }
      } catch (IOException e) {
        throw new UncheckedIOException("Failed to read a row group of " + location, e);
      }
      nextRowGroupStart += pages.getRowCount();
      startRowGroup(pages, nextRowGroup);
      nextRowGroup += 1;
    }

    abstract int maxRows();

    abstract void startRowGroup(PageReadStore pages, int ordinal);

    abstract T read(int rows);
  }

  private final class RowIterator<T> extends RowGroupIterator<T> {
    private final ParquetValueReader<T> model;
    private final boolean reuseContainers;
    private T last = null;

    RowIterator(ParquetValueReader<T> model, boolean reuseContainers) {
      this.model = model;
      this.reuseContainers = reuseContainers;
    }

    @Override
    int maxRows() {
      return 1;
    }

    @Override
    void startRowGroup(PageReadStore pages, int ordinal) {
      model.setPageSource(pages);
    }

    @Override
    T read(int rows) {
      last = model.read(reuseContainers ? last : null);
      return last;
    }

    @Override
    public void close() throws IOException {
      ProtectedParquetFile.this.close();
    }
  }

  private final class BatchIterator<T> extends RowGroupIterator<T> {
    private final VectorizedReader<T> model;
    private final int batchSize;
    private final boolean reuseContainers;
    private T last = null;

    BatchIterator(VectorizedReader<T> model, int batchSize, boolean reuseContainers) {
      this.model = model;
      this.batchSize = batchSize;
      this.reuseContainers = reuseContainers;
      model.setBatchSize(batchSize);
    }

    @Override
    int maxRows() {
      return batchSize;
    }

    @Override
    void startRowGroup(PageReadStore pages, int ordinal) {
      model.setRowGroupInfo(pages, requestedChunks(rowGroups.get(ordinal)));
    }

    /** Chunk metadata of the requested columns only (never a denied column's). */
    private Map<ColumnPath, ColumnChunkMetaData> requestedChunks(BlockMetaData rowGroup) {
      Map<ColumnPath, ColumnChunkMetaData> chunks = new HashMap<>();
      for (ColumnChunkMetaData chunk : rowGroup.getColumns()) {
        // getPath() never decrypts
        if (requested.containsPath(chunk.getPath().toArray())) {
          chunks.put(chunk.getPath(), chunk);
        }
      }
      return chunks;
    }

    @Override
    T read(int rows) {
      last = model.read(reuseContainers ? last : null, rows);
      return last;
    }

    @Override
    public void close() throws IOException {
      try {
        model.close();
      } finally {
        ProtectedParquetFile.this.close();
      }
    }
  }

  /**
   * Iceberg's statistics, dictionary and bloom filters, shown only the chunks of the columns the
   * filter references so that no other column's metadata (or key) is touched.
   */
  private static final class RowGroupFilters {
    private final Set<Integer> filterIds;
    private final ParquetMetricsRowGroupFilter stats;
    private final ParquetDictionaryRowGroupFilter dictionaries;
    private final ParquetBloomRowGroupFilter blooms;

    private RowGroupFilters(Schema schema, Expression filter, boolean caseSensitive) {
      this.filterIds = Binder.boundReferences(schema.asStruct(), List.of(filter), caseSensitive);
      this.stats = new ParquetMetricsRowGroupFilter(schema, filter, caseSensitive);
      this.dictionaries = new ParquetDictionaryRowGroupFilter(schema, filter, caseSensitive);
      this.blooms = new ParquetBloomRowGroupFilter(schema, filter, caseSensitive);
    }

    static RowGroupFilters of(Schema schema, Expression filter, boolean caseSensitive) {
      if (filter == null || filter == Expressions.alwaysTrue()) {
        return null;
      }
      return new RowGroupFilters(schema, filter, caseSensitive);
    }

    boolean mayMatch(ParquetFileReader reader, MessageType typeWithIds, BlockMetaData rowGroup) {
      BlockMetaData view = restrict(rowGroup, typeWithIds);
      if (!stats.shouldRead(typeWithIds, view)) {
        return false;
      }
      try (DictionaryPageReadStore dictionaryReader = reader.getDictionaryReader(view)) {
        if (!dictionaries.shouldRead(typeWithIds, view, dictionaryReader)) {
          return false;
        }
      }
      return blooms.shouldRead(typeWithIds, view, reader.getBloomFilterDataReader(view));
    }

    private BlockMetaData restrict(BlockMetaData rowGroup, MessageType typeWithIds) {
      BlockMetaData view = new BlockMetaData();
      view.setRowCount(rowGroup.getRowCount());
      view.setTotalByteSize(rowGroup.getTotalByteSize());
      view.setRowIndexOffset(rowGroup.getRowIndexOffset());
      view.setOrdinal(rowGroup.getOrdinal());
      view.setPath(rowGroup.getPath());
      for (ColumnChunkMetaData chunk : rowGroup.getColumns()) {
        // getPath() never decrypts; the chunk's other metadata is only read for filter columns
        Type leaf = typeWithIds.getType(chunk.getPath().toArray());
        if (leaf.getId() != null && filterIds.contains(leaf.getId().intValue())) {
          view.addColumn(chunk);
        }
      }
      return view;
    }
  }
}
