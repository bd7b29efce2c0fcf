/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.spark.read;

import java.io.IOException;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.shaded.org.apache.parquet.io.DelegatingSeekableInputStream;
import org.apache.iceberg.shaded.org.apache.parquet.io.SeekableInputStream;

/**
 * Presents an Iceberg {@link InputFile} (from the table's own FileIO, e.g. S3FileIO with vended
 * credentials) as a Parquet input file, so no Hadoop FileSystem is ever involved.
 */
public final class ParquetInputFileAdapter
    implements org.apache.iceberg.shaded.org.apache.parquet.io.InputFile {
  private final InputFile file;

  public ParquetInputFileAdapter(InputFile file) {
    this.file = file;
  }

  @Override
  public long getLength() {
    return file.getLength();
  }

  @Override
  public SeekableInputStream newStream() {
    org.apache.iceberg.io.SeekableInputStream stream = file.newStream();
    return new DelegatingSeekableInputStream(stream) {
      @Override
      public long getPos() throws IOException {
        return stream.getPos();
      }

      @Override
      public void seek(long newPos) throws IOException {
        stream.seek(newPos);
      }
    };
  }

  @Override
  public String toString() {
    return file.location();
  }
}
