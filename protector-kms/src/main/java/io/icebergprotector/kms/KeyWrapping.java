/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.kms;

/**
 * Wrapping keys under a master key, and deriving keys from one. The argument order is that of
 * Iceberg's {@code KeyManagementClient.wrapKey(key, wrappingKeyId)} and parquet-java's {@code
 * KmsClient.wrapKey(keyBytes, masterKeyIdentifier)}: the key first, the master key's id last. The
 * master key material never leaves the implementation.
 */
public interface KeyWrapping {
  /**
   * Wraps {@code key} (a data key or key-encryption key) under the latest version of master key
   * {@code wrappingKeyId}; returns {@code vault:v<N>:<base64>}.
   */
  String wrapKey(byte[] key, String wrappingKeyId);

  /**
   * Unwraps a blob that {@link #wrapKey} produced under the same master key; the version is read
   * from the blob.
   *
   * @throws KeyIntegrityException if the tag does not verify or the blob was wrapped under another
   *     key id
   */
  byte[] unwrapKey(String wrappedKey, String wrappingKeyId);

  /**
   * The prefix of the {@link #deriveKey} contexts of the protector's own keys: a key service
   * releases none of them but {@link #HASH_MASK_CONTEXT}, and that one only to the principals that
   * mask with it ({@link KeyGrants#checkDerive}).
   */
  String RESERVED_CONTEXT_PREFIX = "iceberg-protector/";

  /**
   * The {@link #deriveKey} context of the keys of {@code hash} masks of PME columns, one per master
   * key: the Spark readers of a masked column derive it (its principal holds the column key
   * anyway).
   */
  String HASH_MASK_CONTEXT = "iceberg-protector/mask/hash/v1";

  /**
   * The {@link #deriveKey} context of the key server's {@code hash} masks of tokenized columns
   * (server token mode), one per master key. It is never released: the masked reader of a tokenized
   * column holds neither its token key nor this key, so it cannot hash candidates to reverse a
   * mask.
   */
  String TOKEN_HASH_MASK_CONTEXT = "iceberg-protector/mask/hash/token/v1";

  /**
   * HMAC-SHA256(version-1 material of keyId, UTF-8 context): 32 bytes, stable across rotation (hash
   * masks).
   */
  byte[] deriveKey(String keyId, String context);
}
