/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.policy;

import java.util.Locale;

/**
 * What happens when a reader without access selects a protected column. HOCON values: {@code null |
 * fail}.
 */
public enum OnDenied {
  /** The column reads as all nulls (the default: queries keep working). */
  NULL,
  /** The query fails with an access-denied error. */
  FAIL;

  /**
   * Parses {@code null} or {@code fail}, case-insensitively; null input means the default, {@link
   * #NULL}.
   */
  public static OnDenied parse(String text) {
    if (text == null) {
      return NULL;
    }
    switch (text.trim().toLowerCase(Locale.ROOT)) {
      case "null":
        return NULL;
      case "fail":
        return FAIL;
      default:
        throw new IllegalArgumentException(
            "Unknown on-denied '" + text + "'; valid values: null, fail");
    }
  }

  /** The HOCON spelling. */
  public String spec() {
    return name().toLowerCase(Locale.ROOT);
  }
}
