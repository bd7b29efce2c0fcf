/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.kms.wire;

/** The key server's paths and protector-specific headers. */
public final class Endpoints {
  /** The credential of every request (Vault's header; {@code Authorization: Bearer} works too). */
  public static final String TOKEN_HEADER = "X-Vault-Token";

  /**
   * The credential of a trusted runtime (a shared cluster's Spark Connect server and executors)
   * acting for the principal whose token the request carries: a key server releases the keys a
   * principal uses only to mask only with it.
   */
  public static final String RUNTIME_TOKEN_HEADER = "X-Protector-Runtime-Token";

  /** The content digest of the server's whole policy, on every policy answer. */
  public static final String POLICY_DIGEST_HEADER = "X-Protector-Policy-Digest";

  /** The Transit mount the key server serves (Vault may mount Transit elsewhere). */
  public static final String TRANSIT_MOUNT = "transit";

  /** The Transit actions below {@code /v1/<mount>/}; the key name follows. */
  public static final String ENCRYPT = "encrypt";

  public static final String DECRYPT = "decrypt";
  public static final String HMAC = "hmac";
  public static final String KEYS = "keys";

  /** Below {@code keys/<key>/}: a new version, and the retirement of old ones. */
  public static final String ROTATE = "rotate";

  public static final String CONFIG = "config";

  /** The protector's own endpoints (not on Vault). */
  public static final String PROTECTOR = "/v1/protector/";

  public static final String POLICY = PROTECTOR + "policy";
  public static final String WHOAMI = PROTECTOR + "whoami";
  public static final String DECLASSIFY = PROTECTOR + "declassify";

  /** The token actions below {@link #PROTECTOR}; the key name follows. */
  public static final String TOKEN_KEY = "token-key";

  public static final String ENCODE = "encode";
  public static final String DECODE = "decode";

  private Endpoints() {}

  /** {@code /v1/<mount>/}, the prefix of the Transit actions. */
  public static String transit(String mount) {
    return "/v1/" + mount + "/";
  }
}
