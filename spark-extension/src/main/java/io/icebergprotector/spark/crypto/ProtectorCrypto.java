/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.spark.crypto;

import io.icebergprotector.kms.KeyScope;
import io.icebergprotector.policy.Policy;
import io.icebergprotector.spark.core.ColumnProtection;
import io.icebergprotector.spark.core.ProtectionSpec;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.iceberg.shaded.org.apache.parquet.column.ColumnDescriptor;
import org.apache.iceberg.shaded.org.apache.parquet.crypto.ColumnEncryptionProperties;
import org.apache.iceberg.shaded.org.apache.parquet.crypto.FileDecryptionProperties;
import org.apache.iceberg.shaded.org.apache.parquet.crypto.FileEncryptionProperties;
import org.apache.iceberg.shaded.org.apache.parquet.crypto.ParquetCipher;
import org.apache.iceberg.shaded.org.apache.parquet.crypto.keytools.KeyToolkit;
import org.apache.iceberg.shaded.org.apache.parquet.crypto.keytools.PropertiesDrivenCryptoFactory;
import org.apache.iceberg.shaded.org.apache.parquet.hadoop.api.WriteSupport;
import org.apache.iceberg.shaded.org.apache.parquet.hadoop.metadata.ColumnPath;
import org.apache.iceberg.shaded.org.apache.parquet.schema.MessageType;
import org.apache.iceberg.shaded.org.apache.parquet.schema.Type;

/**
 * Builds Parquet Modular Encryption properties for protected files through parquet-mr's {@link
 * PropertiesDrivenCryptoFactory}, so footers carry the standard key material (double wrapping,
 * master key ids) that any PME reader with a client for our key service can use. Table files are
 * additionally bound to their table and name with an AAD prefix ({@link FileBinding}), which such a
 * reader must then supply.
 */
public final class ProtectorCrypto {
  private ProtectorCrypto() {}

  /**
   * Encryption properties for one new data file of a table, bound to its place ({@link
   * FileBinding}): every leaf column under a protected field is encrypted with a data key under the
   * field's master key, the footer follows the policy, and every module's AAD starts with the
   * binding's prefix, which the file does not store.
   */
  public static FileEncryptionProperties fileEncryption(
      ProtectionSpec spec, MessageType parquetSchema, String location, FileBinding binding) {
    Objects.requireNonNull(binding, "file binding");
    FileEncryptionProperties base = unboundFileEncryption(spec, parquetSchema, location);
    return binding.bind(base, ParquetCipher.valueOf(spec.algorithm()), location);
  }

  /**
   * Encryption properties as protector versions before file binding wrote them: the same keys and
   * key material, no AAD prefix. A table reads such files only as legacy files (see {@code
   * FileAdmission}); new table files are always written with {@link #fileEncryption(ProtectionSpec,
   * MessageType, String, FileBinding)}.
   */
  public static FileEncryptionProperties unboundFileEncryption(
      ProtectionSpec spec, MessageType parquetSchema, String location) {
    Configuration conf = hadoopConf(spec);
    conf.set(PropertiesDrivenCryptoFactory.FOOTER_KEY_PROPERTY_NAME, spec.footerKeyId());
    conf.setBoolean(
        PropertiesDrivenCryptoFactory.PLAINTEXT_FOOTER_PROPERTY_NAME, spec.plaintextFooter());
    conf.set(PropertiesDrivenCryptoFactory.ENCRYPTION_ALGORITHM_PROPERTY_NAME, spec.algorithm());
    String columnKeys = columnKeys(spec, parquetSchema);
    if (!columnKeys.isEmpty()) {
      conf.set(PropertiesDrivenCryptoFactory.COLUMN_KEYS_PROPERTY_NAME, columnKeys);
    } else {
      // Every protected column was dropped from the write schema: keep footer-only protection.
      conf.set(PropertiesDrivenCryptoFactory.UNIFORM_KEY_PROPERTY_NAME, spec.footerKeyId());
      conf.unset(PropertiesDrivenCryptoFactory.FOOTER_KEY_PROPERTY_NAME);
    }
    WriteSupport.WriteContext context = new WriteSupport.WriteContext(parquetSchema, Map.of());
    FileEncryptionProperties properties =
        new PropertiesDrivenCryptoFactory()
            .getFileEncryptionProperties(conf, new Path(location), context);
    Map<ColumnPath, ColumnEncryptionProperties> plainTokens =
        plainTokenColumns(spec, parquetSchema);
    if (columnKeys.isEmpty() && !plainTokens.isEmpty()) {
      // Only tokenized columns with pme = false are protected: they must stay plain columns, not
      // go under the footer key (uniform encryption). A column map that lists them as not
      // encrypted encrypts the footer only.
      FileEncryptionProperties.Builder footerOnly =
          FileEncryptionProperties.builder(properties.getFooterKey())
              .withFooterKeyMetadata(properties.getFooterKeyMetadata())
              .withAlgorithm(ParquetCipher.valueOf(spec.algorithm()))
              .withEncryptedColumns(plainTokens);
      if (!properties.encryptedFooter()) {
        footerOnly.withPlaintextFooter();
      }
      return footerOnly.build();
    }
    return properties;
  }

