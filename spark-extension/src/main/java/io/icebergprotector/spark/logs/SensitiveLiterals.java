/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.spark.logs;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The literals that queries over protected data compared with columns, as text, and their removal
 * from log messages. One registry per JVM: Spark's planner logs on the driver, for every session.
 *
 * <p>The registry keeps the {@value #CAPACITY} most recently registered literals: a query's
 * literals are registered when it is analyzed, and Spark logs them while it optimizes and plans the
 * same query, moments later. A literal is replaced where it stands as a whole token: {@code 42} in
 * {@code ssn = 42} but not in {@code ssn#420}.
 *
 * <p>Hand-written rather than an Aho-Corasick library: the set changes with each query, it is
 * matched on token boundaries, and a library would be one more package to relocate in every runtime
 * jar for some forty lines.
 */
public final class SensitiveLiterals {
  /** What a redacted literal reads as, as in the protector's own messages. */
  public static final String REDACTED = "<redacted>";

  static final int CAPACITY = 10_000;

  private static final SensitiveLiterals INSTANCE = new SensitiveLiterals(CAPACITY);

  private final int capacity;
  // access order: the least recently registered literal leaves first
  private final LinkedHashMap<String, Boolean> literals;
  // the literals by their first token, longest first; rebuilt after a change
  private volatile Map<String, List<String>> byFirstToken = Map.of();
  private volatile boolean dirty;

  SensitiveLiterals(int capacity) {
    this.capacity = capacity;
    this.literals =
        new LinkedHashMap<>(16, 0.75f, true) {
          @Override
          protected boolean removeEldestEntry(Map.Entry<String, Boolean> eldest) {
            return size() > SensitiveLiterals.this.capacity;
          }
        };
  }

  public static SensitiveLiterals global() {
    return INSTANCE;
  }

  /** Remembers each literal text; empty texts are ignored. */
  public void register(Collection<String> texts) {
    synchronized (literals) {
      for (String text : texts) {
        if (text != null && !text.isEmpty() && literals.put(text, Boolean.TRUE) == null) {
          dirty = true;
        }
      }
    }
  }

  /** {@code message} with every registered literal that stands as a whole token redacted. */
  public String redact(String message) {
    if (message == null || message.isEmpty()) {
      return message;
    }
    Map<String, List<String>> index = index();
    if (index.isEmpty()) {
      return message;
    }
    StringBuilder out = null;
    int copied = 0;
    int i = 0;
    while (i < message.length()) {
      String match = null;
      if (i == 0 || !(isWord(message.charAt(i - 1)) && isWord(message.charAt(i)))) {
        List<String> candidates = index.get(firstToken(message, i));
        if (candidates != null) {
          for (String candidate : candidates) {
            int end = i + candidate.length();
            if (message.startsWith(candidate, i)
                && (end == message.length()
                    || !(isWord(message.charAt(end)) && isWord(message.charAt(end - 1))))) {
              match = candidate;
              break;
            }
          }
        }
      }
      if (match == null) {
        i++;
        continue;
      }
      if (out == null) {
        out = new StringBuilder(message.length());
      }
      out.append(message, copied, i).append(REDACTED);
      i += match.length();
      copied = i;
    }
    return out == null ? message : out.append(message, copied, message.length()).toString();
  }

  /** Forgets every literal (tests). */
  void clear() {
    synchronized (literals) {
      literals.clear();
      dirty = true;
    }
  }

  private Map<String, List<String>> index() {
    if (!dirty) {
      return byFirstToken;
    }
    synchronized (literals) {
      if (dirty) {
        Map<String, List<String>> index = new HashMap<>();
        for (String literal : literals.keySet()) {
          index.computeIfAbsent(firstToken(literal, 0), k -> new ArrayList<>()).add(literal);
        }
        Comparator<String> longestFirst = Comparator.comparingInt(String::length).reversed();
        index.values().forEach(list -> list.sort(longestFirst));
        byFirstToken = index;
        dirty = false;
      }
      return byFirstToken;
    }
  }

  /** The run of word characters at {@code from}, or the one other character there. */
  private static String firstToken(String text, int from) {
    int end = from;
    while (end < text.length() && isWord(text.charAt(end))) {
      end++;
    }
    return text.substring(from, end == from ? from + 1 : end);
  }

  private static boolean isWord(char c) {
    return Character.isLetterOrDigit(c) || c == '_';
  }
}
