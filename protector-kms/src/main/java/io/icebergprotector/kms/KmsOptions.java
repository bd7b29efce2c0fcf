/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.kms;

import java.util.List;

/**
 * The options that choose and open a key service: {@code protector.kms.*} and the key server's
 * token ({@code protector.token*}). Catalogs take them as catalog options, sessions as {@code
 * spark.protector.*} settings, the command line as flags of the same names, and {@link
 * KmsSettings#fromOptions} reads them. Each entry carries its documentation, from which the
 * configuration reference is generated.
 */
public final class KmsOptions {
  /** The prefix of the key-service options (the command line's flags drop it). */
  public static final String PREFIX = "protector.kms.";

  public static final DocumentedOption TYPE =
      DocumentedOption.of(
          "protector.kms.type",
          "local",
          "`local` (keystore file), `remote` (protector server / Vault Transit) or `pkcs11` (a"
              + " PKCS#11 token: an HSM, or SoftHSM2)");

  public static final DocumentedOption KEYSTORE =
      DocumentedOption.of("protector.kms.keystore", null, "local keystore path (PKCS12)");

  public static final DocumentedOption PASSPHRASE_ENV =
      DocumentedOption.of(
          "protector.kms.passphrase-env",
          null,
          "environment variable that holds the keystore passphrase");

  public static final DocumentedOption PASSPHRASE_FILE =
      DocumentedOption.of(
          "protector.kms.passphrase-file",
          null,
          "file that holds the keystore passphrase (exactly one of the two)");

  public static final DocumentedOption CREATE_MISSING_KEYS =
      DocumentedOption.of(
          "protector.kms.create-missing-keys",
          "false",
          "local only: create the policy's master keys that the keystore lacks (demos, tests);"
              + " refused with `remote` and `pkcs11`");

  public static final DocumentedOption KEY_CACHE_SECONDS =
      DocumentedOption.of(
          "protector.kms.key-cache-seconds",
          String.valueOf(KmsSettings.DEFAULT_KEY_CACHE_SECONDS),
          "how long a JVM uses a key it obtained from the key service (key-encryption keys,"
              + " derived mask keys) before asking again, 1 to "
              + KmsSettings.MAX_KEY_CACHE_SECONDS
              + ": the bound on how long a rotation, a destroyed key or a revoked grant takes to"
              + " reach running executors (see"
              + " [Revocation](../security/keys.md#revocation-within-the-key-cache-lifetime))");

  public static final DocumentedOption URL =
      DocumentedOption.of(
          "protector.kms.url",
          null,
          "remote key service URL, `https://host:port` (plain `http://` only on loopback, unless"
              + " `protector.kms.allow-insecure-http`); several, comma-separated, for replicas:"
              + " requests go to the first and move to the next on a connection error or a 5xx"
              + " (see [Replicas](../key-server.md#replicas-and-failover))");

  public static final DocumentedOption TRUST_STORE =
      DocumentedOption.noted(
          "protector.kms.trust-store",
          "JDK CAs",
          "remote: trust exactly this certificate (`.pem`, `.crt`, `.cer`, `.der`) or trust store"
              + " (PKCS12/JKS)");

  public static final DocumentedOption TRUST_STORE_PASSWORD_ENV =
      DocumentedOption.of(
          "protector.kms.trust-store-password-env",
          null,
          "remote: environment variable holding the trust store's password");

  public static final DocumentedOption ALLOW_INSECURE_HTTP =
      DocumentedOption.of(
          "protector.kms.allow-insecure-http",
          "false",
          "remote: also allow plain `http://` to a host that is not loopback; the token and"
              + " unwrapped keys then cross the network in clear, and the client logs a warning"
              + " naming the URL. Only behind a proxy or network you trust end to end");

  public static final DocumentedOption TOKEN =
      DocumentedOption.of(
          "protector.token",
          null,
          "remote: the token inline. Deprecated, logs a warning: Spark copies its configuration"
              + " into every job, where any code of the application can read it (see"
              + " [the trust boundary](../security/trust-boundary.md)). Set at most one of"
              + " `protector.token`, `protector.token-file` and `protector.token-env`");

