/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.spark.inspect;

import java.util.Objects;
import java.util.Optional;

/** Encryption of one leaf column of a Parquet file, as recorded in its footer. */
public final class ColumnReport {
  private final String path;
  private final boolean encrypted;
  private final boolean encryptedWithFooterKey;
  private final KeyMaterial keyMaterial;

  ColumnReport(
      String path, boolean encrypted, boolean encryptedWithFooterKey, KeyMaterial keyMaterial) {
    this.path = Objects.requireNonNull(path, "path");
    this.encrypted = encrypted;
    this.encryptedWithFooterKey = encryptedWithFooterKey;
    this.keyMaterial = keyMaterial;
  }

  /** Dotted path in the Parquet schema, e.g. {@code address.zip}. */
  public String path() {
    return path;
  }

  public boolean encrypted() {
    return encrypted;
  }

  /** True if the column is encrypted with the footer key rather than its own column key. */
  public boolean encryptedWithFooterKey() {
    return encryptedWithFooterKey;
  }

  /** Key material of the column key; empty for plaintext and footer-key columns. */
  public Optional<KeyMaterial> keyMaterial() {
    return Optional.ofNullable(keyMaterial);
  }

  /** One line for reports, e.g. {@code ssn: encrypted (column key) masterKeyID=pii ...}. */
  public String toText() {
    if (!encrypted) {
      return path + ": plaintext";
    }
    if (encryptedWithFooterKey) {
      return path + ": encrypted (footer key)";
    }
    return path
        + ": encrypted (column key)"
        + (keyMaterial == null ? " <no key metadata>" : " " + keyMaterial.toText());
  }

  @Override
  public String toString() {
    return "ColumnReport{" + toText() + "}";
  }
}
