/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.spark.write;

import static io.icebergprotector.policy.Preconditions.checkArgument;
import static org.apache.iceberg.TableProperties.PARQUET_BLOOM_FILTER_COLUMN_ENABLED_PREFIX;
import static org.apache.iceberg.TableProperties.PARQUET_BLOOM_FILTER_COLUMN_FPP_PREFIX;
import static org.apache.iceberg.TableProperties.PARQUET_BLOOM_FILTER_COLUMN_NDV_PREFIX;
import static org.apache.iceberg.TableProperties.PARQUET_BLOOM_FILTER_MAX_BYTES;
import static org.apache.iceberg.TableProperties.PARQUET_BLOOM_FILTER_MAX_BYTES_DEFAULT;
import static org.apache.iceberg.TableProperties.PARQUET_COLUMN_STATS_ENABLED_PREFIX;
import static org.apache.iceberg.TableProperties.PARQUET_COMPRESSION;
import static org.apache.iceberg.TableProperties.PARQUET_COMPRESSION_DEFAULT;
import static org.apache.iceberg.TableProperties.PARQUET_COMPRESSION_LEVEL;
import static org.apache.iceberg.TableProperties.PARQUET_DICT_SIZE_BYTES;
import static org.apache.iceberg.TableProperties.PARQUET_DICT_SIZE_BYTES_DEFAULT;
import static org.apache.iceberg.TableProperties.PARQUET_PAGE_ROW_LIMIT;
import static org.apache.iceberg.TableProperties.PARQUET_PAGE_ROW_LIMIT_DEFAULT;
import static org.apache.iceberg.TableProperties.PARQUET_PAGE_SIZE_BYTES;
import static org.apache.iceberg.TableProperties.PARQUET_PAGE_SIZE_BYTES_DEFAULT;
import static org.apache.iceberg.TableProperties.PARQUET_PAGE_VERSION;
import static org.apache.iceberg.TableProperties.PARQUET_PAGE_VERSION_DEFAULT;
import static org.apache.iceberg.TableProperties.PARQUET_ROW_GROUP_CHECK_MAX_RECORD_COUNT;
import static org.apache.iceberg.TableProperties.PARQUET_ROW_GROUP_CHECK_MAX_RECORD_COUNT_DEFAULT;
import static org.apache.iceberg.TableProperties.PARQUET_ROW_GROUP_CHECK_MIN_RECORD_COUNT;
import static org.apache.iceberg.TableProperties.PARQUET_ROW_GROUP_CHECK_MIN_RECORD_COUNT_DEFAULT;
import static org.apache.iceberg.TableProperties.PARQUET_ROW_GROUP_SIZE_BYTES;
import static org.apache.iceberg.TableProperties.PARQUET_ROW_GROUP_SIZE_BYTES_DEFAULT;

import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.Schema;
import org.apache.iceberg.shaded.org.apache.parquet.column.ColumnDescriptor;
import org.apache.iceberg.shaded.org.apache.parquet.column.ParquetProperties;
import org.apache.iceberg.shaded.org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.iceberg.shaded.org.apache.parquet.schema.MessageType;
import org.apache.iceberg.shaded.org.apache.parquet.schema.Type;
import org.apache.iceberg.util.PropertyUtil;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The table's {@code write.parquet.*} properties turned into Parquet writer settings, the same
 * properties (and defaults) that Iceberg's own Parquet writer honours.
 */
final class ParquetWriteSettings {
  private static final Logger LOG = LoggerFactory.getLogger(ParquetWriteSettings.class);

  static final String COLUMN_INDEX_TRUNCATE_LENGTH = "parquet.columnindex.truncate.length";
  static final String DICTIONARY_ENABLED = "parquet.enable.dictionary";

  private final long rowGroupSize;
  private final CompressionCodecName codec;
  private final String compressionLevel;
  private final ParquetProperties properties;

  private ParquetWriteSettings(
      long rowGroupSize,
      CompressionCodecName codec,
      String compressionLevel,
      ParquetProperties properties) {
    this.rowGroupSize = rowGroupSize;
    this.codec = codec;
    this.compressionLevel = compressionLevel;
    this.properties = properties;
  }

  /**
   * @param props table properties with write options applied on top
   * @param schema the Iceberg write schema, to map column names to Parquet paths
   * @param parquetSchema the Parquet schema of the file
   * @param protectedIds field ids of protected columns and everything nested below them
   * @param plaintextFooter whether the footer stays readable without keys
   */
  static ParquetWriteSettings from(
      Map<String, String> props,
      Schema schema,
      MessageType parquetSchema,
      Set<Integer> protectedIds,
      boolean plaintextFooter) {
    return from(props, schema, parquetSchema, protectedIds, Set.of(), plaintextFooter);
  }

