/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.spark.read;

import io.icebergprotector.spark.core.InternalRowStructLike;
import java.util.List;
import java.util.function.Supplier;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.Schema;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.BaseDeleteLoader;
import org.apache.iceberg.data.DeleteFilter;
import org.apache.iceberg.data.DeleteLoader;
import org.apache.iceberg.deletes.DeleteCounter;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.spark.SparkExecutorCache;
import org.apache.iceberg.spark.SparkSchemaUtil;
import org.apache.spark.sql.catalyst.InternalRow;

/**
 * The row-level deletes of one data file, as Iceberg's Spark readers apply them: position delete
 * files and deletion vectors by row position, equality deletes (on unprotected columns only, see
 * {@link BaseProtectedReader#checkReadable}) by value. Delete files hold file locations, positions
 * and, for equality deletes, values of unprotected columns; they are read with Iceberg's own
 * readers through the table's FileIO, and may be cached per executor as Iceberg caches them.
 */
final class ProtectedDeleteFilter extends DeleteFilter<InternalRow> {
  private final Table table;
  private final boolean cacheOnExecutors;
  private final InternalRowStructLike asStructLike;

  /**
   * @param tableSchema the schema equality field ids are resolved in
   * @param expectedSchema the schema of the rows the reader returns; the filter may add {@code
   *     _pos} and equality columns to it ({@link #requiredSchema()})
   */
  ProtectedDeleteFilter(
      Table table,
      String dataFile,
      List<DeleteFile> deletes,
      Schema tableSchema,
      Schema expectedSchema,
      DeleteCounter counter,
      boolean cacheOnExecutors) {
    super(dataFile, deletes, tableSchema, expectedSchema, counter, true);
    this.table = table;
    this.cacheOnExecutors = cacheOnExecutors;
    this.asStructLike =
        new InternalRowStructLike(
            SparkSchemaUtil.convert(requiredSchema()), requiredSchema().asStruct());
  }

  @Override
  protected StructLike asStructLike(InternalRow row) {
    return asStructLike.wrap(row);
  }

  @Override
  protected InputFile getInputFile(String location) {
    return table.io().newInputFile(location);
  }

  @Override
  protected InputFile loadInputFile(DeleteFile deleteFile) {
    return table.io().newInputFile(deleteFile.location(), deleteFile.fileSizeInBytes());
  }

  @Override
  protected void markRowDeleted(InternalRow row) {
    if (!row.getBoolean(columnIsDeletedPosition())) {
      row.setBoolean(columnIsDeletedPosition(), true);
      incrementDeleteCount();
    }
  }

  @Override
  protected DeleteLoader newDeleteLoader() {
    SparkExecutorCache cache = cacheOnExecutors ? SparkExecutorCache.getOrCreate() : null;
    if (cache == null) {
      return new BaseDeleteLoader(this::loadInputFile);
    }
    return new CachingLoader(cache);
  }

  /** Iceberg's executor cache of loaded deletes (positions, or values of unprotected columns). */
  private final class CachingLoader extends BaseDeleteLoader {
    private final SparkExecutorCache cache;

    CachingLoader(SparkExecutorCache cache) {
      super(ProtectedDeleteFilter.this::loadInputFile);
      this.cache = cache;
    }

    @Override
    protected boolean canCache(long size) {
      return size < cache.maxEntrySize();
    }

    @Override
    protected <V> V getOrLoad(String key, Supplier<V> valueSupplier, long valueSize) {
      return cache.getOrLoad(table.name(), key, valueSupplier, valueSize);
    }
  }
}
