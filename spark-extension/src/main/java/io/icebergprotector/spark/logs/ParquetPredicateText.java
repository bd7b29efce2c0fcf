/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.spark.logs;

import java.util.regex.Pattern;

/**
 * Removes the values from parquet-java's printed filter predicates, such as {@code eq(ssn,
 * Binary{"123-45-6789"})} in {@code FilterCompat}'s "Filtering using predicate" line, which Spark's
 * Parquet readers log at INFO on executors. No registry of the query's literals reaches an
 * executor, so every value of a predicate goes: {@code eq(ssn, Binary{<redacted>})}, {@code
 * gt(salary, <redacted>)}; columns and operators stay.
 */
final class ParquetPredicateText {
  // Binary.toString: Binary{"text"} for strings, Binary{N [reused|constant] bytes, [..]} otherwise.
  // The text is not escaped: it ends at a quote and brace that close an argument.
  private static final Pattern BINARY =
      Pattern.compile("Binary\\{(?:\".*?\"|\\d+ (?:\\w+ )?bytes, \\[[^\\]]*\\])\\}(?=[),\\]]|$)");
  // eq(c, 5), noteq(c, -1.5), lt/lteq/gt/gteq(c, v): the value is the operator's last argument
  private static final Pattern COMPARISON =
      Pattern.compile(
          "\\b(eq|noteq|lt|lteq|gt|gteq)\\(([^,()]+), (?!Binary\\{<redacted>\\})[^()]*?\\)");
  // in(c, [v1, v2]) and notin(c, [..])
  private static final Pattern SET = Pattern.compile("\\b(in|notin)\\(([^,()]+), \\[[^\\]]*\\]\\)");

  private ParquetPredicateText() {}

  static String redact(String message) {
    if (message == null || message.indexOf('(') < 0) {
      return message;
    }
    String out = BINARY.matcher(message).replaceAll("Binary{" + SensitiveLiterals.REDACTED + "}");
    out = COMPARISON.matcher(out).replaceAll("$1($2, " + SensitiveLiterals.REDACTED + ")");
    out = SET.matcher(out).replaceAll("$1($2, [" + SensitiveLiterals.REDACTED + "])");
    return out.equals(message) ? message : out;
  }
}
