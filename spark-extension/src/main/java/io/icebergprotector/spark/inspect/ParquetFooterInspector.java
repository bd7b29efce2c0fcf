/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.spark.inspect;

import static io.icebergprotector.policy.Preconditions.checkArgument;

import io.icebergprotector.spark.core.ProtectorException;
import io.icebergprotector.spark.inspect.FooterReport.FooterMode;
import java.io.ByteArrayInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import org.apache.iceberg.Files;
import org.apache.iceberg.exceptions.NotFoundException;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.io.SeekableInputStream;
import org.apache.iceberg.shaded.org.apache.parquet.crypto.AesCipher;
import org.apache.iceberg.shaded.org.apache.parquet.crypto.AesGcmEncryptor;
import org.apache.iceberg.shaded.org.apache.parquet.crypto.FileDecryptionProperties;
import org.apache.iceberg.shaded.org.apache.parquet.crypto.InternalFileDecryptor;
import org.apache.iceberg.shaded.org.apache.parquet.crypto.TagVerificationException;
import org.apache.iceberg.shaded.org.apache.parquet.format.BlockCipher;
import org.apache.iceberg.shaded.org.apache.parquet.format.ColumnChunk;
import org.apache.iceberg.shaded.org.apache.parquet.format.ColumnCryptoMetaData;
import org.apache.iceberg.shaded.org.apache.parquet.format.EncryptionAlgorithm;
import org.apache.iceberg.shaded.org.apache.parquet.format.EncryptionWithColumnKey;
import org.apache.iceberg.shaded.org.apache.parquet.format.FileCryptoMetaData;
import org.apache.iceberg.shaded.org.apache.parquet.format.FileMetaData;
import org.apache.iceberg.shaded.org.apache.parquet.format.RowGroup;
import org.apache.iceberg.shaded.org.apache.parquet.format.SchemaElement;
import org.apache.iceberg.shaded.org.apache.parquet.format.Util;

/**
 * Reads the footer of a Parquet file and reports its Modular Encryption layout: footer mode,
 * algorithm, footer key material and, where the footer is readable, which columns are encrypted
 * under which master keys. Works without keys for plaintext footers; an encrypted footer needs
 * {@link FileDecryptionProperties} that can produce the footer key. Column keys are never
 * requested: everything reported lives in the footer.
 */
public final class ParquetFooterInspector {
  private static final byte[] MAGIC = "PAR1".getBytes(StandardCharsets.US_ASCII);
  private static final byte[] ENCRYPTED_MAGIC = "PARE".getBytes(StandardCharsets.US_ASCII);
  // head magic + footer length + tail magic
  private static final int MIN_LENGTH = 4 + 4 + 4;
  private static final int SIGNATURE_LENGTH = AesCipher.NONCE_LENGTH + AesCipher.GCM_TAG_LENGTH;

  private ParquetFooterInspector() {}

  /** Inspects a file without keys: an encrypted footer is reported with hidden columns. */
  public static FooterReport inspect(InputFile file) {
    return inspect(file, null);
  }

  /** Inspects a local file without keys. */
  public static FooterReport inspect(java.nio.file.Path localFile) {
    return inspect(localFile, null);
  }

  /** Inspects a local file, decrypting an encrypted footer with {@code decryption} if not null. */
  public static FooterReport inspect(
      java.nio.file.Path localFile, FileDecryptionProperties decryption) {
    checkArgument(localFile != null, "Invalid file: null");
    return inspect(Files.localInput(localFile.toFile()), decryption);
  }

  /**
   * Inspects a file. With {@code decryption} (may be null) an encrypted footer is decrypted and a
   * signed plaintext footer has its signature verified (unless the properties disable that).
   *
   * @throws IllegalArgumentException if the file is missing, not Parquet, truncated or corrupt
   * @throws ProtectorException if the footer key cannot be obtained or does not decrypt/verify
   */
  public static FooterReport inspect(InputFile file, FileDecryptionProperties decryption) {
    checkArgument(file != null, "Invalid file: null");
    String location = file.location();
    Tail tail = readTail(file, location);
    if (tail.encryptedFooter) {
      return inspectEncryptedFooter(location, tail, decryption);
    }
    return inspectPlaintextFooter(location, tail, decryption);
  }

