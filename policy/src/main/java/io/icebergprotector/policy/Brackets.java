/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.policy;

import java.util.ArrayDeque;
import java.util.Deque;

/**
 * Finds the first unbalanced bracket of a HOCON text, skipping strings and comments: the cause of
 * most HOCON syntax errors, whose parser messages point at the end of the file instead.
 */
final class Brackets {
  private Brackets() {}

  /** What is unbalanced, in words, or null if every bracket is matched. */
  static String problem(String text) {
    Result r = scan(text);
    return r == null ? null : r.problem;
  }

  /** The line of {@link #problem}, or -1. */
  static int line(String text) {
    Result r = scan(text);
    return r == null ? -1 : r.line;
  }

  private record Result(String problem, int line) {}

  private record Open(char bracket, int line) {}

  private static Result scan(String text) {
    Deque<Open> open = new ArrayDeque<>();
    int line = 1;
    int i = 0;
    int n = text.length();
    while (i < n) {
      char c = text.charAt(i);
      if (c == '\n') {
        line++;
        i++;
      } else if (c == '#' || (c == '/' && i + 1 < n && text.charAt(i + 1) == '/')) {
        while (i < n && text.charAt(i) != '\n') {
          i++;
        }
      } else if (text.startsWith("\"\"\"", i)) {
        int end = text.indexOf("\"\"\"", i + 3);
        end = end < 0 ? n : end + 3;
        line += (int) text.substring(i, end).chars().filter(ch -> ch == '\n').count();
        i = end;
      } else if (c == '"') {
        i++;
        while (i < n && text.charAt(i) != '"' && text.charAt(i) != '\n') {
          i += text.charAt(i) == '\\' ? 2 : 1;
        }
        if (i >= n || text.charAt(i) == '\n') {
          return new Result(
              "a string opened with '\"' at line " + line + " is not closed on that line", line);
        }
        i++;
      } else if (c == '{' || c == '[' || c == '(') {
        open.push(new Open(c, line));
        i++;
      } else if (c == '}' || c == ']' || c == ')') {
        char expected = c == '}' ? '{' : c == ']' ? '[' : '(';
        if (open.isEmpty()) {
          return new Result(
              "'" + c + "' at line " + line + " closes nothing: there is one '" + c + "' too many",
              line);
        }
        Open o = open.pop();
        if (o.bracket != expected) {
          return new Result(
              "'"
                  + c
                  + "' at line "
                  + line
                  + " closes the '"
                  + o.bracket
                  + "' opened at line "
                  + o.line
                  + "; a '"
                  + closing(o.bracket)
                  + "' is missing before it",
              line);
        }
        i++;
      } else {
        i++;
      }
    }
    if (!open.isEmpty()) {
      Open o = open.peek();
      return new Result(
          "the '"
              + o.bracket
              + "' opened at line "
              + o.line
              + " is never closed: a '"
              + closing(o.bracket)
              + "' is missing",
          o.line);
    }
    return null;
  }

  private static char closing(char bracket) {
    return bracket == '{' ? '}' : bracket == '[' ? ']' : ')';
  }
}
