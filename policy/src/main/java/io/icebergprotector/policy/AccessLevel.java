/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.policy;

/** What a reader may see of a protected column. */
public enum AccessLevel {
  /** The reader gets the key and sees the plaintext. */
  CLEAR,
  /** The reader gets the key, but values are masked before they leave the reader. */
  MASKED,
  /**
   * The reader sees the stored token of a tokenized column (deterministic or fpe), without the
   * token key; it still gets the column's PME key when the column is also PME-encrypted.
   */
  TOKEN,
  /** The reader does not get the key; see {@link OnDenied}. */
  DENIED
}