  private static FooterReport inspectPlaintextFooter(
      String location, Tail tail, FileDecryptionProperties decryption) {
    FileMetaData meta;
    try {
      meta = Util.readFileMetaData(new ByteArrayInputStream(tail.footer));
    } catch (IOException | RuntimeException e) {
      throw corrupt(location, "cannot parse the footer", e);
    }

    if (!meta.isSetEncryption_algorithm()) {
      return report(location, tail, FooterMode.PLAINTEXT, null, null, false, meta);
    }

    EncryptionAlgorithm algorithm = meta.getEncryption_algorithm();
    byte[] signingKeyMetadata =
        meta.isSetFooter_signing_key_metadata() ? meta.getFooter_signing_key_metadata() : null;
    KeyMaterial footerKey =
        signingKeyMetadata == null ? null : KeyMaterial.parse(signingKeyMetadata);

    boolean verified = false;
    if (decryption != null && decryption.checkFooterIntegrity()) {
      verifySignature(location, tail.footer, algorithm, signingKeyMetadata, footerKey, decryption);
      verified = true;
    }
    return report(
        location, tail, FooterMode.PLAINTEXT_SIGNED, algorithm, footerKey, verified, meta);
  }

  private static FooterReport inspectEncryptedFooter(
      String location, Tail tail, FileDecryptionProperties decryption) {
    ByteArrayInputStream in = new ByteArrayInputStream(tail.footer);
    FileCryptoMetaData crypto;
    try {
      crypto = Util.readFileCryptoMetaData(in);
    } catch (IOException | RuntimeException e) {
      throw corrupt(location, "cannot parse the file crypto metadata", e);
    }
    if (!crypto.isSetEncryption_algorithm()) {
      throw corrupt(location, "the file crypto metadata has no encryption algorithm", null);
    }
    EncryptionAlgorithm algorithm = crypto.getEncryption_algorithm();
    byte[] keyMetadata = crypto.isSetKey_metadata() ? crypto.getKey_metadata() : null;
    KeyMaterial footerKey = keyMetadata == null ? null : KeyMaterial.parse(keyMetadata);

    if (decryption == null) {
      return new FooterReport(
          location,
          tail.fileLength,
          FooterMode.ENCRYPTED,
          algorithmName(algorithm),
          aadPrefixRequired(algorithm),
          storedAadPrefix(algorithm),
          footerKey,
          false,
          false,
          Collections.emptyList(),
          -1,
          -1,
          null);
    }

    InternalFileDecryptor decryptor =
        footerDecryptor(location, algorithm, true, keyMetadata, footerKey, decryption);
    FileMetaData meta;
    try {
      BlockCipher.Decryptor footerDecryptor = decryptor.fetchFooterDecryptor();
      byte[] footerAad = AesCipher.createFooterAAD(decryptor.getFileAAD());
      meta = Util.readFileMetaData(in, footerDecryptor, footerAad);
    } catch (IOException | RuntimeException e) {
      if (hasCause(e, TagVerificationException.class)) {
        throw new ProtectorException(
            "Cannot decrypt the footer of "
                + location
                + describeKey(footerKey)
                + ": authentication failed (wrong footer key or AAD prefix, or the footer was modified)",
            e);
      }
      throw corrupt(location, "cannot decrypt or parse the encrypted footer", e);
    }
    return report(location, tail, FooterMode.ENCRYPTED, algorithm, footerKey, false, meta);
  }

