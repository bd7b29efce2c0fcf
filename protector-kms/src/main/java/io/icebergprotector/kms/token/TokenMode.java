/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.kms.token;

import java.util.Locale;

/** Where tokens are computed: see {@code KeyService#tokenizer}. */
public enum TokenMode {
  /** Executors obtain the derived token key and tokenize in-process (the default). */
  LOCAL,
  /** Executors send batches of values to the key server; the token key never leaves it. */
  SERVER;

  /**
   * The mode named {@code name} (case-insensitive).
   *
   * @throws IllegalArgumentException naming the setting and the accepted values
   */
  public static TokenMode parse(String setting, String name) {
    for (TokenMode mode : values()) {
      if (mode.name().equalsIgnoreCase(name == null ? "" : name.trim())) {
        return mode;
      }
    }
    throw new IllegalArgumentException(
        "Cannot use " + setting + "=" + name + ": expected local or server");
  }

  @Override
  public String toString() {
    return name().toLowerCase(Locale.ROOT);
  }
}
