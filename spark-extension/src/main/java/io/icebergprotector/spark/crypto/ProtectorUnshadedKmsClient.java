/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.spark.crypto;

import org.apache.hadoop.conf.Configuration;
import org.apache.parquet.crypto.KeyAccessDeniedException;
import org.apache.parquet.crypto.ParquetCryptoRuntimeException;
import org.apache.parquet.crypto.keytools.KmsClient;

/**
 * Parquet key-tools client over our key service for Spark's own (unshaded) parquet-mr: Spark's
 * Parquet data source with {@code parquet.crypto.factory.class} set to the path factory ({@code
 * paths.PathPolicyCryptoFactory}), which sets {@code parquet.encryption.kms.client.class} to this
 * class. Same contract as {@link ProtectorKmsClient} (Iceberg's relocated parquet-mr): the access
 * token is the handle of a key scope registered in this JVM ({@link KeyServiceRegistry}); a token
 * that names no registered scope gets nothing. There is deliberately no way to name a principal in
 * a Hadoop configuration instead: that would let any code in the JVM claim to be anyone.
 */
public final class ProtectorUnshadedKmsClient implements KmsClient {
  private final KmsClientCalls calls =
      new KmsClientCalls(KeyAccessDeniedException::new, ParquetCryptoRuntimeException::new);

  @Override
  public void initialize(
      Configuration configuration,
      String kmsInstanceId,
      String kmsInstanceUrl,
      String accessToken) {
    calls.initialize(
        accessToken,
        "No Iceberg Protector key scope is registered in this JVM for the given"
            + " access token (parquet.encryption.key.access.token); files under a"
            + " protected prefix are read and written through the protector's"
            + " Spark extension");
  }

  @Override
  public String wrapKey(byte[] keyBytes, String masterKeyIdentifier) {
    return calls.wrap(keyBytes, masterKeyIdentifier);
  }

  @Override
  public byte[] unwrapKey(String wrappedKey, String masterKeyIdentifier) {
    return calls.unwrap(wrappedKey, masterKeyIdentifier);
  }
}
