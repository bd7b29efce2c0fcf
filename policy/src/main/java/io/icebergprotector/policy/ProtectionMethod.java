/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.policy;

import static io.icebergprotector.policy.Preconditions.checkArgument;

import java.math.BigInteger;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * How a column's values are protected. Immutable value. Specs (case-insensitive names):
 *
 * <ul>
 *   <li>{@code pme}, the default: Parquet Modular Encryption of the column chunk only.
 *   <li>{@code deterministic}: AES-SIV (RFC 5297) of the value; equal values give equal printable
 *       tokens. String and binary columns.
 *   <li>{@code fpe(alphabet = digits, keep = "-", min-length = 9)}: NIST SP 800-38G FF1 over the
 *       characters of the alphabet ({@code digits}, {@code lower}, {@code upper}, {@code alnum});
 *       the characters listed in {@code keep} stay in place. String columns.
 *   <li>{@code fpe(width = 9)}: FF1 over the decimal digits of an {@code int} or {@code long} whose
 *       magnitude is below {@code 10^width}; the sign is kept.
 * </ul>
 *
 * A format-preserving domain (alphabet size to the power of the shortest length) must hold at least
 * {@link #MIN_FPE_DOMAIN} values: a smaller one can be enumerated.
 */
public final class ProtectionMethod {
  /** The smallest FF1 domain accepted: one million values (NIST SP 800-38G Rev. 1). */
  public static final long MIN_FPE_DOMAIN = 1_000_000L;

  /** The valid specs, for error messages. */
  public static final String VALID_SPECS =
      "pme, deterministic, fpe(alphabet = digits|alnum|lower|upper, keep = \"-\", min-length = N),"
          + " fpe(width = N) for int and long columns";

  /** The methods. */
  public enum Kind {
    PME,
    DETERMINISTIC,
    FPE
  }

  /** The FF1 alphabets; a character's index in {@link #chars()} is its numeral. */
  public enum Alphabet {
    DIGITS("0123456789"),
    LOWER("abcdefghijklmnopqrstuvwxyz"),
    UPPER("ABCDEFGHIJKLMNOPQRSTUVWXYZ"),
    ALNUM("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz");

    private final String chars;

    Alphabet(String chars) {
      this.chars = chars;
    }

    public String chars() {
      return chars;
    }

    public int radix() {
      return chars.length();
    }

    /** The numeral of {@code c}, or -1 when it is not in this alphabet. */
    public int indexOf(char c) {
      return chars.indexOf(c);
    }

    public String spec() {
      return name().toLowerCase(Locale.ROOT);
    }

    /** The shortest length whose domain holds at least {@link #MIN_FPE_DOMAIN} values. */
    public int minimumLength() {
      int len = 1;
      while (BigInteger.valueOf(radix()).pow(len).compareTo(BigInteger.valueOf(MIN_FPE_DOMAIN))
          < 0) {
        len++;
      }
      return len;
    }
  }

  private static final ProtectionMethod PME = new ProtectionMethod(Kind.PME, null, "", 0, 0);
  private static final ProtectionMethod DETERMINISTIC =
      new ProtectionMethod(Kind.DETERMINISTIC, null, "", 0, 0);

  private static final Pattern CALL = Pattern.compile("(?is)\\s*([a-z_]+)\\s*\\((.*)\\)\\s*");
  // name = value, where value is "quoted", 'quoted' or a bare word without , ( ) or spaces
  private static final Pattern ARG =
      Pattern.compile(
          "\\s*([A-Za-z_-]+)\\s*=\\s*(\"((?:[^\"\\\\]|\\\\.)*)\"|'([^']*)'|([^,()\\s\"']+))\\s*(,|$)");

  private final Kind kind;
  private final Alphabet alphabet;
  private final String keep;
  private final int width;
  private final int minLength;

  private ProtectionMethod(Kind kind, Alphabet alphabet, String keep, int width, int minLength) {
    this.kind = kind;
    this.alphabet = alphabet;
    this.keep = keep;
    this.width = width;
    this.minLength = minLength;
  }

  public static ProtectionMethod pme() {
    return PME;
  }

  public static ProtectionMethod deterministic() {
    return DETERMINISTIC;
  }

  /**
   * FF1 over a string alphabet; {@code minLength} 0 means the alphabet's {@link
   * Alphabet#minimumLength()}.
   *
   * @throws IllegalArgumentException for a domain below {@link #MIN_FPE_DOMAIN}, or kept characters
   *     that are also in the alphabet
   */
  public static ProtectionMethod fpe(Alphabet alphabet, String keep, int minLength) {
    Objects.requireNonNull(alphabet, "alphabet");
    String k = keep == null ? "" : keep;
    for (char c : k.toCharArray()) {
      checkArgument(
          alphabet.indexOf(c) < 0,
          "Invalid method 'fpe': kept character '%s' is in alphabet %s; "
              + "keep lists separators outside the alphabet",
          c,
          alphabet.spec());
    }
    int len = minLength == 0 ? alphabet.minimumLength() : minLength;
    ProtectionMethod m = new ProtectionMethod(Kind.FPE, alphabet, dedupe(k), 0, len);
    BigInteger domain = m.domainSize();
    checkArgument(
        domain.compareTo(BigInteger.valueOf(MIN_FPE_DOMAIN)) >= 0,
        "Invalid method '%s': its smallest domain is %s^%s = %s "
            + "values, fewer than %s, so it could be enumerated; min-length "
            + "must be at least %s for alphabet %s",
        m.spec(),
        alphabet.radix(),
        len,
        domain,
        MIN_FPE_DOMAIN,
        alphabet.minimumLength(),
        alphabet.spec());
    return m;
  }

  /**
   * FF1 over the decimal digits of an integer column whose magnitude is below {@code 10^width}.
   *
   * @throws IllegalArgumentException for a width below 6 (fewer than a million values) or above 18
   */
  public static ProtectionMethod fpeNumeric(int width) {
    checkArgument(
        width >= 6,
        "Invalid method 'fpe(width = %s)': its domain is 10^%s values, "
            + "fewer than %s, so it could be enumerated; width must be at "
            + "least 6",
        width,
        width,
        MIN_FPE_DOMAIN);
    checkArgument(
        width <= 18,
        "Invalid method 'fpe(width = %s)': width is at most 18 (the "
            + "decimal digits a long holds in full)",
        width);
    return new ProtectionMethod(Kind.FPE, Alphabet.DIGITS, "", width, width);
  }

  /**
   * Parses a spec (see the class comment).
   *
   * @throws IllegalArgumentException naming the spec, the problem and the valid choices
   */
  public static ProtectionMethod parse(String spec) {
    checkArgument(
        spec != null && !spec.isBlank(), "Method is empty; valid methods: %s", VALID_SPECS);
    String s = spec.trim();
    String lower = s.toLowerCase(Locale.ROOT);
    if (lower.equals("pme")) {
      return PME;
    }
    if (lower.equals("deterministic")) {
      return DETERMINISTIC;
    }
    checkArgument(
        !lower.equals("fpe"),
        "Invalid method '%s': fpe needs arguments, e.g. fpe(alphabet = "
            + "digits, keep = \"-\") or fpe(width = 9)",
        spec);
    Matcher call = CALL.matcher(s);
    checkArgument(
        call.matches() && call.group(1).equalsIgnoreCase("fpe"),
        "Unknown method '%s'; valid methods: %s",
        spec,
        VALID_SPECS);
    Map<String, String> args = arguments(spec, call.group(2));
    String alphabetSpec = args.remove("alphabet");
    String keep = args.remove("keep");
    String widthSpec = args.remove("width");
    String minLengthSpec = args.remove("min-length");
    if (!args.isEmpty()) {
      throw new IllegalArgumentException(
          "Invalid method '"
              + spec
              + "': unknown argument '"
              + args.keySet().iterator().next()
              + "'; fpe takes alphabet, keep and min-length (strings) or width (int and long)");
    }
    if (widthSpec != null) {
      checkArgument(
          keep == null && minLengthSpec == null,
          "Invalid method '%s': width (for int and long columns) takes no keep or min-length",
          spec);
      checkArgument(
          alphabetSpec == null || alphabetSpec.equalsIgnoreCase("digits"),
          "Invalid method '%s': width (for int and long columns) needs alphabet digits",
          spec);
      return fpeNumeric(number(spec, "width", widthSpec));
    }
    checkArgument(
        alphabetSpec != null,
        "Invalid method '%s': fpe needs alphabet = "
            + "digits|alnum|lower|upper (strings) or width = N (int and long)",
        spec);
    Alphabet alphabet;
    try {
      alphabet = Alphabet.valueOf(alphabetSpec.toUpperCase(Locale.ROOT));
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(
          "Invalid method '"
              + spec
              + "': unknown alphabet '"
              + alphabetSpec
              + "'; valid alphabets: digits, alnum, lower, upper",
          e);
    }
    int minLength = minLengthSpec == null ? 0 : number(spec, "min-length", minLengthSpec);
    checkArgument(
        minLengthSpec == null || minLength >= 1,
        "Invalid method '%s': min-length must be positive, got %s",
        spec,
        minLengthSpec);
    return fpe(alphabet, keep, minLength);
  }

  private static Map<String, String> arguments(String spec, String body) {
    Map<String, String> out = new LinkedHashMap<>();
    String rest = body.trim();
    if (rest.isEmpty()) {
      return out;
    }
    Matcher m = ARG.matcher(rest);
    int at = 0;
    while (at < rest.length()) {
      checkArgument(
          m.find(at) && m.start() == at,
          "Invalid method '%s': cannot read the arguments from '%s'; "
              + "write name = value, separated by commas, e.g. fpe(alphabet = "
              + "digits, keep = \"-\")",
          spec,
          rest.substring(at));
      String name = m.group(1).toLowerCase(Locale.ROOT);
      String value =
          m.group(3) != null
              ? m.group(3).replaceAll("\\\\(.)", "$1")
              : m.group(4) != null ? m.group(4) : m.group(5);
      checkArgument(
          out.put(name, value) == null,
          "Invalid method '%s': argument '%s' is given twice",
          spec,
          name);
      at = m.end();
    }
    return out;
  }

  private static int number(String spec, String name, String value) {
    try {
      return Integer.parseInt(value.trim());
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(
          "Invalid method '" + spec + "': " + name + " must be an integer, got '" + value + "'", e);
    }
  }

  private static String dedupe(String keep) {
    StringBuilder sb = new StringBuilder();
    keep.chars().distinct().forEach(c -> sb.append((char) c));
    return sb.toString();
  }

  public Kind kind() {
    return kind;
  }

  /** True for deterministic and fpe: the value itself is protected, and tokens leave the table. */
  public boolean tokenizes() {
    return kind != Kind.PME;
  }

  /** The FF1 alphabet; null unless {@link Kind#FPE}. */
  public Alphabet alphabet() {
    return alphabet;
  }

  /** Characters kept in place (FPE over strings); empty otherwise. */
  public String keep() {
    return keep;
  }

  /** Decimal width of an int or long FPE column; 0 for strings and other methods. */
  public int width() {
    return width;
  }

  /** True for FPE over an int or long column. */
  public boolean numeric() {
    return kind == Kind.FPE && width > 0;
  }

  /** Shortest number of alphabet characters a value may have (FPE); 0 otherwise. */
  public int minLength() {
    return minLength;
  }

  /** radix^minLength for FPE; null otherwise. */
  public BigInteger domainSize() {
    return kind == Kind.FPE ? BigInteger.valueOf(alphabet.radix()).pow(minLength) : null;
  }

  /** Whether this method can protect a column of {@code type}: the one rule. */
  public boolean appliesTo(ColumnType type) {
    if (type == null) {
      return false;
    }
    switch (kind) {
      case PME:
        return true;
      case DETERMINISTIC:
        return type == ColumnType.STRING || type == ColumnType.BINARY;
      case FPE:
        if (numeric()) {
          return type == ColumnType.LONG || (type == ColumnType.INT && width <= 9);
        }
        return type == ColumnType.STRING;
      default:
        return false;
    }
  }

  /** The types this method fits, for error messages. */
  public String applicableTypes() {
    if (numeric()) {
      return width <= 9 ? "INT, LONG" : "LONG (an INT holds at most 9 full decimal digits)";
    }
    StringBuilder sb = new StringBuilder();
    for (ColumnType t : ColumnType.values()) {
      if (appliesTo(t)) {
        sb.append(sb.length() == 0 ? "" : ", ").append(t.name());
      }
    }
    return sb.toString();
  }

  /** Canonical text that {@link #parse} reads back to an equal method. */
  public String spec() {
    switch (kind) {
      case PME:
        return "pme";
      case DETERMINISTIC:
        return "deterministic";
      default:
        if (numeric()) {
          return "fpe(width = " + width + ")";
        }
        StringBuilder sb = new StringBuilder("fpe(alphabet = ").append(alphabet.spec());
        if (!keep.isEmpty()) {
          sb.append(", keep = \"")
              .append(keep.replace("\\", "\\\\").replace("\"", "\\\""))
              .append('"');
        }
        if (minLength != alphabet.minimumLength()) {
          sb.append(", min-length = ").append(minLength);
        }
        return sb.append(')').toString();
    }
  }

  @Override
  public boolean equals(Object o) {
    if (this == o) {
      return true;
    }
    if (!(o instanceof ProtectionMethod)) {
      return false;
    }
    ProtectionMethod that = (ProtectionMethod) o;
    return kind == that.kind
        && alphabet == that.alphabet
        && keep.equals(that.keep)
        && width == that.width
        && minLength == that.minLength;
  }

  @Override
  public int hashCode() {
    return Objects.hash(kind, alphabet, keep, width, minLength);
  }

  @Override
  public String toString() {
    return spec();
  }
}