  /** Recomputes the GCM tag of the plaintext footer with the footer key, as parquet-mr does. */
  private static void verifySignature(
      String location,
      byte[] footer,
      EncryptionAlgorithm algorithm,
      byte[] signingKeyMetadata,
      KeyMaterial footerKey,
      FileDecryptionProperties decryption) {
    if (footer.length < SIGNATURE_LENGTH) {
      throw corrupt(location, "the signed plaintext footer is shorter than its signature", null);
    }
    InternalFileDecryptor decryptor =
        footerDecryptor(location, algorithm, false, signingKeyMetadata, footerKey, decryption);
    int serializedLength = footer.length - SIGNATURE_LENGTH;
    byte[] serialized = Arrays.copyOfRange(footer, 0, serializedLength);
    byte[] nonce =
        Arrays.copyOfRange(footer, serializedLength, serializedLength + AesCipher.NONCE_LENGTH);
    byte[] tag =
        Arrays.copyOfRange(footer, serializedLength + AesCipher.NONCE_LENGTH, footer.length);
    byte[] expectedTag;
    try {
      AesGcmEncryptor signer = decryptor.createSignedFooterEncryptor();
      byte[] aad = AesCipher.createFooterAAD(decryptor.getFileAAD());
      byte[] encrypted = signer.encrypt(false, serialized, nonce, aad);
      expectedTag =
          Arrays.copyOfRange(
              encrypted, encrypted.length - AesCipher.GCM_TAG_LENGTH, encrypted.length);
    } catch (RuntimeException e) {
      throw new ProtectorException(
          "Cannot verify the footer signature of "
              + location
              + describeKey(footerKey)
              + ": "
              + e.getMessage(),
          e);
    }
    if (!MessageDigest.isEqual(tag, expectedTag)) {
      throw new ProtectorException(
          "Footer signature mismatch in "
              + location
              + describeKey(footerKey)
              + ": wrong footer key, or the footer was modified");
    }
  }

  /** Sets up parquet-mr's decryptor; this is where the footer key is unwrapped via the KMS. */
  private static InternalFileDecryptor footerDecryptor(
      String location,
      EncryptionAlgorithm algorithm,
      boolean encryptedFooter,
      byte[] keyMetadata,
      KeyMaterial footerKey,
      FileDecryptionProperties decryption) {
    String stored = storedAadPrefix(algorithm);
    if (stored != null
        && decryption.getAADPrefix() != null
        && !stored.equals(new String(decryption.getAADPrefix(), StandardCharsets.UTF_8))) {
      // parquet-mr refuses it while setting up the footer key; it is not a key problem
      throw new ProtectorException(
          "Cannot decrypt the footer of "
              + location
              + ": the file stores the binding "
              + stored
              + ", not the expected "
              + new String(decryption.getAADPrefix(), StandardCharsets.UTF_8)
              + " (AAD Prefix in file and in decryption properties is not the same)");
    }
    InternalFileDecryptor decryptor = new InternalFileDecryptor(decryption);
    try {
      decryptor.setFileCryptoMetaData(algorithm, encryptedFooter, keyMetadata);
    } catch (RuntimeException e) {
      throw new ProtectorException(
          "Cannot obtain the footer key of "
              + location
              + describeKey(footerKey)
              + ": "
              + e.getMessage(),
          e);
    }
    return decryptor;
  }

  private static FooterReport report(
      String location,
      Tail tail,
      FooterMode mode,
      EncryptionAlgorithm algorithm,
      KeyMaterial footerKey,
      boolean verified,
      FileMetaData meta) {
    List<RowGroup> rowGroups =
        meta.isSetRow_groups() ? meta.getRow_groups() : Collections.emptyList();
    return new FooterReport(
        location,
        tail.fileLength,
        mode,
        algorithm == null ? null : algorithmName(algorithm),
        algorithm != null && aadPrefixRequired(algorithm),
        algorithm == null ? null : storedAadPrefix(algorithm),
        footerKey,
        verified,
        true,
        columns(location, meta, rowGroups),
        meta.isSetNum_rows() ? meta.getNum_rows() : -1,
        rowGroups.size(),
        meta.isSetCreated_by() ? meta.getCreated_by() : null);
  }

