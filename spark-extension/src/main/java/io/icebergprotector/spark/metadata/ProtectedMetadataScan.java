/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.spark.metadata;

import java.util.OptionalLong;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.connector.metric.CustomMetric;
import org.apache.spark.sql.connector.metric.CustomTaskMetric;
import org.apache.spark.sql.connector.read.Batch;
import org.apache.spark.sql.connector.read.InputPartition;
import org.apache.spark.sql.connector.read.PartitionReader;
import org.apache.spark.sql.connector.read.PartitionReaderFactory;
import org.apache.spark.sql.connector.read.Scan;
import org.apache.spark.sql.connector.read.Statistics;
import org.apache.spark.sql.connector.read.SupportsReportStatistics;
import org.apache.spark.sql.types.StructType;

/**
 * Iceberg's scan of a metadata table whose rows pass through a {@link MetricsRedaction} on the
 * executors. Rows only: metadata tables have no columnar reads.
 */
final class ProtectedMetadataScan implements Scan, Batch, SupportsReportStatistics {
  private final Scan delegate;
  private final MetricsRedaction redaction;
  private Batch lazyBatch = null;

  ProtectedMetadataScan(Scan delegate, MetricsRedaction redaction) {
    this.delegate = delegate;
    this.redaction = redaction;
  }

  @Override
  public StructType readSchema() {
    return delegate.readSchema();
  }

  @Override
  public String description() {
    return "ProtectedMetadataScan[" + delegate.description() + "]";
  }

  @Override
  public Batch toBatch() {
    return this;
  }

  @Override
  public ColumnarSupportMode columnarSupportMode() {
    return ColumnarSupportMode.UNSUPPORTED;
  }

  private Batch batch() {
    if (lazyBatch == null) {
      lazyBatch = delegate.toBatch();
    }
    return lazyBatch;
  }

  @Override
  public InputPartition[] planInputPartitions() {
    return batch().planInputPartitions();
  }

  @Override
  public PartitionReaderFactory createReaderFactory() {
    return new RedactingReaderFactory(batch().createReaderFactory(), redaction);
  }

  /** Row count and size only: column statistics could describe protected columns. */
  @Override
  public Statistics estimateStatistics() {
    OptionalLong size = OptionalLong.empty();
    OptionalLong rows = OptionalLong.empty();
    if (delegate instanceof SupportsReportStatistics) {
      Statistics stats = ((SupportsReportStatistics) delegate).estimateStatistics();
      size = stats.sizeInBytes();
      rows = stats.numRows();
    }
    OptionalLong sizeInBytes = size;
    OptionalLong numRows = rows;
    return new Statistics() {
      @Override
      public OptionalLong sizeInBytes() {
        return sizeInBytes;
      }

      @Override
      public OptionalLong numRows() {
        return numRows;
      }
    };
  }

  @Override
  public CustomMetric[] supportedCustomMetrics() {
    return delegate.supportedCustomMetrics();
  }

  @Override
  public CustomTaskMetric[] reportDriverMetrics() {
    return delegate.reportDriverMetrics();
  }

  @Override
  public String toString() {
    return description();
  }

  /** Wraps Iceberg's row readers; each row is redacted before Spark sees it. */
  private static final class RedactingReaderFactory implements PartitionReaderFactory {
    private static final long serialVersionUID = 1L;
    private final PartitionReaderFactory delegate;
    private final MetricsRedaction redaction;

    RedactingReaderFactory(PartitionReaderFactory delegate, MetricsRedaction redaction) {
      this.delegate = delegate;
      this.redaction = redaction;
    }

    @Override
    public PartitionReader<InternalRow> createReader(InputPartition partition) {
      PartitionReader<InternalRow> reader = delegate.createReader(partition);
      return new PartitionReader<>() {
        @Override
        public boolean next() throws java.io.IOException {
          return reader.next();
        }

        @Override
        public InternalRow get() {
          return redaction.apply(reader.get());
        }

        @Override
        public CustomTaskMetric[] currentMetricsValues() {
          return reader.currentMetricsValues();
        }

        @Override
        public void close() throws java.io.IOException {
          reader.close();
        }
      };
    }

    @Override
    public boolean supportColumnarReads(InputPartition partition) {
      return false;
    }
  }
}
