package io.icebergprotector.spark.crypto;

import io.icebergprotector.kms.KeyService;
import io.icebergprotector.spark.ColumnProtection;
import io.icebergprotector.spark.ProtectionSpec;
import io.icebergprotector.spark.ProtectorException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.iceberg.shaded.org.apache.parquet.column.ColumnDescriptor;
import org.apache.iceberg.shaded.org.apache.parquet.crypto.FileDecryptionProperties;
import org.apache.iceberg.shaded.org.apache.parquet.crypto.FileEncryptionProperties;
import org.apache.iceberg.shaded.org.apache.parquet.crypto.keytools.KeyToolkit;
import org.apache.iceberg.shaded.org.apache.parquet.crypto.keytools.PropertiesDrivenCryptoFactory;
import org.apache.iceberg.shaded.org.apache.parquet.hadoop.api.WriteSupport;
import org.apache.iceberg.shaded.org.apache.parquet.schema.MessageType;
import org.apache.iceberg.shaded.org.apache.parquet.schema.Type;

/**
 * Builds Parquet Modular Encryption properties for protected files through parquet-mr's
 * {@link PropertiesDrivenCryptoFactory}, so footers carry the standard key material (double
 * wrapping, master key ids) that any PME reader with a client for our key service can use.
 */
public final class ProtectorCrypto {
  /** Key-derivation context for hash masks: one HMAC key per master key, stable across rotation. */
  public static final String HASH_MASK_CONTEXT = "iceberg-protector/mask/hash/v1";

  private static final String CACHE_LIFETIME_SECONDS = "600";
  private static final Map<String, byte[]> HASH_KEYS = new ConcurrentHashMap<>();

  private ProtectorCrypto() {}

  /**
   * Encryption properties for one new data file. Every leaf column under a protected field is
   * encrypted with a data key under the field's master key; the footer follows the policy.
   */
  public static FileEncryptionProperties fileEncryption(
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
    return new PropertiesDrivenCryptoFactory()
        .getFileEncryptionProperties(conf, new Path(location), context);
  }

  /**
   * Decryption properties for one file. Keys are fetched lazily per column, so a column that is
   * not projected never has its key requested.
   */
  public static FileDecryptionProperties fileDecryption(ProtectionSpec spec, String location) {
    return new PropertiesDrivenCryptoFactory()
        .getFileDecryptionProperties(hadoopConf(spec), new Path(location));
  }

  /** The HMAC key for hash masks of columns under {@code keyId}, derived once per JVM. */
  public static byte[] hashMaskKey(ProtectionSpec spec, String keyId) {
    return HASH_KEYS.computeIfAbsent(
        spec.cacheToken() + "/" + keyId,
        k -> {
          KeyService keys = KeyServiceRegistry.obtain(spec);
          return keys.deriveKey(keyId, HASH_MASK_CONTEXT);
        });
  }

  /** Forgets cached key-encryption keys for a spec, e.g. after a key was destroyed. */
  public static void forgetCachedKeys(ProtectionSpec spec) {
    KeyToolkit.removeCacheEntriesForToken(spec.cacheToken());
    HASH_KEYS.keySet().removeIf(k -> k.startsWith(spec.cacheToken() + "/"));
  }

  /** Forgets every cached key in this JVM. */
  public static void forgetAllCachedKeys() {
    KeyToolkit.removeCacheEntriesForAllTokens();
    HASH_KEYS.values().forEach(k -> java.util.Arrays.fill(k, (byte) 0));
    HASH_KEYS.clear();
  }

  static Configuration hadoopConf(ProtectionSpec spec) {
    return keyToolsConf(spec, ProtectorKmsClient.class.getName());
  }

  /**
   * Parquet key-tools settings for a principal's key service, in a fresh configuration so that
   * stray {@code parquet.encryption.*} settings cannot change them. Shared by the Iceberg path and
   * Spark's own Parquet path (relocated and plain parquet-mr read the same property names), which
   * differ only in their KMS client class.
   */
  public static Configuration keyToolsConf(ProtectionSpec spec, String kmsClientClass) {
    KeyServiceRegistry.obtain(spec);
    Configuration conf = new Configuration(false);
    conf.set(KeyToolkit.KMS_CLIENT_CLASS_PROPERTY_NAME, kmsClientClass);
    conf.set(KeyToolkit.KMS_INSTANCE_ID_PROPERTY_NAME, spec.kms().endpoint());
    conf.set(KeyToolkit.KEY_ACCESS_TOKEN_PROPERTY_NAME, spec.cacheToken());
    conf.setBoolean(KeyToolkit.DOUBLE_WRAPPING_PROPERTY_NAME, true);
    conf.set(KeyToolkit.CACHE_LIFETIME_PROPERTY_NAME, CACHE_LIFETIME_SECONDS);
    conf.setInt(KeyToolkit.DATA_KEY_LENGTH_PROPERTY_NAME, 256);
    conf.setInt(KeyToolkit.KEK_LENGTH_PROPERTY_NAME, 256);
    return conf;
  }

  /** "key1:col.a,col.b;key2:col.c" over Parquet leaf paths, from field ids. */
  static String columnKeys(ProtectionSpec spec, MessageType parquetSchema) {
    return columnKeysProperty(leafKeys(spec, parquetSchema));
  }

  /**
   * Parquet's column-key property, {@code key1:a,b.c;key2:d}, from each leaf's dotted path to its
   * master key id (in leaf order).
   */
  public static String columnKeysProperty(Map<String, String> keyByLeaf) {
    Map<String, List<String>> byKey = new LinkedHashMap<>();
    keyByLeaf.forEach((path, keyId) -> byKey.computeIfAbsent(keyId, k -> new ArrayList<>()).add(path));
    StringBuilder sb = new StringBuilder();
    byKey.forEach(
        (key, paths) -> {
          if (sb.length() > 0) {
            sb.append(';');
          }
          sb.append(key).append(':').append(String.join(",", paths));
        });
    return sb.toString();
  }

  /**
   * Refuses a leaf path that Parquet's column-key property cannot name: a field name that is empty
   * or holds one of its separators would encrypt the wrong columns, or none.
   */
  public static void checkColumnKeyPath(String[] path, String owner) {
    for (String part : path) {
      if (part.isEmpty() || part.contains(".") || part.contains(",") || part.contains(":")
          || part.contains(";")) {
        throw new ProtectorException(
            String.format(
                "Cannot encrypt column '%s' under %s: Parquet's column-key list cannot name a"
                    + " field containing '.', ',', ':' or ';'; rename the column",
                String.join(".", path), owner));
      }
    }
  }

  /**
   * The master key of every encrypted Parquet leaf column (dotted path), by the field ids in the
   * Parquet schema: the key of the innermost protected field on the leaf's path.
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
            keyId = protection.keyId();
          }
        }
      }
      if (keyId != null) {
        checkColumnKeyPath(column.getPath(), spec.tableName());
        keys.put(String.join(".", column.getPath()), keyId);
      }
    }
    return keys;
  }
}
