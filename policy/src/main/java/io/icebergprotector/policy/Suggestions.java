/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.policy;

import java.util.Collection;
import java.util.Locale;

/** The "did you mean" hint of policy errors: the nearest valid name, when it is near enough. */
final class Suggestions {
  private Suggestions() {}

  static String suggest(String bad, Collection<String> valid) {
    String best = null;
    int bestD = Integer.MAX_VALUE;
    for (String v : valid) {
      int d = distance(bad.toLowerCase(Locale.ROOT), v.toLowerCase(Locale.ROOT));
      if (d < bestD) {
        bestD = d;
        best = v;
      }
    }
    return best != null && bestD <= (best.length() >= 5 ? 2 : 1)
        ? " (did you mean '" + best + "'?)"
        : "";
  }

  /**
   * Optimal string alignment distance: edits plus adjacent transpositions ("claer" -> "clear" is
   * 1).
   */
  private static int distance(String a, String b) {
    int[][] d = new int[a.length() + 1][b.length() + 1];
    for (int i = 0; i <= a.length(); i++) {
      d[i][0] = i;
    }
    for (int j = 0; j <= b.length(); j++) {
      d[0][j] = j;
    }
    for (int i = 1; i <= a.length(); i++) {
      for (int j = 1; j <= b.length(); j++) {
        int cost = a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1;
        d[i][j] = Math.min(Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1), d[i - 1][j - 1] + cost);
        if (i > 1
            && j > 1
            && a.charAt(i - 1) == b.charAt(j - 2)
            && a.charAt(i - 2) == b.charAt(j - 1)) {
          d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
        }
      }
    }
    return d[a.length()][b.length()];
  }
}
