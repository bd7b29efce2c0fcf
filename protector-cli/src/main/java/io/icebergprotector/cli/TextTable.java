/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.cli;

import java.util.List;

/** Fixed-width text tables for terminal output. */
final class TextTable {
  private TextTable() {}

  /** Columns separated by two spaces, header on top; for listings such as {@code keys list}. */
  static String plain(List<String> headers, List<List<String>> rows) {
    int[] widths = widths(headers, rows);
    StringBuilder sb = new StringBuilder();
    line(sb, headers, widths, "", "  ", "");
    for (List<String> row : rows) {
      line(sb, row, widths, "", "  ", "");
    }
    return sb.toString();
  }

  /** A boxed table, as Spark's {@code show()} prints it. */
  static String boxed(List<String> headers, List<List<String>> rows) {
    int[] widths = widths(headers, rows);
    StringBuilder sb = new StringBuilder();
    rule(sb, widths);
    line(sb, headers, widths, "| ", " | ", " |");
    rule(sb, widths);
    for (List<String> row : rows) {
      line(sb, row, widths, "| ", " | ", " |");
    }
    rule(sb, widths);
    return sb.toString();
  }

  private static int[] widths(List<String> headers, List<List<String>> rows) {
    int[] widths = new int[headers.size()];
    for (int i = 0; i < widths.length; i++) {
      widths[i] = headers.get(i).length();
    }
    for (List<String> row : rows) {
      for (int i = 0; i < widths.length && i < row.size(); i++) {
        widths[i] = Math.max(widths[i], row.get(i).length());
      }
    }
    return widths;
  }

  private static void line(
      StringBuilder sb, List<String> cells, int[] widths, String left, String sep, String right) {
    StringBuilder line = new StringBuilder(left);
    for (int i = 0; i < widths.length; i++) {
      String cell = i < cells.size() ? cells.get(i) : "";
      line.append(cell);
      boolean last = i == widths.length - 1;
      if (!last || !right.isEmpty()) {
        line.append(" ".repeat(widths[i] - cell.length()));
      }
      line.append(last ? right : sep);
    }
    sb.append(line.toString().stripTrailing()).append('\n');
  }

  private static void rule(StringBuilder sb, int[] widths) {
    sb.append('+');
    for (int w : widths) {
      sb.append("-".repeat(w + 2)).append('+');
    }
    sb.append('\n');
  }
}
