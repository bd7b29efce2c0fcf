/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.spark.read;

import io.icebergprotector.kms.KeyServiceException;
import io.icebergprotector.spark.binding.FileIntegrityException;
import io.icebergprotector.spark.core.ProtectionSpec;
import io.icebergprotector.spark.core.ProtectorException;
import java.util.Locale;
import javax.crypto.AEADBadTagException;
import org.apache.iceberg.shaded.org.apache.parquet.crypto.KeyAccessDeniedException;
import org.apache.iceberg.shaded.org.apache.parquet.crypto.ParquetCryptoRuntimeException;
import org.apache.iceberg.shaded.org.apache.parquet.crypto.TagVerificationException;

/**
 * Turns Parquet's crypto failures into messages that name the file, the table and the cause, so a
 * tampered or swapped file reads as an integrity failure ({@link FileIntegrityException}) and never
 * as some decoding error deep in Parquet.
 */
final class ReadErrors {
  private ReadErrors() {}

  /**
   * The exception to throw for {@code failure} while reading {@code location}.
   *
   * @param encrypted whether the file is known to be PME-encrypted (null if it never opened)
   * @param bound whether the file was read with its file binding (its manifest entry is marked)
   */
  static RuntimeException translate(
      Throwable failure, String location, ProtectionSpec spec, Boolean encrypted, boolean bound) {
    if (failure instanceof ProtectorException) {
      return (ProtectorException) failure;
    }
    String table = spec.tableName();
    if (has(failure, KeyAccessDeniedException.class)
        || has(failure, io.icebergprotector.kms.KeyAccessDeniedException.class)) {
      return new ProtectorException(
          String.format(
              "Cannot read %s of table %s as %s: the key service refused a key (%s)",
              location, table, spec.principal(), rootMessage(failure)),
          failure);
    }
    KeyServiceException keyFailure = find(failure, KeyServiceException.class);
    if (keyFailure != null) {
      return new ProtectorException(
          String.format(
              "Cannot decrypt %s of table %s: key service error: %s",
              location, table, keyFailure.getMessage()),
          failure);
    }
    if (bound
        && has(failure, ProtectedParquetFile.FooterException.class)
        && !storageFailure(failure)) {
      // The footer did not authenticate under the file's binding: parquet-mr reports a tag or
      // signature mismatch (another table's or file's bytes), an AAD prefix the file was not
      // written with (an unbound file), a plaintext file, or, when the bytes are not as long as
      // the manifest says, no Parquet footer where it should be.
      return new FileIntegrityException(
          String.format(
              "Integrity check failed for data file %s of table %s: it is not the file the table"
                  + " expects there. The table's metadata marks it as bound to this table and file"
                  + " name, but its bytes were written for another table or file, without that"
                  + " binding, or were modified since (%s). Nothing was read from it; restore the"
                  + " file the table wrote, or roll the table back to a snapshot without it.",
              location, table, rootMessage(failure)),
          failure);
    }
    if (!bound
        && has(failure, ProtectedParquetFile.FooterException.class)
        && (aadPrefixRequired(failure)
            || has(failure, ProtectedParquetFile.StoredBindingException.class))) {
      return new FileIntegrityException(
          String.format(
              "Integrity check failed for data file %s of table %s: it is not the file the table"
                  + " expects there. The table's metadata lists it as a file without binding, but"
                  + " its bytes are a file bound to some table and file name (%s). Nothing was read"
                  + " from it.",
              location, table, rootMessage(failure)),
          failure);
    }
    if (has(failure, TagVerificationException.class)
        || has(failure, AEADBadTagException.class)
        || checksumFailure(failure)) {
      return new FileIntegrityException(
          String.format(
              "Integrity check failed for encrypted data file %s of table %s: decryption found"
                  + " the data was modified or corrupted after it was written (%s). No rows of"
                  + " the damaged part were returned.",
              location, table, rootMessage(failure)),
          failure);
    }
    if (has(failure, ParquetCryptoRuntimeException.class)) {
      return new ProtectorException(
          String.format(
              "Decryption or integrity failure in data file %s of table %s: %s",
              location, table, rootMessage(failure)),
          failure);
    }
    if (Boolean.TRUE.equals(encrypted)) {
      // An encrypted file that decrypts but no longer decodes was most likely altered
      return new ProtectorException(
          String.format(
              "Integrity or read failure in encrypted data file %s of table %s: %s",
              location, table, rootMessage(failure)),
          failure);
    }
    if (failure instanceof RuntimeException) {
      return (RuntimeException) failure;
    }
    return new RuntimeException("Failed to read " + location + " of table " + table, failure);
  }

  /**
   * An I/O failure of the storage (unreachable, missing, refused), as opposed to bytes that are
   * there but are not what the table wrote (a short file, a bad checksum).
   */
  private static boolean storageFailure(Throwable failure) {
    for (Throwable t = failure; t != null; t = t.getCause()) {
      if (t instanceof org.apache.iceberg.exceptions.NotFoundException) {
        return true;
      }
      if (t instanceof java.io.IOException
          && !(t instanceof java.io.EOFException)
          && !(t instanceof org.apache.hadoop.fs.ChecksumException)) {
        return true;
      }
      if (t.getCause() == t) {
        break;
      }
    }
    return false;
  }

  /** parquet-mr's refusal of a file written with an AAD prefix that the reader did not supply. */
  private static boolean aadPrefixRequired(Throwable failure) {
    ParquetCryptoRuntimeException crypto = find(failure, ParquetCryptoRuntimeException.class);
    return crypto != null
        && crypto.getMessage() != null
        && crypto.getMessage().contains("AAD prefix used for file encryption");
  }

  private static boolean checksumFailure(Throwable failure) {
    for (Throwable t = failure; t != null; t = t.getCause()) {
      String message = t.getMessage();
      if (message != null && message.toLowerCase(Locale.ROOT).contains("crc checksum")) {
        return true;
      }
    }
    return false;
  }

  private static boolean has(Throwable failure, Class<? extends Throwable> type) {
    return find(failure, type) != null;
  }

  private static <T extends Throwable> T find(Throwable failure, Class<T> type) {
    for (Throwable t = failure; t != null; t = t.getCause()) {
      if (type.isInstance(t)) {
        return type.cast(t);
      }
      if (t.getCause() == t) {
        break;
      }
    }
    return null;
  }

  private static String rootMessage(Throwable failure) {
    Throwable root = failure;
    StringBuilder chain = new StringBuilder();
    for (Throwable t = failure; t != null; t = t.getCause()) {
      root = t;
      if (t.getMessage() != null && chain.indexOf(t.getMessage()) < 0) {
        if (chain.length() > 0) {
          chain.append(": ");
        }
        chain.append(t.getMessage());
      }
      if (t.getCause() == t) {
        break;
      }
    }
    return chain.length() > 0 ? chain.toString() : root.getClass().getSimpleName();
  }
}
