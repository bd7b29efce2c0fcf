/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.spark.core;

import io.icebergprotector.policy.AccessLevel;
import io.icebergprotector.policy.Mask;
import io.icebergprotector.policy.OnDenied;
import java.io.Serializable;

/** One protected column resolved to its Iceberg field id, with the reader's access to it. */
public final class ColumnProtection implements Serializable {
  private static final long serialVersionUID = 1L;

  private final int fieldId;
  private final String path;
  private final String policyPath;
  private final String keyId;
  private final AccessLevel level;
  private final String maskSpec;
  private final OnDenied onDenied;
  private final boolean keyDestroyed;
  // tokenized columns: the method's spec (the policy model travels as text), domain and pme flag
  private final String tokenMethod;
  private final String domain;
  private final boolean pme;
  // a masked reader of a tokenized column in local token mode: only the key server can mask it
  private final String unservedMask;
  private transient Mask mask;

  ColumnProtection(
      int fieldId,
      String path,
      String policyPath,
      String keyId,
      AccessLevel level,
      String maskSpec,
      OnDenied onDenied) {
    this(
        fieldId, path, policyPath, keyId, level, maskSpec, onDenied, false, null, null, true, null);
  }

  ColumnProtection(
      int fieldId,
      String path,
      String policyPath,
      String keyId,
      AccessLevel level,
      String maskSpec,
      OnDenied onDenied,
      String tokenMethod,
      String domain,
      boolean pme) {
    this(
        fieldId,
        path,
        policyPath,
        keyId,
        level,
        maskSpec,
        onDenied,
        false,
        tokenMethod,
        domain,
        pme,
        null);
  }

  private ColumnProtection(
      int fieldId,
      String path,
      String policyPath,
      String keyId,
      AccessLevel level,
      String maskSpec,
      OnDenied onDenied,
      boolean keyDestroyed,
      String tokenMethod,
      String domain,
      boolean pme,
      String unservedMask) {
    this.keyDestroyed = keyDestroyed;
    this.unservedMask = unservedMask;
    this.tokenMethod = tokenMethod;
    this.domain = domain;
    this.pme = pme || tokenMethod == null;
    this.fieldId = fieldId;
    this.path = path;
    this.policyPath = policyPath;
    this.keyId = keyId;
    this.level = level;
    this.maskSpec = maskSpec;
    this.onDenied = onDenied;
  }

  public int fieldId() {
    return fieldId;
  }

  /** The column path as the table names it today (it may differ from the policy after a rename). */
  public String path() {
    return path;
  }

  /** The column path as the policy names it. */
  public String policyPath() {
    return policyPath;
  }

  /** The same column with another access level (e.g. denied once its key was destroyed). */
  ColumnProtection withAccess(AccessLevel newLevel, String newMaskSpec, OnDenied newOnDenied) {
    return new ColumnProtection(
        fieldId,
        path,
        policyPath,
        keyId,
        newLevel,
        newMaskSpec,
        newOnDenied,
        keyDestroyed,
        tokenMethod,
        domain,
        pme,
        unservedMask);
  }

  /** Denied because its master key was destroyed (crypto-shredded). */
  ColumnProtection withDestroyedKey() {
    return new ColumnProtection(
        fieldId,
        path,
        policyPath,
        keyId,
        AccessLevel.DENIED,
        null,
        onDenied,
        true,
        tokenMethod,
        domain,
        pme,
        unservedMask);
  }

  /**
   * A masked reader's view of a tokenized column in local token mode: NULL, with no key requested.
   * The mask needs the detokenized value, and only clear readers get the token key (it detokenizes
   * the whole domain); the key server computes masks of tokenized columns in server token mode.
   */
  ColumnProtection withMaskOnlyOnServer() {
    return new ColumnProtection(
        fieldId,
        path,
        policyPath,
        keyId,
        AccessLevel.DENIED,
        null,
        OnDenied.NULL,
        keyDestroyed,
        tokenMethod,
        domain,
        pme,
        maskSpec);
  }

  /**
   * The mask a masked reader of this tokenized column would get from the key server in server token
   * mode, which local token mode cannot compute (it reads NULL instead); null otherwise.
   */
  public String unservedMask() {
    return unservedMask;
  }

  /** True for deterministic and fpe columns, whose stored values are tokens. */
  public boolean tokenized() {
    return tokenMethod != null;
  }

  /** The tokenization method's policy spec (e.g. {@code fpe(alphabet = digits)}), or null. */
  public String tokenMethod() {
    return tokenMethod;
  }

  /** The token domain of a tokenized column, or null. */
  public String domain() {
    return domain;
  }

  /**
   * Whether the column chunk is PME-encrypted under the column key: always for pme columns, for
   * tokenized columns unless the policy says {@code pme = false}.
   */
  public boolean pme() {
    return pme;
  }

  /** A reader that needs the token key: a tokenized column read in clear or masked. */
  public boolean detokenizes() {
    return tokenized() && (level == AccessLevel.CLEAR || level == AccessLevel.MASKED);
  }

  /** True when the column is unreadable because its key was destroyed. */
  public boolean keyDestroyed() {
    return keyDestroyed;
  }

  public String keyId() {
    return keyId;
  }

  public AccessLevel level() {
    return level;
  }

  public OnDenied onDenied() {
    return onDenied;
  }

  public boolean readable() {
    return level != AccessLevel.DENIED;
  }

  /** The mask for a MASKED reader, null otherwise. */
  public Mask mask() {
    if (mask == null && maskSpec != null) {
      mask = Mask.parse(maskSpec);
    }
    return mask;
  }

  @Override
  public String toString() {
    return path
        + "(id="
        + fieldId
        + ", key="
        + keyId
        + ", "
        + level
        + (maskSpec != null ? " " + maskSpec : "")
        + (tokenMethod != null ? ", " + tokenMethod + (pme ? "" : ", pme = false") : "")
        + (unservedMask != null ? ", masked " + unservedMask + " only in server token mode" : "")
        + ")";
  }
}