  /**
   * One report per leaf column. Leaf i of the schema is column chunk i of every row group; PME
   * configures encryption per file, so the first row group is representative.
   */
  private static List<ColumnReport> columns(
      String location, FileMetaData meta, List<RowGroup> rowGroups) {
    List<String> leaves = leafPaths(location, meta.isSetSchema() ? meta.getSchema() : List.of());
    List<ColumnChunk> chunks =
        rowGroups.isEmpty() || !rowGroups.get(0).isSetColumns()
            ? Collections.emptyList()
            : rowGroups.get(0).getColumns();
    if (!chunks.isEmpty() && chunks.size() != leaves.size()) {
      throw corrupt(
          location,
          "the schema has "
              + leaves.size()
              + " leaf columns but row group 0 has "
              + chunks.size()
              + " column chunks",
          null);
    }
    List<ColumnReport> result = new ArrayList<>(leaves.size());
    for (int i = 0; i < leaves.size(); i++) {
      ColumnChunk chunk = chunks.isEmpty() ? null : chunks.get(i);
      result.add(column(leaves.get(i), chunk));
    }
    return result;
  }

  private static ColumnReport column(String path, ColumnChunk chunk) {
    if (chunk == null || !chunk.isSetCrypto_metadata()) {
      return new ColumnReport(path, false, false, null);
    }
    ColumnCryptoMetaData crypto = chunk.getCrypto_metadata();
    if (crypto.isSetENCRYPTION_WITH_FOOTER_KEY()) {
      return new ColumnReport(path, true, true, null);
    }
    EncryptionWithColumnKey columnKey = crypto.getENCRYPTION_WITH_COLUMN_KEY();
    KeyMaterial material =
        columnKey != null && columnKey.isSetKey_metadata()
            ? KeyMaterial.parse(columnKey.getKey_metadata())
            : null;
    return new ColumnReport(path, true, false, material);
  }

  /** Dotted paths of the schema's leaves, from the flattened depth-first SchemaElement list. */
  private static List<String> leafPaths(String location, List<SchemaElement> schema) {
    List<String> paths = new ArrayList<>();
    if (schema.isEmpty()) {
      return paths;
    }
    int[] next = {1};
    int rootChildren = schema.get(0).isSetNum_children() ? schema.get(0).getNum_children() : 0;
    try {
      for (int i = 0; i < rootChildren; i++) {
        collectLeaves(schema, next, "", paths);
      }
    } catch (IndexOutOfBoundsException e) {
      throw corrupt(location, "the schema's child counts exceed its element list", e);
    }
    return paths;
  }

  private static void collectLeaves(
      List<SchemaElement> schema, int[] next, String prefix, List<String> paths) {
    SchemaElement element = schema.get(next[0]++);
    String path = prefix.isEmpty() ? element.getName() : prefix + "." + element.getName();
    if (element.isSetType() || !element.isSetNum_children()) {
      paths.add(path);
      return;
    }
    for (int i = 0; i < element.getNum_children(); i++) {
      collectLeaves(schema, next, path, paths);
    }
  }

  private static String algorithmName(EncryptionAlgorithm algorithm) {
    if (algorithm.isSetAES_GCM_V1()) {
      return "AES_GCM_V1";
    }
    if (algorithm.isSetAES_GCM_CTR_V1()) {
      return "AES_GCM_CTR_V1";
    }
    return "UNKNOWN";
  }

  private static boolean aadPrefixRequired(EncryptionAlgorithm algorithm) {
    if (algorithm.isSetAES_GCM_V1()) {
      return algorithm.getAES_GCM_V1().isSupply_aad_prefix();
    }
    if (algorithm.isSetAES_GCM_CTR_V1()) {
      return algorithm.getAES_GCM_CTR_V1().isSupply_aad_prefix();
    }
    return false;
  }

  private static String storedAadPrefix(EncryptionAlgorithm algorithm) {
    byte[] prefix = null;
    if (algorithm.isSetAES_GCM_V1() && algorithm.getAES_GCM_V1().isSetAad_prefix()) {
      prefix = algorithm.getAES_GCM_V1().getAad_prefix();
    } else if (algorithm.isSetAES_GCM_CTR_V1() && algorithm.getAES_GCM_CTR_V1().isSetAad_prefix()) {
      prefix = algorithm.getAES_GCM_CTR_V1().getAad_prefix();
    }
    return prefix == null ? null : new String(prefix, StandardCharsets.UTF_8);
  }