  /**
   * As {@link #from(Map, Schema, MessageType, Set, boolean)}; the columns of {@code tokenizedIds}
   * are written without statistics, page index and bloom filter, whatever the properties say:
   * nothing is kept to prune them by (filters on them are never pushed down), and a tokenized
   * column with {@code pme = false} would store them in plaintext.
   */
  static ParquetWriteSettings from(
      Map<String, String> props,
      Schema schema,
      MessageType parquetSchema,
      Set<Integer> protectedIds,
      Set<Integer> tokenizedIds,
      boolean plaintextFooter) {
    int rowGroupSize =
        positiveInt(props, PARQUET_ROW_GROUP_SIZE_BYTES, PARQUET_ROW_GROUP_SIZE_BYTES_DEFAULT);
    int pageSize = positiveInt(props, PARQUET_PAGE_SIZE_BYTES, PARQUET_PAGE_SIZE_BYTES_DEFAULT);
    int pageRowLimit = positiveInt(props, PARQUET_PAGE_ROW_LIMIT, PARQUET_PAGE_ROW_LIMIT_DEFAULT);
    int dictPageSize = positiveInt(props, PARQUET_DICT_SIZE_BYTES, PARQUET_DICT_SIZE_BYTES_DEFAULT);
    int checkMin =
        positiveInt(
            props,
            PARQUET_ROW_GROUP_CHECK_MIN_RECORD_COUNT,
            PARQUET_ROW_GROUP_CHECK_MIN_RECORD_COUNT_DEFAULT);
    int checkMax =
        positiveInt(
            props,
            PARQUET_ROW_GROUP_CHECK_MAX_RECORD_COUNT,
            PARQUET_ROW_GROUP_CHECK_MAX_RECORD_COUNT_DEFAULT);
    checkArgument(
        checkMax >= checkMin,
        "Invalid %s (%s): must be >= %s (%s)",
        PARQUET_ROW_GROUP_CHECK_MAX_RECORD_COUNT,
        checkMax,
        PARQUET_ROW_GROUP_CHECK_MIN_RECORD_COUNT,
        checkMin);
    int bloomMaxBytes =
        positiveInt(props, PARQUET_BLOOM_FILTER_MAX_BYTES, PARQUET_BLOOM_FILTER_MAX_BYTES_DEFAULT);
    int columnIndexTruncateLength =
        positiveInt(
            props,
            COLUMN_INDEX_TRUNCATE_LENGTH,
            ParquetProperties.DEFAULT_COLUMN_INDEX_TRUNCATE_LENGTH);
    boolean dictionaryEnabled = PropertyUtil.propertyAsBoolean(props, DICTIONARY_ENABLED, true);

    ParquetProperties.Builder builder =
        ParquetProperties.builder()
            .withWriterVersion(
                writerVersion(
                    props.getOrDefault(PARQUET_PAGE_VERSION, PARQUET_PAGE_VERSION_DEFAULT)))
            .withPageSize(pageSize)
            .withPageRowCountLimit(pageRowLimit)
            .withDictionaryEncoding(dictionaryEnabled)
            .withDictionaryPageSize(dictPageSize)
            .withMinRowCountForPageSizeCheck(checkMin)
            .withMaxRowCountForPageSizeCheck(checkMax)
            .withMaxBloomFilterBytes(bloomMaxBytes)
            .withColumnIndexTruncateLength(columnIndexTruncateLength)
            .withPageWriteChecksumEnabled(ParquetProperties.DEFAULT_PAGE_WRITE_CHECKSUM_ENABLED);

    Map<String, String> parquetPaths = parquetPathsByColumnName(schema, parquetSchema);
    Map<String, String> fpp =
        PropertyUtil.propertiesWithPrefix(props, PARQUET_BLOOM_FILTER_COLUMN_FPP_PREFIX);
    Map<String, String> ndv =
        PropertyUtil.propertiesWithPrefix(props, PARQUET_BLOOM_FILTER_COLUMN_NDV_PREFIX);
    PropertyUtil.propertiesWithPrefix(props, PARQUET_BLOOM_FILTER_COLUMN_ENABLED_PREFIX)
        .forEach(
            (column, enabled) -> {
              String path = parquetPaths.get(column);
              if (path == null) {
                LOG.warn("Ignoring bloom filter setting for unknown column {}", column);
                return;
              }
              builder.withBloomFilterEnabled(path, Boolean.parseBoolean(enabled));
              if (fpp.containsKey(column)) {
                builder.withBloomFilterFPP(path, Double.parseDouble(fpp.get(column)));
              }
              if (ndv.containsKey(column)) {
                builder.withBloomFilterNDV(path, Long.parseLong(ndv.get(column)));
              }
            });
    PropertyUtil.propertiesWithPrefix(props, PARQUET_COLUMN_STATS_ENABLED_PREFIX)
        .forEach(
            (column, enabled) -> {
              String path = parquetPaths.get(column);
              if (path == null) {
                LOG.warn("Ignoring column statistics setting for unknown column {}", column);
                return;
              }
              builder.withStatisticsEnabled(path, Boolean.parseBoolean(enabled));
            });

    if (plaintextFooter) {
      // A plaintext footer redacts min/max of encrypted columns but keeps their size statistics
      // (value byte totals, level histograms); those describe protected data, so leave them out.
      for (ColumnDescriptor column : parquetSchema.getColumns()) {
        if (isUnderProtectedField(parquetSchema, column, protectedIds)) {
          builder.withSizeStatisticsEnabled(String.join(".", column.getPath()), false);
        }
      }
    }

    for (ColumnDescriptor column : parquetSchema.getColumns()) {
      if (isUnderProtectedField(parquetSchema, column, tokenizedIds)) {
        String path = String.join(".", column.getPath());
        builder.withStatisticsEnabled(path, false);
        builder.withSizeStatisticsEnabled(path, false);
        builder.withBloomFilterEnabled(path, false);
      }
    }

    String codecName = props.getOrDefault(PARQUET_COMPRESSION, PARQUET_COMPRESSION_DEFAULT);
    return new ParquetWriteSettings(
        rowGroupSize, codec(codecName), props.get(PARQUET_COMPRESSION_LEVEL), builder.build());
  }

