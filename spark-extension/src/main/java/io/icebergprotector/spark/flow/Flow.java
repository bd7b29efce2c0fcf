/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.spark.flow;

import io.icebergprotector.policy.AccessLevel;
import java.util.ArrayList;
import java.util.List;

/**
 * One protected column whose values reach an expression, and how the principal read it.
 *
 * @param source where the column was read
 * @param column the column as the source names it today
 * @param policyColumn the column as the policy names it (differs after a rename)
 * @param access the principal's view: clear values, masked values, or the NULLs of a denied read
 * @param mask the mask of a masked view, else null
 * @param subPath where the column lies inside the expression's value: empty when the value is the
 *     column itself or derived from it, {@code [zip]} for a struct that holds it as {@code zip}
 */
public record Flow(
    FlowSource source,
    String column,
    String policyColumn,
    AccessLevel access,
    String mask,
    List<String> subPath) {

  public Flow {
    subPath = List.copyOf(subPath);
  }

  /** The flow into field {@code field} of this value, or null when that field does not carry it. */
  Flow field(String field) {
    if (subPath.isEmpty()) {
      return this; // a part of a protected value is protected data too
    }
    if (!subPath.get(0).equalsIgnoreCase(field)) {
      return null;
    }
    return withSubPath(subPath.subList(1, subPath.size()));
  }

  /** This flow inside a struct field named {@code field}. */
  Flow under(String field) {
    List<String> path = new ArrayList<>(subPath.size() + 1);
    path.add(field);
    path.addAll(subPath);
    return withSubPath(path);
  }

  /** This flow through an expression that derives a new value from the whole input. */
  Flow whole() {
    return subPath.isEmpty() ? this : withSubPath(List.of());
  }

  private Flow withSubPath(List<String> path) {
    return new Flow(source, column, policyColumn, access, mask, path);
  }

  /**
   * E.g. {@code masked (partial(keep_last=4))}, {@code denied (reads as NULL)} or {@code clear}.
   */
  String describeAccess() {
    switch (access) {
      case CLEAR:
        return "clear";
      case MASKED:
        return "masked (" + mask + ")";
      default:
        return "denied (reads as NULL)";
    }
  }
}
