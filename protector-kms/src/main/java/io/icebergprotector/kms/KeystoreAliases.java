/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.kms;

import java.nio.charset.StandardCharsets;
import java.util.HexFormat;

/** How {@link LocalKeyService} names key ids inside a PKCS12 keystore. */
final class KeystoreAliases {
  private KeystoreAliases() {}

  /**
   * PKCS12 lower-cases aliases, so ids are hex-encoded (case-sensitive ids "PII" and "pii" get
   * distinct aliases). Hex never contains '#', so version aliases cannot collide with each other or
   * the metadata entry.
   */
  static String hex(String keyId) {
    return HexFormat.of().formatHex(keyId.getBytes(StandardCharsets.UTF_8));
  }

  static String fromHex(String hex) {
    return new String(HexFormat.of().parseHex(hex), StandardCharsets.UTF_8);
  }

  static String alias(String keyId, int version) {
    return hex(keyId) + "#v" + version;
  }
}
