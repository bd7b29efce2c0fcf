/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.policy;

import java.util.Objects;

/**
 * A valid but risky setting in a policy. Worded like a {@link PolicyException}, {@code
 * <origin>:<line>: <key path>: <what is risky>}, so tools print both the same way.
 *
 * @param origin the file, URL or name the policy came from
 * @param line 1-based line in {@code origin}, or -1 if unknown
 * @param key the HOCON key path of the risky value, e.g. {@code protector.tables."db.t".algorithm}
 * @param problem the warning without origin, line and key
 */
public record PolicyWarning(String origin, int line, String key, String problem) {
  public PolicyWarning {
    line = line > 0 ? line : -1;
    key = key == null ? "" : key;
    Objects.requireNonNull(problem, "problem");
  }

  /** The whole warning on one line. */
  public String message() {
    return PolicyException.format(origin, line, key, problem);
  }

  @Override
  public String toString() {
    return message();
  }
}
