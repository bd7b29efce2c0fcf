/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.policy.masks;

import java.nio.charset.StandardCharsets;

/**
 * The value kernel of {@code redact}: one constant of the column's type for every non-null value.
 * {@code "****"} for strings, 0 for numbers, {@code false}, 1970-01-01, 1970-01-01T00:00:00Z, an
 * empty byte array ({@code fixed(L)}: L zero bytes), a decimal 0 with the column's scale.
 */
public final class RedactKernel {
  /** Strings (and uuids). */
  public static final String STRING = "****";

  public static final boolean BOOLEAN = false;
  public static final byte BYTE = 0;
  public static final short SHORT = 0;
  public static final int INT = 0;
  public static final long LONG = 0L;
  public static final float FLOAT = 0f;
  public static final double DOUBLE = 0d;

  /** Dates, as days since 1970-01-01: 1970-01-01. */
  public static final int EPOCH_DAY = 0;

  /** Timestamps, as microseconds since 1970-01-01T00:00Z: that instant. */
  public static final long EPOCH_MICROS = 0L;

  /** Decimals: the unscaled value 0, which is 0 at the column's scale. */
  public static final long DECIMAL_UNSCALED = 0L;

  private static final byte[] STRING_UTF8 = STRING.getBytes(StandardCharsets.UTF_8);

  private RedactKernel() {}

  /** {@link #STRING} as UTF-8 bytes; a fresh array (callers may keep or change it). */
  public static byte[] stringUtf8() {
    return STRING_UTF8.clone();
  }

  /**
   * Binary values: empty, or {@code fixedLength} zero bytes for a {@code fixed(L)} column (its
   * values have exactly L bytes); a fresh array.
   *
   * @param fixedLength L of a {@code fixed(L)} column, 0 for a binary column
   */
  public static byte[] binary(int fixedLength) {
    return new byte[fixedLength];
  }
}
