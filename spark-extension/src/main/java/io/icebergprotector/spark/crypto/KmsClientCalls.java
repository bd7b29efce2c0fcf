/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.spark.crypto;

import io.icebergprotector.kms.KeyAccessDeniedException;
import io.icebergprotector.kms.KeyService;
import io.icebergprotector.kms.KeyServiceException;
import java.util.function.BiFunction;

/**
 * What both Parquet key-tools clients do (Iceberg's relocated Parquet and Spark's own): find the
 * key scope an access token names, and wrap or unwrap through it. Each client passes the exception
 * constructors of its own Parquet, so that Parquet sees a denial as its {@code
 * KeyAccessDeniedException}.
 */
final class KmsClientCalls {
  private final BiFunction<String, Throwable, RuntimeException> denied;
  private final BiFunction<String, Throwable, RuntimeException> failed;
  private KeyService keys;

  KmsClientCalls(
      BiFunction<String, Throwable, RuntimeException> denied,
      BiFunction<String, Throwable, RuntimeException> failed) {
    this.denied = denied;
    this.failed = failed;
  }

  /** Binds to the scope registered under {@code accessToken}, or fails with {@code unknown}. */
  void initialize(String accessToken, String unknown) {
    this.keys =
        KeyServiceRegistry.lookup(accessToken).orElseThrow(() -> denied.apply(unknown, null));
  }

  String wrap(byte[] keyBytes, String masterKeyId) {
    try {
      return keys.wrapKey(keyBytes, masterKeyId);
    } catch (KeyAccessDeniedException e) {
      throw denied.apply(e.getMessage(), e);
    } catch (KeyServiceException e) {
      throw failed.apply(e.getMessage(), e);
    }
  }

  byte[] unwrap(String wrappedKey, String masterKeyId) {
    try {
      return keys.unwrapKey(wrappedKey, masterKeyId);
    } catch (KeyAccessDeniedException e) {
      throw denied.apply(e.getMessage(), e);
    } catch (KeyServiceException e) {
      throw failed.apply(e.getMessage(), e);
    }
  }
}
