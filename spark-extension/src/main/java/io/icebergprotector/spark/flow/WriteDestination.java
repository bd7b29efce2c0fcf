/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.spark.flow;

import io.icebergprotector.policy.TablePolicy;
import java.util.function.Predicate;

/** Where a write stores its columns, and which of them it protects. */
public final class WriteDestination {
  private final String description;
  private final boolean protectedDestination;
  private final Predicate<String> protects;

  private WriteDestination(
      String description, boolean protectedDestination, Predicate<String> protects) {
    this.description = description;
    this.protectedDestination = protectedDestination;
    this.protects = protects;
  }

  /** A protected destination: {@code protects} says which dotted paths it protects. */
  static WriteDestination protectedBy(String description, Predicate<String> protects) {
    return new WriteDestination(description, true, protects);
  }

  /** A new table, or files under a prefix, that a policy entry will protect. */
  static WriteDestination policyEntry(String description, TablePolicy entry) {
    return new WriteDestination(description, true, path -> entry.covering(path).isPresent());
  }

  /** A destination that protects nothing. */
  static WriteDestination unprotected(String description) {
    return new WriteDestination(description, false, path -> false);
  }

  /** E.g. {@code protected table prot.db.orders} or {@code path file:/tmp/out (outside ...)}. */
  public String description() {
    return description;
  }

  /** Whether the destination protects any column (a policy table or prefix). */
  public boolean isProtected() {
    return protectedDestination;
  }

  /**
   * Whether a value stored at dotted {@code path} (a column, or a field inside one) is protected.
   */
  public boolean protects(String path) {
    return protects.test(path);
  }

  @Override
  public String toString() {
    return description;
  }
}
