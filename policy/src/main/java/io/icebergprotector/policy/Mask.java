/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.policy;

import static io.icebergprotector.policy.Preconditions.checkArgument;

import java.util.EnumSet;
import java.util.Locale;
import java.util.Objects;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * How a masked reader sees a column. Immutable value. Specs (case-insensitive):
 *
 * <ul>
 *   <li>{@code null}: every value reads as null. Fits any type.
 *   <li>{@code redact}: a constant of the column's type ({@code "****"}, 0, {@code false},
 *       1970-01-01, an empty byte array). Fits primitive types.
 *   <li>{@code partial(keep_last=N)}: all but the last N characters replaced by {@code *}. Strings.
 *   <li>{@code hash}: keyed HMAC-SHA256, lowercase hex; equal inputs stay joinable. Strings,
 *       binary, int, long, decimal, date, timestamp.
 *   <li>{@code year}: dates and timestamps truncated to January 1st of their year.
 * </ul>
 *
 * The value kernels that apply the masks, for the Spark readers and the key server alike, are in
 * {@code io.icebergprotector.policy.masks}.
 */
public final class Mask {
  /** The mask kinds. */
  public enum Kind {
    NULL,
    REDACT,
    PARTIAL,
    HASH,
    YEAR
  }

  /** The valid specs, for error messages. */
  public static final String VALID_SPECS = "null, redact, partial(keep_last=N), hash, year";

  private static final Pattern CALL = Pattern.compile("(?s)([a-z_]+)\\s*\\((.*)\\)");
  private static final Pattern ARG = Pattern.compile("(?s)\\s*([A-Za-z_]+)\\s*=\\s*(.*?)\\s*");

  private static final Mask NULL = new Mask(Kind.NULL, 0);
  private static final Mask REDACT = new Mask(Kind.REDACT, 0);
  private static final Mask HASH = new Mask(Kind.HASH, 0);
  private static final Mask YEAR = new Mask(Kind.YEAR, 0);

  private static final Set<ColumnType> HASHABLE =
      EnumSet.of(
          ColumnType.STRING,
          ColumnType.BINARY,
          ColumnType.INT,
          ColumnType.LONG,
          ColumnType.DECIMAL,
          ColumnType.DATE,
          ColumnType.TIMESTAMP);

  private final Kind kind;
  private final int keepLast;

  private Mask(Kind kind, int keepLast) {
    this.kind = kind;
    this.keepLast = keepLast;
  }

  public static Mask nullMask() {
    return NULL;
  }

  public static Mask redact() {
    return REDACT;
  }

  public static Mask hash() {
    return HASH;
  }

  public static Mask year() {
    return YEAR;
  }

  public static Mask partial(int keepLast) {
    checkArgument(
        keepLast >= 0, "Invalid mask 'partial(keep_last=%s)': keep_last must be >= 0", keepLast);
    return new Mask(Kind.PARTIAL, keepLast);
  }

  /**
   * Parses {@code null | redact | partial(keep_last=N) | hash | year}.
   *
   * @throws IllegalArgumentException naming the spec and the valid choices
   */
  public static Mask parse(String spec) {
    checkArgument(spec != null, "Mask spec is null; valid masks: %s", VALID_SPECS);
    String s = spec.trim().toLowerCase(Locale.ROOT);
    switch (s) {
      case "null":
        return NULL;
      case "redact":
        return REDACT;
      case "hash":
        return HASH;
      case "year":
        return YEAR;
      case "partial":
        throw new IllegalArgumentException(
            "Invalid mask '" + spec + "': partial needs an argument, e.g. partial(keep_last=4)");
      default:
        break;
    }
    Matcher call = CALL.matcher(s);
    if (!call.matches() || !call.group(1).equals("partial")) {
      checkArgument(
          !s.startsWith("partial"),
          "Invalid mask '%s': expected partial(keep_last=N), e.g. partial(keep_last=4)",
          spec);
      throw new IllegalArgumentException(
          "Unknown mask '" + spec + "'; valid masks: " + VALID_SPECS);
    }
    Matcher arg =
        ARG.matcher(
            spec.trim().substring(spec.trim().indexOf('(') + 1, spec.trim().lastIndexOf(')')));
    checkArgument(
        arg.matches(),
        "Invalid mask '%s': partial takes one argument keep_last=N, e.g. partial(keep_last=4)",
        spec);
    checkArgument(
        arg.group(1).equalsIgnoreCase("keep_last"),
        "Invalid mask '%s': unknown argument '%s'; partial takes "
            + "keep_last=N, e.g. partial(keep_last=4)",
        spec,
        arg.group(1));
    String n = arg.group(2);
    int keep;
    try {
      keep = Integer.parseInt(n);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(
          "Invalid mask '" + spec + "': keep_last must be a non-negative integer, got '" + n + "'");
    }
    checkArgument(
        keep >= 0,
        "Invalid mask '%s': keep_last must be a non-negative integer, got '%s'",
        spec,
        n);
    return new Mask(Kind.PARTIAL, keep);
  }

  public Kind kind() {
    return kind;
  }

  /** Characters kept at the end; only meaningful for {@link Kind#PARTIAL}, 0 otherwise. */
  public int keepLast() {
    return keepLast;
  }

  /**
   * Whether this mask can be applied to a column of the given type: the one rule, used by policy
   * validation and by every read path.
   */
  public boolean appliesTo(ColumnType type) {
    if (type == null) {
      return false;
    }
    switch (kind) {
      case NULL:
        return true;
      case REDACT:
        return type.isPrimitive();
      case PARTIAL:
        return type == ColumnType.STRING;
      case HASH:
        return HASHABLE.contains(type);
      case YEAR:
        return type == ColumnType.DATE || type == ColumnType.TIMESTAMP;
      default:
        return false;
    }
  }

  /** The types this mask fits, for error messages, e.g. "DATE, TIMESTAMP". */
  public String applicableTypes() {
    StringBuilder sb = new StringBuilder();
    for (ColumnType t : ColumnType.values()) {
      if (appliesTo(t)) {
        sb.append(sb.length() == 0 ? "" : ", ").append(t.name());
      }
    }
    return sb.toString();
  }

  /** Canonical text, e.g. {@code partial(keep_last=4)}. */
  public String spec() {
    return kind == Kind.PARTIAL
        ? "partial(keep_last=" + keepLast + ")"
        : kind.name().toLowerCase(Locale.ROOT);
  }

  @Override
  public boolean equals(Object o) {
    if (this == o) {
      return true;
    }
    if (!(o instanceof Mask)) {
      return false;
    }
    Mask that = (Mask) o;
    return kind == that.kind && keepLast == that.keepLast;
  }

  @Override
  public int hashCode() {
    return Objects.hash(kind, keepLast);
  }

  @Override
  public String toString() {
    return spec();
  }
}
