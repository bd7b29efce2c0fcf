/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.policy;

import java.util.Locale;

/** Parquet footer protection. HOCON values: {@code encrypted | plaintext} (case-insensitive). */
public enum FooterMode {
  /**
   * Footer (schema, statistics, column key metadata) is encrypted with the footer key. The default.
   */
  ENCRYPTED,
  /**
   * Footer stays readable (legacy readers can open the file and read unprotected columns); it is
   * signed with the footer key so tampering is detected. Statistics of protected columns are
   * hidden.
   */
  PLAINTEXT;

  public static FooterMode parse(String text) {
    if (text != null) {
      switch (text.trim().toLowerCase(Locale.ROOT)) {
        case "encrypted":
          return ENCRYPTED;
        case "plaintext":
          return PLAINTEXT;
        default:
          break;
      }
    }
    throw new IllegalArgumentException(
        "Unknown footer-mode '" + text + "'; valid values: encrypted, plaintext");
  }

  public String spec() {
    return name().toLowerCase(Locale.ROOT);
  }
}
