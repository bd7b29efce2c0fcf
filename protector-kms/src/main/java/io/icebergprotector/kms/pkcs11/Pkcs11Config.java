/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.kms.pkcs11;

import static io.icebergprotector.policy.Preconditions.checkArgument;

import java.nio.file.Path;

/**
 * Generates SunPKCS11 configuration text (passed inline: {@code configure("--" + text)}).
 *
 * <p>The {@code attributes(generate, ...)} templates are what makes every key we generate sensitive
 * and non-extractable from its birth as a session object: CKA_SENSITIVE and CKA_EXTRACTABLE can
 * never be relaxed afterwards (PKCS#11 forbids it, also on C_CopyObject), so the persistent copy
 * that KeyStore.setEntry makes (C_CopyObject with CKA_TOKEN=true, CKA_PRIVATE=true, CKA_LABEL)
 * inherits them. Usage is narrowed too: AES keys can only encrypt/decrypt (no C_WrapKey, no CMAC,
 * no derive), HMAC keys can only sign/verify.
 */
final class Pkcs11Config {
  static final String PROVIDER_NAME = "IcebergProtector";

  private static final String AES_TEMPLATE =
      """
      attributes(generate, CKO_SECRET_KEY, CKK_AES) = {
        CKA_SENSITIVE = true
        CKA_EXTRACTABLE = false
        CKA_ENCRYPT = true
        CKA_DECRYPT = true
        CKA_WRAP = false
        CKA_UNWRAP = false
        CKA_SIGN = false
        CKA_VERIFY = false
        CKA_DERIVE = false
      }
      """;

  private static final String HMAC_TEMPLATE =
      """
      attributes(generate, CKO_SECRET_KEY, CKK_GENERIC_SECRET) = {
        CKA_SENSITIVE = true
        CKA_EXTRACTABLE = false
        CKA_SIGN = true
        CKA_VERIFY = true
        CKA_ENCRYPT = false
        CKA_DECRYPT = false
        CKA_WRAP = false
        CKA_UNWRAP = false
        CKA_DERIVE = false
      }
      """;

  private Pkcs11Config() {}

  /** Config for the key service: slot selection plus the key templates. */
  static String forService(Path library, String slotLine) {
    return header(library, slotLine) + AES_TEMPLATE + HMAC_TEMPLATE;
  }

  /** Config for a throw-away provider that prints slot and token info (see {@link SlotProbe}). */
  static String forProbe(Path library, String slotLine) {
    return header(library, slotLine) + "showInfo = true\n";
  }

  static String slotListIndex(int index) {
    checkArgument(index >= 0, "Invalid PKCS#11 slot list index: %s (must be >= 0)", index);
    return "slotListIndex = " + index;
  }

  static String slot(long slotId) {
    if (slotId < 0 || slotId > Integer.MAX_VALUE) {
      // SunPKCS11 parses "slot" as an int.
      throw new IllegalArgumentException(
          "Invalid PKCS#11 slot id: "
              + slotId
              + " (must be 0.."
              + Integer.MAX_VALUE
              + "; select by slot list index instead)");
    }
    return "slot = " + slotId;
  }

  private static String header(Path library, String slotLine) {
    return "name = "
        + PROVIDER_NAME
        + "\n"
        + "library = "
        + quote(library)
        + "\n"
        + slotLine
        + "\n";
  }

  /**
   * SunPKCS11 reads the config with a StreamTokenizer: a quoted string may hold spaces, but
   * backslashes are escapes and {@code ${...}} is expanded as a system property, so refuse what we
   * cannot pass through verbatim.
   */
  static String quote(Path library) {
    String s = library.toString();
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      checkArgument(
          c != '"' && c != '\\' && c != '$' && c >= 0x20,
          "Invalid PKCS#11 library path %s: SunPKCS11 configuration "
              + "cannot hold '\"', '\\\\', '$' or control characters",
          s);
    }
    return "\"" + s + "\"";
  }
}
