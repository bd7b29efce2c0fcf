/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.kms.wire;

/**
 * The members of the protector's token endpoints' bodies: {@code token-key}, and the batches of
 * {@code encode} and {@code decode} in the style of Vault transform's {@code batch_input}.
 */
public final class TokenFields {
  // token-key: {domain, version, method} -> {key, key_version, domain, method}
  public static final String DOMAIN = "domain";
  public static final String METHOD = "method";

  /** The key version asked for: 0 or absent for the latest. */
  public static final String VERSION = "version";

  public static final String KEY = "key";
  public static final String KEY_VERSION = TransitFields.KEY_VERSION;

  // encode/decode: {domain, method, version, encoding, table, column, value_type,
  //   batch_input: [{value}, ...]} -> {key_version, mask, batch_results: [{<out>} | {error}, ...]}
  public static final String ENCODING = "encoding";
  public static final String UTF_8 = "utf-8";
  public static final String BASE64 = "base64";

  /** A decode of a table read names the column it reads, and an int column's value type. */
  public static final String TABLE = "table";

  public static final String COLUMN = "column";
  public static final String VALUE_TYPE = "value_type";
  public static final String INT = "int";
  public static final String LONG = "long";
  public static final String BATCH_INPUT = TransitFields.BATCH_INPUT;
  public static final String VALUE = "value";

  /** The answer's mask spec, when the server masked the decoded values. */
  public static final String MASK = "mask";

  public static final String BATCH_RESULTS = "batch_results";
  public static final String ENCODED_VALUE = "encoded_value";
  public static final String DECODED_VALUE = "decoded_value";
  public static final String ERROR = "error";

  private TokenFields() {}

  /** The member of each result: {@code encoded_value} for encode, {@code decoded_value} else. */
  public static String resultField(boolean encode) {
    return encode ? ENCODED_VALUE : DECODED_VALUE;
  }
}