  public static final DocumentedOption TOKEN_FILE =
      DocumentedOption.of(
          "protector.token-file",
          null,
          "remote: file holding the token on one line: the whole content, trimmed, is the"
              + " token, and a second line is refused with an error naming the file");

  public static final DocumentedOption TOKEN_ENV =
      DocumentedOption.of(
          "protector.token-env",
          KmsSettings.DEFAULT_TOKEN_ENV,
          "remote: environment variable holding the token, by the rule of"
              + " `protector.token-file`; the default applies when none of the three token"
              + " options is set");

  public static final DocumentedOption RUNTIME_TOKEN_FILE =
      DocumentedOption.of(
          "protector.runtime-token-file",
          null,
          "remote: file holding the credential of a trusted runtime (a shared cluster's Spark"
              + " Connect server and executors; `auth.runtimes` of the key server), sent with"
              + " every request beside the principal's token: the key server releases the keys a"
              + " principal may use only to mask only to a trusted runtime acting for it. Users"
              + " never hold it. Set at most one of `protector.runtime-token-file` and"
              + " `protector.runtime-token-env`");

  public static final DocumentedOption RUNTIME_TOKEN_ENV =
      DocumentedOption.of(
          "protector.runtime-token-env",
          null,
          "remote: environment variable holding the trusted runtime's credential, by the rule of"
              + " `protector.runtime-token-file`");

  public static final DocumentedOption PKCS11_LIBRARY =
      DocumentedOption.of(
          "protector.kms.pkcs11-library",
          null,
          "pkcs11: path of the token's PKCS#11 library, e.g."
              + " `/usr/lib/softhsm/libsofthsm2.so` (SoftHSM2), or your HSM vendor's");

  public static final DocumentedOption TOKEN_LABEL =
      DocumentedOption.of(
          "protector.kms.token-label",
          null,
          "pkcs11: the label of the token holding the master" + " keys");

  public static final DocumentedOption SLOT =
      DocumentedOption.of(
          "protector.kms.slot", null, "pkcs11: the token's slot id, instead of `token-label`");

  public static final DocumentedOption SLOT_LIST_INDEX =
      DocumentedOption.of(
          "protector.kms.slot-list-index",
          null,
          "pkcs11: the token's index among the library's slots that hold a token, instead of"
              + " `token-label` (set exactly one of the three)");

  public static final DocumentedOption PIN_ENV =
      DocumentedOption.of(
          "protector.kms.pin-env",
          null,
          "pkcs11: environment variable that holds the token's user PIN");

  public static final DocumentedOption PIN_FILE =
      DocumentedOption.of(
          "protector.kms.pin-file",
          null,
          "pkcs11: file that holds the token's user PIN (exactly one of the two; the PIN is"
              + " never an option value)");

  public static final DocumentedOption TOKEN_MODE =
      DocumentedOption.of(
          "protector.kms.token-mode",
          "local",
          "where tokens are computed: `local` (the executor derives the token key, from the"
              + " keystore or the key server's `token-key` endpoint) or `server` (protected tables"
              + " and the SQL functions send values in batches to the key server, which keeps the"
              + " key and masks for masked roles; needs `protector.kms.type = remote`). See"
              + " [Tokens](../spark/tokens.md)");

  /** Every key-service option, in the order the reference lists them. */
  public static final List<DocumentedOption> ALL =
      List.of(
          TYPE,
          KEYSTORE,
          PASSPHRASE_ENV,
          PASSPHRASE_FILE,
          CREATE_MISSING_KEYS,
          KEY_CACHE_SECONDS,
          URL,
          TRUST_STORE,
          TRUST_STORE_PASSWORD_ENV,
          ALLOW_INSECURE_HTTP,
          TOKEN,
          TOKEN_FILE,
          TOKEN_ENV,
          RUNTIME_TOKEN_FILE,
          RUNTIME_TOKEN_ENV,
          PKCS11_LIBRARY,
          TOKEN_LABEL,
          SLOT,
          SLOT_LIST_INDEX,
          PIN_ENV,
          PIN_FILE,
          TOKEN_MODE);

  private KmsOptions() {}
}
