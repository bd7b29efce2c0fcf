/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.spark.inspect;

import java.util.List;
import java.util.Objects;
import java.util.Optional;

/** What the footer of one Parquet file says about its encryption. Holds no key bytes. */
public final class FooterReport {
  /** How the footer is stored. */
  public enum FooterMode {
    /** Encrypted footer (tail magic {@code PARE}): schema and columns need the footer key. */
    ENCRYPTED,
    /**
     * Plaintext footer of an encrypted file, signed with the footer key (tail magic {@code PAR1}).
     */
    PLAINTEXT_SIGNED,
    /** Unencrypted file. */
    PLAINTEXT
  }

  private final String location;
  private final long fileLength;
  private final FooterMode footerMode;
  private final String algorithm;
  private final boolean aadPrefixRequired;
  private final String storedAadPrefix;
  private final KeyMaterial footerKey;
  private final boolean footerSignatureVerified;
  private final boolean columnsVisible;
  private final List<ColumnReport> columns;
  private final long numRows;
  private final int rowGroups;
  private final String createdBy;

  FooterReport(
      String location,
      long fileLength,
      FooterMode footerMode,
      String algorithm,
      boolean aadPrefixRequired,
      String storedAadPrefix,
      KeyMaterial footerKey,
      boolean footerSignatureVerified,
      boolean columnsVisible,
      List<ColumnReport> columns,
      long numRows,
      int rowGroups,
      String createdBy) {
    this.location = Objects.requireNonNull(location, "location");
    this.fileLength = fileLength;
    this.footerMode = Objects.requireNonNull(footerMode, "footerMode");
    this.algorithm = algorithm;
    this.aadPrefixRequired = aadPrefixRequired;
    this.storedAadPrefix = storedAadPrefix;
    this.footerKey = footerKey;
    this.footerSignatureVerified = footerSignatureVerified;
    this.columnsVisible = columnsVisible;
    this.columns = List.copyOf(columns);
    this.numRows = numRows;
    this.rowGroups = rowGroups;
    this.createdBy = createdBy;
  }

  public String location() {
    return location;
  }

  public long fileLength() {
    return fileLength;
  }

  public FooterMode footerMode() {
    return footerMode;
  }

  /** True for both encrypted-footer and signed-plaintext-footer files. */
  public boolean encrypted() {
    return footerMode != FooterMode.PLAINTEXT;
  }

  /** {@code AES_GCM_V1} or {@code AES_GCM_CTR_V1}; null for an unencrypted file. */
  public String algorithm() {
    return algorithm;
  }

  /** True if the writer kept the AAD prefix out of the file, so readers must supply it. */
  public boolean aadPrefixRequired() {
    return aadPrefixRequired;
  }

  /**
   * The AAD prefix the file stores (a binding written since it is stored: {@code
   * iceberg-protector/file-binding/v1:<table uuid>:<file name>}), as UTF-8 text.
   */
  public Optional<String> storedAadPrefix() {
    return Optional.ofNullable(storedAadPrefix);
  }

  /** Whether the file is bound with an AAD prefix, stored in it or left for readers to supply. */
  public boolean bound() {
    return aadPrefixRequired || storedAadPrefix != null;
  }

  /** Footer key material (encryption key, or signing key of a plaintext footer). */
  public Optional<KeyMaterial> footerKey() {
    return Optional.ofNullable(footerKey);
  }

  /** True only if the plaintext footer's signature was checked with the footer key and matched. */
  public boolean footerSignatureVerified() {
    return footerSignatureVerified;
  }

  /** False for an encrypted footer read without keys: schema, columns and row counts are hidden. */
  public boolean columnsVisible() {
    return columnsVisible;
  }

  /** Leaf columns in schema order; empty if {@link #columnsVisible()} is false. */
  public List<ColumnReport> columns() {
    return columns;
  }

  /** The column at a dotted path (case-sensitive, as in the Parquet schema). */
  public Optional<ColumnReport> column(String path) {
    return columns.stream().filter(c -> c.path().equals(path)).findFirst();
  }

  /** Row count, or -1 if unknown (encrypted footer read without keys). */
  public long numRows() {
    return numRows;
  }

  /** Row group count, or -1 if unknown. */
  public int rowGroups() {
    return rowGroups;
  }

  /** The footer's {@code created_by}, or null. */
  public String createdBy() {
    return createdBy;
  }

  /** Human-readable multi-line report for a CLI. Wrapped keys are truncated. */
  public String toText() {
    StringBuilder sb = new StringBuilder();
    sb.append("File:       ").append(location).append(" (").append(fileLength).append(" bytes)\n");
    sb.append("Footer:     ").append(footerMode);
    switch (footerMode) {
      case ENCRYPTED:
        sb.append(columnsVisible ? " (decrypted)" : " (not decrypted: no keys supplied)");
        break;
      case PLAINTEXT_SIGNED:
        sb.append(footerSignatureVerified ? " (signature verified)" : " (signature not verified)");
        break;
      default:
        sb.append(" (file is not encrypted)");
    }
    sb.append('\n');
    if (algorithm != null) {
      sb.append("Algorithm:  ").append(algorithm);
      if (aadPrefixRequired) {
        sb.append(" (AAD prefix not stored: readers must supply it)");
      } else if (storedAadPrefix != null) {
        sb.append(" (AAD prefix stored: ").append(storedAadPrefix).append(')');
      }
      sb.append('\n');
    }
    if (footerKey != null) {
      sb.append("Footer key: ").append(footerKey.toText()).append('\n');
    } else if (encrypted()) {
      sb.append("Footer key: <no key metadata>\n");
    }
    if (createdBy != null) {
      sb.append("Created by: ").append(createdBy).append('\n');
    }
    if (!columnsVisible) {
      sb.append("Columns:    hidden (the footer is encrypted; supply keys to list columns)\n");
      return sb.toString();
    }
    sb.append("Rows:       ")
        .append(numRows)
        .append(" in ")
        .append(rowGroups)
        .append(" row group(s)\n");
    long encryptedCount = columns.stream().filter(ColumnReport::encrypted).count();
    sb.append("Columns:    ")
        .append(columns.size())
        .append(" (")
        .append(encryptedCount)
        .append(" encrypted)\n");
    if (rowGroups == 0 && encrypted()) {
      sb.append("            (no row groups: per-column encryption is not recorded)\n");
    }
    for (ColumnReport column : columns) {
      sb.append("  ").append(column.toText()).append('\n');
    }
    return sb.toString();
  }

  @Override
  public String toString() {
    return "FooterReport{"
        + location
        + ", "
        + footerMode
        + ", "
        + algorithm
        + ", columns="
        + (columnsVisible ? columns.size() : "hidden")
        + "}";
  }
}