  /** Reads head magic, footer length, tail magic and the footer bytes. */
  private static Tail readTail(InputFile file, String location) {
    long length;
    try {
      length = file.getLength();
    } catch (NotFoundException e) {
      throw new IllegalArgumentException("Cannot inspect " + location + ": file not found", e);
    }
    if (length < MIN_LENGTH && !file.exists()) {
      // local files report length 0 when missing
      throw new IllegalArgumentException("Cannot inspect " + location + ": file not found");
    }
    checkArgument(
        length >= MIN_LENGTH,
        "Not a Parquet file: %s is too short (%s bytes; a Parquet file has at least %s)",
        location,
        length,
        MIN_LENGTH);
    try (SeekableInputStream in = file.newStream()) {
      byte[] head = readAt(in, 0, 4);
      byte[] end = readAt(in, length - 8, 8);
      byte[] magic = Arrays.copyOfRange(end, 4, 8);
      boolean encryptedFooter;
      if (Arrays.equals(magic, MAGIC)) {
        encryptedFooter = false;
      } else if (Arrays.equals(magic, ENCRYPTED_MAGIC)) {
        encryptedFooter = true;
      } else {
        throw new IllegalArgumentException(
            "Not a Parquet file: "
                + location
                + " has bad magic '"
                + printable(magic)
                + "' at its end (expected 'PAR1' or 'PARE'; the file may be truncated)");
      }
      checkArgument(
          Arrays.equals(head, magic),
          "Not a Parquet file: %s starts with magic '%s' but ends with '%s'",
          location,
          printable(head),
          printable(magic));
      long footerLength =
          (end[0] & 0xFFL)
              | (end[1] & 0xFFL) << 8
              | (end[2] & 0xFFL) << 16
              | (end[3] & 0xFFL) << 24;
      if (footerLength == 0
          || footerLength > length - MIN_LENGTH
          || footerLength > Integer.MAX_VALUE - 8) {
        throw corrupt(
            location,
            "footer length " + footerLength + " does not fit in a file of " + length + " bytes",
            null);
      }
      byte[] footer = readAt(in, length - 8 - footerLength, (int) footerLength);
      return new Tail(length, encryptedFooter, footer);
    } catch (NotFoundException e) {
      throw new IllegalArgumentException("Cannot inspect " + location + ": file not found", e);
    } catch (EOFException e) {
      throw new IllegalArgumentException(
          "Cannot inspect " + location + ": file is shorter than its reported length " + length, e);
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read " + location + ": " + e.getMessage(), e);
    }
  }

  private static byte[] readAt(SeekableInputStream in, long position, int length)
      throws IOException {
    in.seek(position);
    byte[] bytes = new byte[length];
    int off = 0;
    while (off < length) {
      int n = in.read(bytes, off, length - off);
      if (n < 0) {
        throw new EOFException("Reached end of stream after " + off + " of " + length + " bytes");
      }
      off += n;
    }
    return bytes;
  }

  private static String printable(byte[] magic) {
    StringBuilder sb = new StringBuilder();
    for (byte b : magic) {
      int c = b & 0xFF;
      if (c >= 0x20 && c < 0x7F) {
        sb.append((char) c);
      } else {
        sb.append(String.format("\\x%02X", c));
      }
    }
    return sb.toString();
  }

  private static IllegalArgumentException corrupt(String location, String what, Throwable cause) {
    String detail = cause == null || cause.getMessage() == null ? "" : ": " + cause.getMessage();
    return new IllegalArgumentException(
        "Corrupt Parquet file " + location + ": " + what + detail, cause);
  }

  private static String describeKey(KeyMaterial footerKey) {
    if (footerKey == null || footerKey.masterKeyId() == null) {
      return "";
    }
    return " (footer master key '" + footerKey.masterKeyId() + "')";
  }

  private static boolean hasCause(Throwable e, Class<? extends Throwable> type) {
    for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
      if (type.isInstance(t)) {
        return true;
      }
    }
    return false;
  }

  private static final class Tail {
    private final long fileLength;
    private final boolean encryptedFooter;
    private final byte[] footer;

    private Tail(long fileLength, boolean encryptedFooter, byte[] footer) {
      this.fileLength = fileLength;
      this.encryptedFooter = encryptedFooter;
      this.footer = footer;
    }
  }
}
