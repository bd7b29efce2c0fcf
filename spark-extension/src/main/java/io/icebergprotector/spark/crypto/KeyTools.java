/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.spark.crypto;

import io.icebergprotector.kms.KeyScope;
import io.icebergprotector.policy.Policy;
import io.icebergprotector.spark.core.ProtectorException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;

/**
 * Parquet key-tools settings (shared by Iceberg's relocated parquet-mr and Spark's own, which read
 * the same property names) for one key scope. Free of Iceberg classes so that the plain-Parquet
 * path works on a Spark classpath without Iceberg.
 */
public final class KeyTools {
  static final String KMS_CLIENT_CLASS = "parquet.encryption.kms.client.class";
  static final String KMS_INSTANCE_ID = "parquet.encryption.kms.instance.id";
  static final String KEY_ACCESS_TOKEN = "parquet.encryption.key.access.token";
  static final String DOUBLE_WRAPPING = "parquet.encryption.double.wrapping";
  static final String CACHE_LIFETIME = "parquet.encryption.cache.lifetime.seconds";
  static final String DATA_KEY_LENGTH = "parquet.encryption.data.key.length.bits";
  static final String KEK_LENGTH = "parquet.encryption.kek.length.bits";

  private KeyTools() {}

  /**
   * Settings for a principal's key service, in a fresh configuration so that stray {@code
   * parquet.encryption.*} settings cannot change them. The scope's service is registered first, so
   * the client Parquet creates finds it by the access token.
   *
   * @param generation distinguishes key-encryption-key caches of one scope (e.g. the key versions
   *     current when a write started), or "" for none
   */
  public static Configuration conf(
      KeyScope scope, Policy policy, String kmsClientClass, String generation) {
    KeyServiceRegistry.obtain(scope, policy);
    Configuration conf = new Configuration(false);
    conf.set(KMS_CLIENT_CLASS, kmsClientClass);
    conf.set(KMS_INSTANCE_ID, scope.kms().endpoint());
    conf.set(KEY_ACCESS_TOKEN, accessToken(scope, generation));
    conf.setBoolean(DOUBLE_WRAPPING, true);
    // how long executors may wrap and unwrap with a key-encryption key without the key service
    conf.setLong(CACHE_LIFETIME, scope.kms().keyCacheSeconds());
    conf.setInt(DATA_KEY_LENGTH, 256);
    conf.setInt(KEK_LENGTH, 256);
    return conf;
  }

  /** The access token Parquet caches key-encryption keys under: the handle plus a generation. */
  public static String accessToken(KeyScope scope, String generation) {
    return generation == null || generation.isEmpty()
        ? scope.handle()
        : scope.handle() + "#" + Integer.toHexString(generation.hashCode());
  }

  /**
   * Parquet's column-key property, {@code key1:a,b.c;key2:d}, from each leaf's dotted path to its
   * master key id (in leaf order).
   */
  public static String columnKeysProperty(Map<String, String> keyByLeaf) {
    Map<String, List<String>> byKey = new LinkedHashMap<>();
    keyByLeaf.forEach(
        (path, keyId) -> byKey.computeIfAbsent(keyId, k -> new ArrayList<>()).add(path));
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
      if (part.isEmpty()
          || part.contains(".")
          || part.contains(",")
          || part.contains(":")
          || part.contains(";")) {
        throw new ProtectorException(
            String.format(
                "Cannot encrypt column '%s' under %s: Parquet's column-key list cannot name a"
                    + " field containing '.', ',', ':' or ';'; rename the column",
                String.join(".", path), owner));
      }
    }
  }
}
