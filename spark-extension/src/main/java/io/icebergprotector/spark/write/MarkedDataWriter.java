/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.spark.write;

import io.icebergprotector.spark.crypto.FileMarker;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.SortOrder;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.encryption.EncryptionKeyMetadata;
import org.apache.iceberg.io.DataWriter;
import org.apache.iceberg.io.FileAppender;

/**
 * Iceberg's {@link DataWriter} whose data file carries the protector's marker ({@link FileMarker})
 * as its key metadata. The marker is added after the file is closed: {@code DataWriter} itself
 * would parse key metadata as Iceberg's table encryption's.
 */
final class MarkedDataWriter<T> extends DataWriter<T> {
  private final PartitionSpec spec;
  private DataFile marked = null;

  MarkedDataWriter(
      FileAppender<T> appender,
      String location,
      PartitionSpec spec,
      StructLike partition,
      SortOrder sortOrder) {
    super(
        appender,
        FileFormat.PARQUET,
        location,
        spec,
        partition,
        EncryptionKeyMetadata.empty(),
        sortOrder);
    this.spec = spec;
  }

  @Override
  public DataFile toDataFile() {
    if (marked == null) {
      marked = FileMarker.mark(super.toDataFile(), spec);
    }
    return marked;
  }
}
