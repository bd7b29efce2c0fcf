/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.cli;

import java.util.ArrayList;
import java.util.List;

/** Splits a SQL script into statements at semicolons outside quotes, identifiers and comments. */
final class SqlScript {
  private SqlScript() {}

  static List<String> split(String script) {
    List<String> statements = new ArrayList<>();
    StringBuilder current = new StringBuilder();
    int n = script.length();
    int i = 0;
    while (i < n) {
      char c = script.charAt(i);
      if (c == '\'' || c == '"' || c == '`') {
        int end = quoteEnd(script, i, c);
        current.append(script, i, end);
        i = end;
      } else if (c == '-' && i + 1 < n && script.charAt(i + 1) == '-') {
        int end = script.indexOf('\n', i);
        i = end < 0 ? n : end; // drop the comment, keep the newline
      } else if (c == '/' && i + 1 < n && script.charAt(i + 1) == '*') {
        int end = script.indexOf("*/", i + 2);
        i = end < 0 ? n : end + 2;
        current.append(' ');
      } else if (c == ';') {
        add(statements, current);
        i++;
      } else {
        current.append(c);
        i++;
      }
    }
    add(statements, current);
    return statements;
  }

  /** Index just past the closing quote; backslash escapes (Spark's default) and doubled quotes. */
  private static int quoteEnd(String s, int start, char quote) {
    int i = start + 1;
    while (i < s.length()) {
      char c = s.charAt(i);
      if (c == '\\' && quote != '`' && i + 1 < s.length()) {
        i += 2;
      } else if (c == quote) {
        if (i + 1 < s.length() && s.charAt(i + 1) == quote) {
          i += 2;
        } else {
          return i + 1;
        }
      } else {
        i++;
      }
    }
    return s.length(); // unterminated: Spark reports it
  }

  private static void add(List<String> statements, StringBuilder current) {
    String statement = current.toString().strip();
    if (!statement.isEmpty()) {
      statements.add(statement);
    }
    current.setLength(0);
  }
}
