/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.policy;

/**
 * Argument and state checks in the style of Iceberg's (relocated Guava) {@code Preconditions}:
 * {@code checkArgument(n > 0, "Cannot read %s: width must be positive, got %s", file, n)}.
 *
 * <p>The message template is formatted only when the check fails, so a check on a hot path costs a
 * comparison, and the fixed-arity overloads spare the varargs array. Each {@code %s} takes the next
 * argument; arguments left over are appended in square brackets, and a {@code %s} with no argument
 * left stays as it is, so a mistaken template still yields a readable message rather than a second
 * exception. Messages follow the project's style (CONTRIBUTING.md, "Errors"): "Cannot &lt;do
 * what&gt;: &lt;why&gt;", naming the file, line, key, column or principal, never a key, token or
 * protected value.
 *
 * <p>The policy module has no Guava (it is the one dependency-free module), hence this class rather
 * than Iceberg's relocated copy, which is an internal API of the runtime jar.
 */
public final class Preconditions {
  private Preconditions() {}

  /** Throws {@link IllegalArgumentException} with the formatted message unless {@code ok}. */
  public static void checkArgument(boolean ok, String message) {
    if (!ok) {
      throw new IllegalArgumentException(message);
    }
  }

  public static void checkArgument(boolean ok, String template, Object arg) {
    if (!ok) {
      throw new IllegalArgumentException(format(template, arg));
    }
  }

  public static void checkArgument(boolean ok, String template, Object arg1, Object arg2) {
    if (!ok) {
      throw new IllegalArgumentException(format(template, arg1, arg2));
    }
  }

  public static void checkArgument(
      boolean ok, String template, Object arg1, Object arg2, Object arg3) {
    if (!ok) {
      throw new IllegalArgumentException(format(template, arg1, arg2, arg3));
    }
  }

  public static void checkArgument(boolean ok, String template, Object... args) {
    if (!ok) {
      throw new IllegalArgumentException(format(template, args));
    }
  }

  /** Throws {@link IllegalStateException} with the formatted message unless {@code ok}. */
  public static void checkState(boolean ok, String message) {
    if (!ok) {
      throw new IllegalStateException(message);
    }
  }

  public static void checkState(boolean ok, String template, Object arg) {
    if (!ok) {
      throw new IllegalStateException(format(template, arg));
    }
  }

  public static void checkState(boolean ok, String template, Object arg1, Object arg2) {
    if (!ok) {
      throw new IllegalStateException(format(template, arg1, arg2));
    }
  }

  public static void checkState(boolean ok, String template, Object... args) {
    if (!ok) {
      throw new IllegalStateException(format(template, args));
    }
  }

  /**
   * Returns {@code value}, or throws {@link NullPointerException} with the formatted message when
   * it is null.
   */
  public static <T> T checkNotNull(T value, String template, Object... args) {
    if (value == null) {
      throw new NullPointerException(format(template, args));
    }
    return value;
  }

  /** Guava's lenient formatting: {@code %s} only, never throwing on a mismatch. */
  static String format(String template, Object... args) {
    String t = String.valueOf(template);
    Object[] a = args == null ? new Object[] {null} : args;
    StringBuilder out = new StringBuilder(t.length() + 16 * a.length);
    int from = 0;
    int i = 0;
    while (i < a.length) {
      int at = t.indexOf("%s", from);
      if (at < 0) {
        break;
      }
      out.append(t, from, at).append(a[i++]);
      from = at + 2;
    }
    out.append(t, from, t.length());
    if (i < a.length) {
      out.append(" [").append(a[i++]);
      while (i < a.length) {
        out.append(", ").append(a[i++]);
      }
      out.append(']');
    }
    return out.toString();
  }
}
