/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.spark.crypto;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.apache.iceberg.ContentFile;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileMetadata;
import org.apache.iceberg.PartitionSpec;

/**
 * The protector's mark on the files it writes, kept in Iceberg's {@code key_metadata} of each
 * manifest entry ({@link ContentFile#keyMetadata()}). Manifests are table metadata, which the
 * catalog guards, so a reader learns from there, not from the file's own bytes, that a file must be
 * bound ({@link FileBinding}): a bound file swapped for an unbound or plaintext one fails as well.
 *
 * <p>The marker holds nothing secret: 4 bytes of magic ({@code "IPFB"}), a format version and the
 * binding scheme (1: table UUID + file name), 6 bytes in all. Iceberg's own table encryption keeps
 * Avro-serialized key metadata there, which starts with a version byte of 1 and so never looks like
 * the marker. It works for any content file: position delete files and deletion vectors can carry
 * it once the protector writes them.
 *
 * <p>Iceberg's own writers ({@code DataWriter} and the delete writers) parse non-null key metadata
 * as their table encryption's, so files are marked after they are closed ({@link #mark(DataFile,
 * PartitionSpec)}).
 */
public final class FileMarker {
  private static final byte[] MAGIC = "IPFB".getBytes(StandardCharsets.US_ASCII);

  /** Marker format version written by this build. */
  static final byte VERSION = 1;

  /** Binding scheme: AAD prefix from the table UUID and the file name. */
  static final byte SCHEME_TABLE_UUID_FILE_NAME = 1;

  private static final byte[] CURRENT = marker(VERSION, SCHEME_TABLE_UUID_FILE_NAME);

  /** What a manifest entry's key metadata says about its file. */
  public enum Kind {
    /** No key metadata: the protector did not write it with file binding. */
    NONE,
    /** The protector's marker: the file is bound to the table UUID and its file name. */
    BOUND,
    /** Key metadata that is not the protector's (e.g. Iceberg's table encryption). */
    FOREIGN,
    /** The protector's magic with a version or scheme this build does not know. */
    UNSUPPORTED
  }

  private FileMarker() {}

  /** {@code file} with the marker of the current binding scheme as its key metadata. */
  public static DataFile mark(DataFile file, PartitionSpec spec) {
    return DataFiles.builder(spec).copy(file).withEncryptionKeyMetadata(bytes()).build();
  }

  /** {@code file} with the marker of the current binding scheme as its key metadata. */
  public static DeleteFile mark(DeleteFile file, PartitionSpec spec) {
    return FileMetadata.deleteFileBuilder(spec)
        .copy(file)
        .withEncryptionKeyMetadata(bytes())
        .build();
  }

  /** The marker bytes, in a new buffer. */
  public static ByteBuffer bytes() {
    return ByteBuffer.wrap(CURRENT.clone());
  }

  public static Kind kindOf(ContentFile<?> file) {
    return kindOf(file.keyMetadata());
  }

  public static Kind kindOf(ByteBuffer keyMetadata) {
    if (keyMetadata == null || !keyMetadata.hasRemaining()) {
      return Kind.NONE;
    }
    byte[] bytes = toArray(keyMetadata);
    if (bytes.length < MAGIC.length + 2
        || !Arrays.equals(Arrays.copyOf(bytes, MAGIC.length), MAGIC)) {
      return Kind.FOREIGN;
    }
    return Arrays.equals(bytes, CURRENT) ? Kind.BOUND : Kind.UNSUPPORTED;
  }

  /** The marker's version and scheme, or what the key metadata is instead, for messages. */
  public static String describe(ContentFile<?> file) {
    ByteBuffer keyMetadata = file.keyMetadata();
    switch (kindOf(keyMetadata)) {
      case NONE:
        return "no file-binding marker in its manifest entry";
      case BOUND:
        return "file-binding marker version " + VERSION + ", scheme " + SCHEME_TABLE_UUID_FILE_NAME;
      case FOREIGN:
        return "key metadata of "
            + keyMetadata.remaining()
            + " bytes in its manifest entry that is not the protector's file-binding marker";
      default:
        byte[] bytes = toArray(keyMetadata);
        return "file-binding marker version "
            + bytes[MAGIC.length]
            + ", scheme "
            + bytes[MAGIC.length + 1]
            + ", which this protector version does not know";
    }
  }

  private static byte[] marker(byte version, byte scheme) {
    byte[] bytes = Arrays.copyOf(MAGIC, MAGIC.length + 2);
    bytes[MAGIC.length] = version;
    bytes[MAGIC.length + 1] = scheme;
    return bytes;
  }

  private static byte[] toArray(ByteBuffer buffer) {
    ByteBuffer view = buffer.duplicate();
    byte[] bytes = new byte[view.remaining()];
    view.get(bytes);
    return bytes;
  }
}
