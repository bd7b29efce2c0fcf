/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.policy;

import static io.icebergprotector.policy.Preconditions.checkArgument;

import java.util.Objects;

/** The outcome of a policy decision for one reader and one column. Immutable. */
public final class Access {
  private static final Access CLEAR = new Access(AccessLevel.CLEAR, null, OnDenied.NULL);
  private static final Access TOKEN = new Access(AccessLevel.TOKEN, null, OnDenied.NULL);
  private static final Access DENIED_NULL = new Access(AccessLevel.DENIED, null, OnDenied.NULL);
  private static final Access DENIED_FAIL = new Access(AccessLevel.DENIED, null, OnDenied.FAIL);

  private final AccessLevel level;
  private final Mask mask;
  private final OnDenied onDenied;

  private Access(AccessLevel level, Mask mask, OnDenied onDenied) {
    this.level = level;
    this.mask = mask;
    this.onDenied = onDenied;
  }

  public static Access clear() {
    return CLEAR;
  }

  /** The stored token of a tokenized column, read without the token key. */
  public static Access token() {
    return TOKEN;
  }

  public static Access masked(Mask mask) {
    checkArgument(mask != null, "Masked access needs a mask, got null");
    return new Access(AccessLevel.MASKED, mask, OnDenied.NULL);
  }

  /** {@code onDenied} null means the default, {@link OnDenied#NULL}. */
  public static Access denied(OnDenied onDenied) {
    return onDenied == OnDenied.FAIL ? DENIED_FAIL : DENIED_NULL;
  }

  public AccessLevel level() {
    return level;
  }

  /** The mask to apply; null unless {@link AccessLevel#MASKED}. */
  public Mask mask() {
    return mask;
  }

  /** Only meaningful for {@link AccessLevel#DENIED}; {@link OnDenied#NULL} otherwise. */
  public OnDenied onDenied() {
    return onDenied;
  }

  /**
   * True when the reader must be given the column key: CLEAR, MASKED, or TOKEN (whose reader needs
   * the column key of a tokenized column that is also PME-encrypted, never its token key).
   */
  public boolean canDecrypt() {
    return level != AccessLevel.DENIED;
  }

  /**
   * True when the reader of a tokenized column needs its token key to see values: CLEAR reads the
   * detokenized value, MASKED the mask of it.
   */
  public boolean detokenizes() {
    return level == AccessLevel.CLEAR || level == AccessLevel.MASKED;
  }

  @Override
  public boolean equals(Object o) {
    if (this == o) {
      return true;
    }
    if (!(o instanceof Access)) {
      return false;
    }
    Access that = (Access) o;
    return level == that.level && Objects.equals(mask, that.mask) && onDenied == that.onDenied;
  }

  @Override
  public int hashCode() {
    return Objects.hash(level, mask, onDenied);
  }

  /** {@code CLEAR}, {@code MASKED(hash)}, {@code DENIED(fail)}. */
  @Override
  public String toString() {
    switch (level) {
      case CLEAR:
        return "CLEAR";
      case MASKED:
        return "MASKED(" + mask.spec() + ")";
      case TOKEN:
        return "TOKEN";
      default:
        return "DENIED(" + onDenied.spec() + ")";
    }
  }
}
