/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.policy;

import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;

/** Parquet Modular Encryption algorithms. */
public enum EncryptionAlgorithm {
  /** AES-GCM for data pages and metadata: every page authenticated. The default. */
  AES_GCM_V1,
  /** AES-CTR for data pages (faster, pages not authenticated), AES-GCM for metadata. */
  AES_GCM_CTR_V1;

  /** Parses the enum name, case-insensitively. */
  public static EncryptionAlgorithm parse(String text) {
    if (text != null) {
      String upper = text.trim().toUpperCase(Locale.ROOT);
      for (EncryptionAlgorithm a : values()) {
        if (a.name().equals(upper)) {
          return a;
        }
      }
    }
    throw new IllegalArgumentException(
        "Unknown algorithm '"
            + text
            + "'; valid values: "
            + Arrays.stream(values()).map(Enum::name).collect(Collectors.joining(", ")));
  }
}
