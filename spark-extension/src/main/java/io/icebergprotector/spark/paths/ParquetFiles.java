/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.spark.paths;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.parquet.format.FileMetaData;
import org.apache.parquet.format.Util;

/** What a Parquet file's tail and key metadata say about its encryption (unshaded parquet-mr). */
final class ParquetFiles {
  private static final byte[] PLAINTEXT_MAGIC = "PAR1".getBytes(StandardCharsets.US_ASCII);
  private static final byte[] ENCRYPTED_MAGIC = "PARE".getBytes(StandardCharsets.US_ASCII);
  private static final int TAIL = 8; // footer length (4 bytes, little endian) and magic
  private static final ObjectMapper JSON = new ObjectMapper();

  private ParquetFiles() {}

  /**
   * Whether a Parquet file is encrypted: an encrypted footer ({@code PARE}), or a plaintext footer
   * that names an encryption algorithm (PME's plaintext-footer mode). A file too short or with
   * another magic is reported as encrypted, so that Parquet itself says what is wrong with it.
   */
  static boolean isEncrypted(Path file, Configuration conf) throws IOException {
    FileSystem fs = file.getFileSystem(conf);
    long length = fs.getFileStatus(file).getLen();
    if (length < PLAINTEXT_MAGIC.length + TAIL) {
      return true;
    }
    try (FSDataInputStream in = fs.open(file)) {
      byte[] tail = new byte[TAIL];
      in.readFully(length - TAIL, tail);
      byte[] magic = Arrays.copyOfRange(tail, 4, TAIL);
      if (Arrays.equals(magic, ENCRYPTED_MAGIC)) {
        return true;
      }
      if (!Arrays.equals(magic, PLAINTEXT_MAGIC)) {
        return true;
      }
      int footerLength = ByteBuffer.wrap(tail, 0, 4).order(ByteOrder.LITTLE_ENDIAN).getInt();
      long footerStart = length - TAIL - footerLength;
      if (footerLength <= 0 || footerStart < PLAINTEXT_MAGIC.length) {
        return true;
      }
      in.seek(footerStart);
      // A signed plaintext footer is followed by its nonce and tag, which the Thrift read ignores.
      FileMetaData metadata = Util.readFileMetaData(in);
      return metadata.isSetEncryption_algorithm();
    }
  }

  /**
   * Whether Parquet key metadata is the internally stored key material of a footer key ({@code
   * "isFooterKey": true}); anything else, including unreadable or external material, is not.
   */
  static boolean isFooterKeyMaterial(byte[] keyMetadata) {
    if (keyMetadata == null) {
      return false;
    }
    try {
      JsonNode material = JSON.readTree(keyMetadata);
      return material != null
          && material.path("internalStorage").asBoolean(false)
          && material.path("isFooterKey").asBoolean(false);
    } catch (IOException e) {
      return false;
    }
  }
}
