/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.policy;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Storage locations in one spelling, so that a policy prefix matches however a location is written:
 * the scheme and authority in lower case, a bare absolute path as {@code file:}, local paths as
 * {@code file:/x} (never {@code file:///x}), no empty ({@code //}) or {@code .} segments, {@code
 * ..} resolved, and no trailing slash. Purely lexical, as Hadoop's {@code Path} resolves {@code
 * ..}; symbolic links are the file system's business (the Spark side resolves them).
 */
public final class Locations {
  private static final Pattern SCHEME =
      Pattern.compile("^([A-Za-z][A-Za-z0-9+.\\-]*):(.*)$", Pattern.DOTALL);

  private Locations() {}

  /**
   * The normalized form of an absolute location ({@code scheme:...} or {@code /path}); anything
   * else (a relative path) is returned as given and matches no prefix.
   */
  public static String normalize(String location) {
    if (location == null) {
      return null;
    }
    String scheme;
    String rest;
    Matcher m = SCHEME.matcher(location);
    if (m.matches()) {
      scheme = m.group(1).toLowerCase(Locale.ROOT);
      rest = m.group(2);
    } else if (location.startsWith("/")) {
      scheme = "file";
      rest = location;
    } else {
      return location;
    }
    String authority = "";
    String path = rest;
    if (rest.startsWith("//")) {
      int slash = rest.indexOf('/', 2);
      authority =
          (slash < 0 ? rest.substring(2) : rest.substring(2, slash)).toLowerCase(Locale.ROOT);
      path = slash < 0 ? "" : rest.substring(slash);
    }
    if ("file".equals(scheme) && "localhost".equals(authority)) {
      authority = "";
    }
    StringBuilder out = new StringBuilder(scheme).append(':');
    if (!authority.isEmpty() || !"file".equals(scheme)) {
      out.append("//").append(authority);
    }
    String segments = segments(path);
    out.append(segments.isEmpty() && "file".equals(scheme) ? "/" : segments);
    return out.toString();
  }

  // "/a//b/./c/../d/" -> "/a/b/d"; ".." never climbs above the root; "" for the root itself
  private static String segments(String path) {
    Deque<String> kept = new ArrayDeque<>();
    for (String segment : path.split("/", -1)) {
      if (segment.isEmpty() || ".".equals(segment)) {
        continue;
      }
      if ("..".equals(segment)) {
        kept.pollLast();
      } else {
        kept.addLast(segment);
      }
    }
    StringBuilder sb = new StringBuilder();
    for (String segment : kept) {
      sb.append('/').append(segment);
    }
    return sb.toString();
  }

  /**
   * Whether {@code prefix} contains {@code location}, both normalized: the same location, or one
   * below it on whole path segments ({@code s3a://b/pii} covers {@code s3a://b/pii/x}, not {@code
   * s3a://b/pii2}).
   */
  public static boolean covers(String prefix, String location) {
    if (prefix == null || location == null || !location.startsWith(prefix)) {
      return false;
    }
    return location.length() == prefix.length()
        || prefix.endsWith("/")
        || location.charAt(prefix.length()) == '/';
  }

  /** Whether {@code prefix} lies strictly below {@code location}, both normalized. */
  public static boolean isBelow(String prefix, String location) {
    return covers(location, prefix) && !prefix.equals(location);
  }
}