  /** The leaf columns of tokenized columns with {@code pme = false}, as unencrypted columns. */
  private static Map<ColumnPath, ColumnEncryptionProperties> plainTokenColumns(
      ProtectionSpec spec, MessageType parquetSchema) {
    Map<ColumnPath, ColumnEncryptionProperties> out = new LinkedHashMap<>();
    for (ColumnDescriptor column : parquetSchema.getColumns()) {
      Type field = parquetSchema.getType(column.getPath()[0]);
      ColumnProtection protection =
          field.getId() == null ? null : spec.columns().get(field.getId().intValue());
      if (protection != null && !protection.pme()) {
        ColumnPath path = ColumnPath.get(column.getPath());
        out.put(path, ColumnEncryptionProperties.builder(path, false).build());
      }
    }
    return out;
  }

  /**
   * Decryption properties for one file. Keys are fetched lazily per column, so a column that is not
   * projected never has its key requested.
   */
  public static FileDecryptionProperties fileDecryption(ProtectionSpec spec, String location) {
    return new PropertiesDrivenCryptoFactory()
        .getFileDecryptionProperties(hadoopConf(spec), new Path(location));
  }

  /**
   * Decryption properties for one file of a table: bound to its place when {@code binding} is not
   * null (the file must be encrypted, and with exactly this AAD prefix), otherwise those of {@link
   * #fileDecryption(ProtectionSpec, String)} for legacy files. Keys are fetched lazily per column
   * either way.
   */
  public static FileDecryptionProperties fileDecryption(
      ProtectionSpec spec, String location, FileBinding binding) {
    FileDecryptionProperties unbound = fileDecryption(spec, location);
    return binding == null ? unbound : binding.decryption(unbound.getKeyRetriever(), location);
  }

  /** Decryption properties for one file read with a key scope (e.g. a plain-Parquet path's). */
  public static FileDecryptionProperties fileDecryption(
      KeyScope scope, Policy policy, String location) {
    Configuration conf = KeyTools.conf(scope, policy, ProtectorKmsClient.class.getName(), "");
    return new PropertiesDrivenCryptoFactory()
        .getFileDecryptionProperties(conf, new Path(location));
  }

  /** The HMAC key for hash masks of columns under {@code keyId}, for the spec's principal. */
  public static byte[] hashMaskKey(ProtectionSpec spec, String keyId) {
    return HashMaskKeys.get(spec.keyScope(), spec.policy(), keyId);
  }

  /** Forgets cached key-encryption keys for a spec, e.g. after a key was destroyed. */
  public static void forgetCachedKeys(ProtectionSpec spec) {
    KeyToolkit.removeCacheEntriesForToken(
        KeyTools.accessToken(spec.keyScope(), spec.writeGeneration()));
    KeyToolkit.removeCacheEntriesForToken(spec.keyScope().handle());
  }

  /** Forgets every cached key in this JVM. */
  public static void forgetAllCachedKeys() {
    KeyToolkit.removeCacheEntriesForAllTokens();
    HashMaskKeys.clear();
  }

  static Configuration hadoopConf(ProtectionSpec spec) {
    return KeyTools.conf(
        spec.keyScope(), spec.policy(), ProtectorKmsClient.class.getName(), spec.writeGeneration());
  }

  /** "key1:col.a,col.b;key2:col.c" over Parquet leaf paths, from field ids. */
  static String columnKeys(ProtectionSpec spec, MessageType parquetSchema) {
    return KeyTools.columnKeysProperty(leafKeys(spec, parquetSchema));
  }

  /**
   * The master key of every encrypted Parquet leaf column (dotted path), by the field ids in the
   * Parquet schema: the key of the innermost protected field on the leaf's path. Tokenized columns
   * declared with {@code pme = false} are not encrypted.
   */
  public static Map<String, String> leafKeys(ProtectionSpec spec, MessageType parquetSchema) {
    Map<String, String> keys = new LinkedHashMap<>();
    for (ColumnDescriptor column : parquetSchema.getColumns()) {
      String keyId = null;
      Type type = parquetSchema;
      for (String name : column.getPath()) {
        type = type.asGroupType().getType(name);
        if (type.getId() != null) {
          ColumnProtection protection = spec.columns().get(type.getId().intValue());
          if (protection != null) {
            // a tokenized column with pme = false stores its tokens as a plain column
            keyId = protection.pme() ? protection.keyId() : null;
          }
        }
      }
      if (keyId != null) {
        KeyTools.checkColumnKeyPath(column.getPath(), spec.tableName());
        keys.put(String.join(".", column.getPath()), keyId);
      }
    }
    return keys;
  }
}