  long rowGroupSize() {
    return rowGroupSize;
  }

  CompressionCodecName codec() {
    return codec;
  }

  ParquetProperties properties() {
    return properties;
  }

  /** A Hadoop configuration that carries only the compression level, for the codec factory. */
  Configuration codecConf() {
    Configuration conf = new Configuration(false);
    if (compressionLevel != null) {
      switch (codec) {
        case GZIP:
          conf.set("zlib.compress.level", compressionLevel);
          break;
        case BROTLI:
          conf.set("compression.brotli.quality", compressionLevel);
          break;
        case ZSTD:
          conf.set("parquet.compression.codec.zstd.level", compressionLevel);
          conf.set("io.compression.codec.zstd.level", compressionLevel);
          break;
        default:
          LOG.debug("Compression level {} does not apply to codec {}", compressionLevel, codec);
      }
    }
    return conf;
  }

  private static boolean isUnderProtectedField(
      MessageType parquetSchema, ColumnDescriptor column, Set<Integer> protectedIds) {
    Type type = parquetSchema;
    for (String name : column.getPath()) {
      type = type.asGroupType().getType(name);
      if (type.getId() != null && protectedIds.contains(type.getId().intValue())) {
        return true;
      }
    }
    return false;
  }

  /** Iceberg column name (as in table properties) -> dotted Parquet leaf path. */
  private static Map<String, String> parquetPathsByColumnName(
      Schema schema, MessageType parquetSchema) {
    Map<String, String> paths = new HashMap<>();
    for (ColumnDescriptor column : parquetSchema.getColumns()) {
      Type.ID id = column.getPrimitiveType().getId();
      if (id != null) {
        String name = schema.findColumnName(id.intValue());
        if (name != null) {
          paths.put(name, String.join(".", column.getPath()));
        }
      }
    }
    return paths;
  }

  private static int positiveInt(Map<String, String> props, String key, int defaultValue) {
    int value = PropertyUtil.propertyAsInt(props, key, defaultValue);
    checkArgument(value > 0, "Table property %s must be > 0, got %s", key, value);
    return value;
  }

  private static ParquetProperties.WriterVersion writerVersion(String version) {
    switch (version.trim().toLowerCase(Locale.ROOT)) {
      case "v1":
        return ParquetProperties.WriterVersion.PARQUET_1_0;
      case "v2":
        return ParquetProperties.WriterVersion.PARQUET_2_0;
      default:
        throw new IllegalArgumentException(
            String.format(
                "Unsupported %s '%s' (expected v1 or v2)", PARQUET_PAGE_VERSION, version));
    }
  }

  private static CompressionCodecName codec(String name) {
    try {
      return CompressionCodecName.valueOf(name.trim().toUpperCase(Locale.ROOT));
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(
          String.format("Unsupported %s '%s'", PARQUET_COMPRESSION, name), e);
    }
  }
}
