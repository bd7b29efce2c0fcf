/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.policy;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/** Protection of one table (or one storage location prefix). Immutable. */
public final class TablePolicy {
  private final String name;
  private final String footerKeyId;
  private final FooterMode footerMode;
  private final EncryptionAlgorithm algorithm;
  private final Set<String> writers;
  private final Set<String> declassifiers;
  private final boolean strict;
  private final Set<String> plainColumns;
  private final List<ColumnPolicy> columns;
  private final Map<String, ColumnPolicy> byLowerPath;
  private final String configKey;
  private final int line;

  TablePolicy(
      String name,
      String footerKeyId,
      FooterMode footerMode,
      EncryptionAlgorithm algorithm,
      Set<String> writers,
      Set<String> declassifiers,
      boolean strict,
      Set<String> plainColumns,
      List<ColumnPolicy> columns,
      String configKey,
      int line) {
    this.name = name;
    this.footerKeyId = footerKeyId;
    this.footerMode = footerMode == null ? FooterMode.ENCRYPTED : footerMode;
    this.algorithm = algorithm == null ? EncryptionAlgorithm.AES_GCM_V1 : algorithm;
    this.writers = Collections.unmodifiableSet(new LinkedHashSet<>(writers));
    this.declassifiers = Collections.unmodifiableSet(new LinkedHashSet<>(declassifiers));
    this.strict = strict;
    this.plainColumns = Collections.unmodifiableSet(new LinkedHashSet<>(plainColumns));
    this.columns = List.copyOf(columns);
    Map<String, ColumnPolicy> index = new LinkedHashMap<>();
    for (ColumnPolicy c : columns) {
      index.put(lower(c.path()), c);
    }
    this.byLowerPath = Collections.unmodifiableMap(index);
    this.configKey = configKey;
    this.line = line;
  }

  /** Normalized lower-case {@code db.customers}; for path entries, the prefix as written. */
  public String name() {
    return name;
  }

  public String footerKeyId() {
    return footerKeyId;
  }

  /** Default {@link FooterMode#ENCRYPTED}. */
  public FooterMode footerMode() {
    return footerMode;
  }

  /** Default {@link EncryptionAlgorithm#AES_GCM_V1}. */
  public EncryptionAlgorithm algorithm() {
    return algorithm;
  }

  /** Roles allowed to write (wrap keys for) this table; empty means nobody. */
  public Set<String> writers() {
    return writers;
  }

  /**
   * Roles that may write clear values of this entry's protected columns to a destination that does
   * not protect them (declassification). The writing session must also opt in, and every such write
   * is logged and audited. Default []: nobody.
   */
  public Set<String> declassifiers() {
    return declassifiers;
  }

  /**
   * A strict entry accepts writes only of columns it protects or lists in {@link #plainColumns()};
   * any other column, and a protected name nested inside a struct or map, is refused.
   */
  public boolean strict() {
    return strict;
  }

  /** Lower-case dotted paths that a strict entry stores in plaintext on purpose. */
  public Set<String> plainColumns() {
    return plainColumns;
  }

  /** Whether a strict entry lists {@code path} (or a struct holding it) as a plain column. */
  public boolean isPlain(String path) {
    if (path == null) {
      return false;
    }
    String p = lower(path);
    while (true) {
      if (plainColumns.contains(p)) {
        return true;
      }
      int dot = p.lastIndexOf('.');
      if (dot < 0) {
        return false;
      }
      p = p.substring(0, dot);
    }
  }

  /** Protected columns, in policy order. */
  public List<ColumnPolicy> columns() {
    return columns;
  }

  /** Case-insensitive match on the dotted path. */
  public Optional<ColumnPolicy> column(String path) {
    return path == null ? Optional.empty() : Optional.ofNullable(byLowerPath.get(lower(path)));
  }

  /**
   * The policy that covers a column: the column itself or, for a field of a protected struct, the
   * nearest protected ancestor ({@code address} covers {@code address.zip}).
   */
  public Optional<ColumnPolicy> covering(String path) {
    if (path == null) {
      return Optional.empty();
    }
    String p = lower(path);
    while (true) {
      ColumnPolicy c = byLowerPath.get(p);
      if (c != null) {
        return Optional.of(c);
      }
      int dot = p.lastIndexOf('.');
      if (dot < 0) {
        return Optional.empty();
      }
      p = p.substring(0, dot);
    }
  }

  /** Key ids of all protected columns (not the footer key), in policy order. */
  public Set<String> columnKeyIds() {
    Set<String> ids = new LinkedHashSet<>();
    for (ColumnPolicy c : columns) {
      ids.add(c.keyId());
    }
    return Collections.unmodifiableSet(ids);
  }

  /**
   * This entry with only {@code roles} left in its writers, declassify, clear and masked lists;
   * keys, footer, algorithm, strictness, plain columns and columns stay as they are.
   */
  TablePolicy restrictedTo(Set<String> roles) {
    Set<String> w = new LinkedHashSet<>(writers);
    w.retainAll(roles);
    Set<String> d = new LinkedHashSet<>(declassifiers);
    d.retainAll(roles);
    List<ColumnPolicy> cols = new ArrayList<>();
    for (ColumnPolicy c : columns) {
      cols.add(c.restrictedTo(roles));
    }
    return new TablePolicy(
        name,
        footerKeyId,
        footerMode,
        algorithm,
        w,
        d,
        strict,
        plainColumns,
        cols,
        configKey,
        line);
  }

  String configKey() {
    return configKey;
  }

  int line() {
    return line;
  }

  static String lower(String s) {
    return s.toLowerCase(Locale.ROOT);
  }

  /** Value equality over every setting; where the entry was written is not compared. */
  @Override
  public boolean equals(Object o) {
    if (this == o) {
      return true;
    }
    if (!(o instanceof TablePolicy)) {
      return false;
    }
    TablePolicy that = (TablePolicy) o;
    return name.equals(that.name)
        && footerKeyId.equals(that.footerKeyId)
        && footerMode == that.footerMode
        && algorithm == that.algorithm
        && writers.equals(that.writers)
        && declassifiers.equals(that.declassifiers)
        && strict == that.strict
        && plainColumns.equals(that.plainColumns)
        && columns.equals(that.columns);
  }

  @Override
  public int hashCode() {
    return Objects.hash(
        name,
        footerKeyId,
        footerMode,
        algorithm,
        writers,
        declassifiers,
        strict,
        plainColumns,
        columns);
  }

  @Override
  public String toString() {
    return name
        + "{footer-key="
        + footerKeyId
        + ", footer-mode="
        + footerMode.spec()
        + ", algorithm="
        + algorithm
        + ", writers="
        + writers
        + (declassifiers.isEmpty() ? "" : ", declassify=" + declassifiers)
        + (strict ? ", strict, plain-columns=" + plainColumns : "")
        + ", columns="
        + columns
        + "}";
  }
}
