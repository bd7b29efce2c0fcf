/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.spark.write;

import java.io.IOException;
import org.apache.iceberg.io.OutputFile;
import org.apache.iceberg.shaded.org.apache.parquet.io.PositionOutputStream;

/**
 * Lets the (shaded) Parquet file writer write through an Iceberg {@link OutputFile}, so protected
 * files go through the table's FileIO (S3FileIO, vended credentials) and never a Hadoop FileSystem.
 */
final class IcebergParquetOutputFile
    implements org.apache.iceberg.shaded.org.apache.parquet.io.OutputFile {
  private final OutputFile file;

  IcebergParquetOutputFile(OutputFile file) {
    this.file = file;
  }

  @Override
  public PositionOutputStream create(long blockSizeHint) {
    return new Stream(file.create());
  }

  @Override
  public PositionOutputStream createOrOverwrite(long blockSizeHint) {
    return new Stream(file.createOrOverwrite());
  }

  @Override
  public boolean supportsBlockSize() {
    // Object stores have no HDFS blocks; no row-group padding.
    return false;
  }

  @Override
  public long defaultBlockSize() {
    return 0;
  }

  @Override
  public String getPath() {
    return file.location();
  }

  /**
   * Forwards to the Iceberg stream. The position stays readable after close because the Parquet
   * writer closes the stream in {@code end()}, before the appender reports its final length.
   */
  private static final class Stream extends PositionOutputStream {
    private final org.apache.iceberg.io.PositionOutputStream delegate;
    private long closedPos = -1;

    private Stream(org.apache.iceberg.io.PositionOutputStream delegate) {
      this.delegate = delegate;
    }

    @Override
    public long getPos() throws IOException {
      return closedPos >= 0 ? closedPos : delegate.getPos();
    }

    @Override
    public void write(int b) throws IOException {
      delegate.write(b);
    }

    @Override
    public void write(byte[] b) throws IOException {
      delegate.write(b);
    }

    @Override
    public void write(byte[] b, int off, int len) throws IOException {
      delegate.write(b, off, len);
    }

    @Override
    public void flush() throws IOException {
      delegate.flush();
    }

    @Override
    public void close() throws IOException {
      if (closedPos < 0) {
        long pos = delegate.getPos();
        delegate.close();
        this.closedPos = pos;
      }
    }
  }
}
