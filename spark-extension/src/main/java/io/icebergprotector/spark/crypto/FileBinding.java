/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.spark.crypto;

import static io.icebergprotector.policy.Preconditions.checkArgument;

import java.io.Serializable;
import java.nio.charset.StandardCharsets;
import java.util.Objects;
import java.util.UUID;
import org.apache.iceberg.Table;
import org.apache.iceberg.shaded.org.apache.parquet.crypto.DecryptionKeyRetriever;
import org.apache.iceberg.shaded.org.apache.parquet.crypto.FileDecryptionProperties;
import org.apache.iceberg.shaded.org.apache.parquet.crypto.FileEncryptionProperties;
import org.apache.iceberg.shaded.org.apache.parquet.crypto.ParquetCipher;

/**
 * Binds an encrypted data file to its place: the table it belongs to and its own file name. The
 * binding is the Parquet Modular Encryption AAD prefix, which every AES-GCM tag of the file
 * (footer, column metadata, page headers, pages) authenticates. Files store it (PME AAD prefix
 * storage), so that any PME reader with the keys opens them (parquet-java's {@code
 * PropertiesDrivenCryptoFactory}, PyArrow's {@code CryptoFactory}); this project's readers still
 * supply the prefix they expect from the table's metadata, which parquet compares with the stored
 * one, so a file copied over another (an older file of the same table, or a file of another table
 * under the same keys) is refused before any value is read. Files written before the prefix was
 * stored need it supplied, and read as before.
 *
 * <p>The identity is {@code table UUID + file name}:
 *
 * <ul>
 *   <li>The table UUID ({@link Table#uuid()}) survives renames, {@code register_table} of the same
 *       metadata under another name or catalog, {@code rewrite_table_path}, and replacing the table
 *       ({@code CREATE OR REPLACE}, RTAS keep the UUID). A staged CTAS assigns the UUID when the
 *       table is staged, before any file is written, and commits it unchanged. Two tables never
 *       share a UUID unless one was registered from the other's metadata, in which case they share
 *       their files too.
 *   <li>The file name (the last segment of its location) is unique within a table (Iceberg names
 *       files by partition, task, operation UUID and counter) and survives relocations that rewrite
 *       path prefixes ({@code rewrite_table_path}, moving a warehouse), which the full location
 *       would not.
 * </ul>
 *
 * <p>The prefix is {@code "iceberg-protector/file-binding/v1:" + uuid + ":" + fileName} in UTF-8;
 * the UUID has a fixed length and no ':', so the encoding is unambiguous. Other PME readers need
 * the same bytes to decrypt a bound file (see "Other readers" in docs/security/file-binding.md).
 */
public final class FileBinding implements Serializable {
  private static final long serialVersionUID = 1L;
  private static final String SCHEME = "iceberg-protector/file-binding/v1:";

  private final String tableUuid;

  private FileBinding(String tableUuid) {
    this.tableUuid = tableUuid;
  }

  /** The binding of files of {@code table} (its UUID; a staged table's UUID is already final). */
  public static FileBinding of(Table table) {
    Objects.requireNonNull(table, "table");
    UUID uuid = table.uuid();
    checkArgument(uuid != null, "Cannot bind files of table %s: it has no UUID", table.name());
    return new FileBinding(uuid.toString());
  }

  /** The binding of files of the table with this UUID. */
  public static FileBinding of(UUID tableUuid) {
    return new FileBinding(Objects.requireNonNull(tableUuid, "table UUID").toString());
  }

  public String tableUuid() {
    return tableUuid;
  }

  /** The last segment of a file location: what stays the same when a table is relocated. */
  public static String fileName(String location) {
    Objects.requireNonNull(location, "location");
    int slash = location.lastIndexOf('/');
    String name = slash >= 0 ? location.substring(slash + 1) : location;
    checkArgument(!name.isEmpty(), "Cannot bind a file location without a file name: %s", location);
    return name;
  }

  /**
   * The table and file a stored AAD prefix binds a file to ({@code [table uuid, file name]}), or
   * null when {@code prefix} is not a binding of this project.
   */
  public static String[] parse(byte[] prefix) {
    String text = new String(prefix, StandardCharsets.UTF_8);
    if (!text.startsWith(SCHEME)) {
      return null;
    }
    String rest = text.substring(SCHEME.length());
    int colon = rest.indexOf(':');
    return colon < 0 ? null : new String[] {rest.substring(0, colon), rest.substring(colon + 1)};
  }

  /** The AAD prefix of the file at {@code location}. */
  public byte[] aadPrefix(String location) {
    return (SCHEME + tableUuid + ":" + fileName(location)).getBytes(StandardCharsets.UTF_8);
  }

  /**
   * {@code base} (the standard key material: wrapped keys, master key ids, footer mode) for the
   * file at {@code location}, bound to it: the AAD prefix is used and stored.
   */
  FileEncryptionProperties bind(
      FileEncryptionProperties base, ParquetCipher cipher, String location) {
    FileEncryptionProperties.Builder builder =
        FileEncryptionProperties.builder(base.getFooterKey())
            .withFooterKeyMetadata(base.getFooterKeyMetadata())
            .withAlgorithm(cipher)
            .withAADPrefix(aadPrefix(location));
    if (!base.encryptedFooter()) {
      builder.withPlaintextFooter();
    }
    if (base.getEncryptedColumns() != null) {
      // without a column map, every column is encrypted with the footer key (uniform encryption);
      // a map of unencrypted columns only (pme = false token columns) encrypts no column
      builder.withEncryptedColumns(base.getEncryptedColumns());
    }
    return builder.build();
  }

  /**
   * Decryption of the bound file at {@code location}: keys come from {@code keys}, the AAD prefix
   * from this binding. Plaintext files are refused, so an unencrypted file copied over a bound one
   * fails too.
   */
  FileDecryptionProperties decryption(DecryptionKeyRetriever keys, String location) {
    return FileDecryptionProperties.builder()
        .withKeyRetriever(keys)
        .withAADPrefix(aadPrefix(location))
        .build();
  }

  @Override
  public boolean equals(Object other) {
    return other instanceof FileBinding && ((FileBinding) other).tableUuid.equals(tableUuid);
  }

  @Override
  public int hashCode() {
    return tableUuid.hashCode();
  }

  @Override
  public String toString() {
    return "FileBinding{table-uuid=" + tableUuid + "}";
  }
}
