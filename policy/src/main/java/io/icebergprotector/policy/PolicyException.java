/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.policy;

/**
 * A policy that cannot be loaded or does not fit a table. The message stands alone: {@code
 * <origin>:<line>: <key path>: <what is wrong>} (line and key omitted when unknown), so tools can
 * print it as one line without a stack trace.
 */
public class PolicyException extends RuntimeException {
  private final String origin;
  private final int line;
  private final String key;
  private final String problem;

  public PolicyException(String origin, int line, String key, String problem) {
    this(origin, line, key, problem, null);
  }

  public PolicyException(String origin, int line, String key, String problem, Throwable cause) {
    super(format(origin, line, key, problem), cause);
    this.origin = origin;
    this.line = line > 0 ? line : -1;
    this.key = key == null ? "" : key;
    this.problem = problem;
  }

  static String format(String origin, int line, String key, String problem) {
    StringBuilder sb = new StringBuilder(origin == null ? "<policy>" : origin);
    if (line > 0) {
      sb.append(':').append(line);
    }
    if (key != null && !key.isEmpty()) {
      sb.append(": ").append(key);
    }
    return sb.append(": ").append(problem).toString();
  }

  /** The file, URL or name the policy came from. */
  public String origin() {
    return origin;
  }

  /** 1-based line in {@link #origin()}, or -1 if unknown. */
  public int line() {
    return line;
  }

  /**
   * The HOCON key path of the offending value, e.g. {@code protector.tables."db.t".writers}; may be
   * empty.
   */
  public String key() {
    return key;
  }

  /**
   * Every error found in one pass: this one first, then those the parser found in other,
   * independent parts of the policy (other roles, keys, tables and columns), in file order.
   */
  public java.util.List<PolicyException> all() {
    java.util.List<PolicyException> out = new java.util.ArrayList<>();
    out.add(this);
    for (Throwable t : getSuppressed()) {
      if (t instanceof PolicyException e) {
        out.add(e);
      }
    }
    return out;
  }

  /** The message without origin, line and key. */
  public String problem() {
    return problem;
  }
}
