/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.spark.crypto;

import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.shaded.org.apache.parquet.crypto.KeyAccessDeniedException;
import org.apache.iceberg.shaded.org.apache.parquet.crypto.ParquetCryptoRuntimeException;
import org.apache.iceberg.shaded.org.apache.parquet.crypto.keytools.KmsClient;

/**
 * Parquet key-tools client (Iceberg's relocated Parquet) over our key service. Parquet creates it
 * by class name and caches it per access token; the token selects the principal's service.
 */
public final class ProtectorKmsClient implements KmsClient {
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
        "No Iceberg Protector key service is registered in this JVM for the given"
            + " access token; files must be read and written through the"
            + " protector catalog");
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
