/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.kms.wire;

/** The members of Vault Transit's bodies, as the key server serves them. */
public final class TransitFields {
  /** The only key type: AES-256-GCM with 96-bit nonces. */
  public static final String KEY_TYPE = "aes256-gcm96";

  // encrypt: {plaintext} -> {ciphertext, key_version}; decrypt: {ciphertext} -> {plaintext}
  public static final String PLAINTEXT = "plaintext";
  public static final String CIPHERTEXT = "ciphertext";
  public static final String KEY_VERSION = "key_version";

  // hmac: {input, key_version, algorithm} -> {hmac}
  public static final String INPUT = "input";
  public static final String ALGORITHM = "algorithm";
  public static final String HMAC = "hmac";

  /** An hmac's prefix: derived keys always come from version 1, so hash masks survive rotation. */
  public static final String HMAC_PREFIX = "vault:v1:";

  /** Vault's batches, which the key server refuses outside its token endpoints. */
  public static final String BATCH_INPUT = "batch_input";

  // key administration: create {type}, config {min_decryption_version}, list -> {keys: [...]}
  public static final String TYPE = "type";
  public static final String MIN_DECRYPTION_VERSION = "min_decryption_version";
  public static final String KEYS = "keys";

  private TransitFields() {}
}
