/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.policy;

import com.typesafe.config.ConfigException;
import com.typesafe.config.ConfigFactory;
import com.typesafe.config.ConfigList;
import com.typesafe.config.ConfigObject;
import com.typesafe.config.ConfigOrigin;
import com.typesafe.config.ConfigParseOptions;
import com.typesafe.config.ConfigRenderOptions;
import com.typesafe.config.ConfigResolveOptions;
import com.typesafe.config.ConfigSyntax;
import com.typesafe.config.ConfigUtil;
import com.typesafe.config.ConfigValue;
import com.typesafe.config.ConfigValueType;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The policy text being parsed, shared by every section: the HOCON tree, where each value stands
 * (line, and column of a key on its line), the errors and warnings found so far, and the checks and
 * readers of values that every section uses, so that all errors name the value, its line and its
 * key path the same way.
 */
final class PolicySource {
  // Typesafe merges repeated object keys silently. A merged origin from one file renders as
  // "name: 4-9" (first-last line); from two sources as "merge of a: 4,b: 9".
  private static final Pattern LINE_RANGE = Pattern.compile(": (\\d+)-(\\d+)$");
  private static final String MERGE_OF = "merge of ";

  private final String origin;
  private final String text;
  private final String[] lines;
  private final List<PolicyWarning> warnings = new ArrayList<>();

  /**
   * Errors of independent parts (a role, a key, a table, a column), so one run reports them all.
   */
  private final List<PolicyException> errors = new ArrayList<>();

  /** A string value and where it stands. */
  static final class Str {
    final String value;
    final ConfigValue at;

    Str(String value, ConfigValue at) {
      this.value = value;
      this.at = at;
    }
  }

  PolicySource(String origin, String text) {
    this.origin = origin;
    this.text = text;
    this.lines = text.split("\r\n|\r|\n", -1);
  }

  String origin() {
    return origin;
  }

  String text() {
    return text;
  }

  List<PolicyWarning> warnings() {
    return warnings;
  }

  /** The root object of the text, or the HOCON error that stops it from being read. */
  ConfigObject root() {
    try {
      ConfigParseOptions opts =
          ConfigParseOptions.defaults().setOriginDescription(origin).setSyntax(ConfigSyntax.CONF);
      return ConfigFactory.parseString(text, opts).resolve(ConfigResolveOptions.noSystem()).root();
    } catch (ConfigException e) {
      throw fromConfigException(e);
    }
  }

  void warn(ConfigValue at, List<String> path, String problem) {
    warnings.add(new PolicyWarning(origin, line(at), ConfigUtil.joinPath(path), problem));
  }

  // ------------------------------------------------------------------------ errors

  /** Runs one independent part of the parse; its error is recorded and parsing goes on. */
  void collecting(Runnable part) {
    try {
      part.run();
    } catch (PolicyException e) {
      errors.add(e);
    }
  }

  void addError(PolicyException e) {
    errors.add(e);
  }

  /** Throws the first recorded error in file order, the others riding along; none, no throw. */
  void throwErrors() {
    if (errors.isEmpty()) {
      return;
    }
    // The first error in file order is thrown; the others ride along (PolicyException.all()).
    errors.sort(Comparator.comparingInt(PolicyException::line));
    PolicyException first = errors.get(0);
    errors.subList(1, errors.size()).forEach(first::addSuppressed);
    throw first;
  }

  PolicyException err(ConfigValue at, List<String> path, String problem) {
    return new PolicyException(origin, line(at), ConfigUtil.joinPath(path), problem);
  }

  private PolicyException fromConfigException(ConfigException e) {
    ConfigOrigin or = e.origin();
    int line = or == null ? -1 : or.lineNumber();
    String msg = e.getMessage() == null ? e.toString() : e.getMessage();
    if (or != null && msg.startsWith(or.description() + ": ")) {
      msg = msg.substring(or.description().length() + 2);
    }
    boolean syntax =
        e instanceof ConfigException.Parse
            && !(e instanceof ConfigException.UnresolvedSubstitution);
    if (!syntax) {
      return new PolicyException(origin, line, "", "invalid HOCON: " + msg, e);
    }
    // The parser's words ("expecting a close parentheses ')'") rarely name the fix; unbalanced
    // brackets are the usual cause, and where they are is easy to find.
    String ours = Brackets.problem(text);
    if (ours != null) {
      return new PolicyException(
          origin,
          Brackets.line(text),
          "",
          "HOCON syntax error: " + ours + " (the parser says, at line " + line + ": " + msg + ")",
          e);
    }
    return new PolicyException(
        origin,
        line,
        "",
        "HOCON syntax error: "
            + msg
            + "; check this line and the one before for a missing comma, quote, '=' or bracket",
        e);
  }

  // ------------------------------------------------------------------------ checks

  void checkFields(ConfigObject o, List<String> path, List<String> allowed, String what) {
    for (Map.Entry<String, ConfigValue> e : ordered(o)) {
      if (!allowed.contains(e.getKey())) {
        throw err(
            e.getValue(),
            append(path, e.getKey()),
            "unknown field '"
                + e.getKey()
                + "' in "
                + what
                + "; valid fields: "
                + String.join(", ", allowed)
                + Suggestions.suggest(e.getKey(), allowed));
      }
    }
  }

  void checkDescription(ConfigObject o, List<String> path) {
    ConfigValue d = o.get("description");
    if (d != null) {
      str(d, append(path, "description"), "a description string");
    }
  }

  /** Rejects an object assembled by Typesafe from a key written twice. */
  void checkNotMerged(ConfigObject o, String key, List<String> path, String what) {
    ConfigOrigin or = o.origin();
    String desc = or.description();
    if (desc.startsWith(MERGE_OF)) {
      throw err(o, path, what + " is defined more than once (" + desc + "); write each key once");
    }
    Matcher m = LINE_RANGE.matcher(desc);
    if (m.find()) {
      int first = Integer.parseInt(m.group(1));
      int last = Integer.parseInt(m.group(2));
      // Only a repeated key, not ${base} { ... } inheritance: the key must appear on both lines.
      if (first != last
          && column(key, first) != Integer.MAX_VALUE
          && column(key, last) != Integer.MAX_VALUE) {
        throw new PolicyException(
            origin,
            last,
            ConfigUtil.joinPath(path),
            what
                + " is defined more than once (lines "
                + first
                + " and "
                + last
                + "); write each key once");
      }
    }
  }

  /**
   * {@code o}, an entry of a section, after the checks every entry shares: written once, only
   * {@code allowed} fields (named {@code what} in errors), a description that is a string.
   */
  ConfigObject entry(
      ConfigObject o, String key, List<String> path, List<String> allowed, String what) {
    checkNotMerged(o, key, path, what + " '" + key + "'");
    checkFields(o, path, allowed, what);
    checkDescription(o, path);
    return o;
  }

  // ------------------------------------------------------------------------ value readers

  ConfigObject optionalObject(
      ConfigObject parent, List<String> path, String field, String expectation) {
    ConfigValue v = parent.get(field);
    return v == null ? null : object(v, append(path, field), expectation);
  }

  ConfigObject object(ConfigValue v, List<String> path, String expectation) {
    if (v.valueType() != ConfigValueType.OBJECT) {
      throw err(v, path, "expected " + expectation + " but got " + describe(v));
    }
    return (ConfigObject) v;
  }

  String str(ConfigValue v, List<String> path, String expectation) {
    if (v.valueType() != ConfigValueType.STRING) {
      throw err(v, path, "expected " + expectation + " but got " + describe(v));
    }
    String s = ((String) v.unwrapped()).trim();
    if (s.isEmpty()) {
      throw err(v, path, "expected " + expectation + " but got an empty string");
    }
    return s;
  }

  /** {@code field} of {@code o} as true or false; {@code absent} when it is not there. */
  boolean bool(ConfigObject o, List<String> path, String field, boolean absent) {
    ConfigValue v = o.get(field);
    if (v == null) {
      return absent;
    }
    if (v.valueType() != ConfigValueType.BOOLEAN) {
      throw err(v, append(path, field), "expected true or false but got " + describe(v));
    }
    return (Boolean) v.unwrapped();
  }

  List<Str> stringList(ConfigValue v, List<String> path, String what, String example) {
    List<Str> out = new ArrayList<>();
    if (v == null) {
      return out;
    }
    if (v.valueType() != ConfigValueType.LIST) {
      String hint =
          v.valueType() == ConfigValueType.STRING
              ? "; write a list even for one element: [" + v.unwrapped() + "]"
              : "";
      throw err(
          v,
          path,
          "expected a list of " + what + ", e.g. " + example + ", but got " + describe(v) + hint);
    }
    ConfigList list = (ConfigList) v;
    for (int i = 0; i < list.size(); i++) {
      ConfigValue el = list.get(i);
      if (el.valueType() != ConfigValueType.STRING || ((String) el.unwrapped()).isBlank()) {
        throw err(
            el,
            path,
            "expected a list of "
                + what
                + ", but element "
                + (i + 1)
                + " is "
                + (el.valueType() == ConfigValueType.STRING ? "an empty string" : describe(el)));
      }
      out.add(new Str(((String) el.unwrapped()).trim(), el));
    }
    return out;
  }

  static String describe(ConfigValue v) {
    switch (v.valueType()) {
      case STRING:
        return "string \"" + v.unwrapped() + "\"";
      case NULL:
        return "null";
      case OBJECT:
        return "object " + shorten(v.render(ConfigRenderOptions.concise()));
      case LIST:
        return "list " + shorten(v.render(ConfigRenderOptions.concise()));
      default:
        return v.valueType().name().toLowerCase(Locale.ROOT)
            + " "
            + v.render(ConfigRenderOptions.concise());
    }
  }

  private static String shorten(String s) {
    return s.length() <= 60 ? s : s.substring(0, 57) + "...";
  }

  // ------------------------------------------------------------------------ order and origins

  /**
   * Entries in the order they were written. Typesafe objects are hash maps, so sort by line and,
   * within a line, by where the key appears in the source text.
   */
  List<Map.Entry<String, ConfigValue>> ordered(ConfigObject o) {
    List<Map.Entry<String, ConfigValue>> list = new ArrayList<>(o.entrySet());
    Map<String, Integer> cols = new LinkedHashMap<>();
    for (Map.Entry<String, ConfigValue> e : list) {
      cols.put(e.getKey(), column(e.getKey(), line(e.getValue())));
    }
    list.sort(
        Comparator.<Map.Entry<String, ConfigValue>>comparingInt(e -> sortLine(e.getValue()))
            .thenComparingInt(e -> cols.get(e.getKey()))
            .thenComparing(Map.Entry::getKey));
    return list;
  }

  private static int sortLine(ConfigValue v) {
    int l = line(v);
    return l < 0 ? Integer.MAX_VALUE : l;
  }

  /**
   * Offset of {@code key} (quoted or bare) as a whole token on a source line; MAX_VALUE if absent.
   */
  private int column(String key, int line) {
    if (line < 1 || line > lines.length) {
      return Integer.MAX_VALUE;
    }
    String l = lines[line - 1];
    int best = Integer.MAX_VALUE;
    List<String> tokens = key.isEmpty() ? List.of("\"\"") : List.of("\"" + key + "\"", key);
    for (String tok : tokens) {
      int from = 0;
      int idx;
      while ((idx = l.indexOf(tok, from)) >= 0) {
        int end = idx + tok.length();
        boolean startOk = idx == 0 || !isIdent(l.charAt(idx - 1));
        boolean endOk = end >= l.length() || !isIdent(l.charAt(end));
        if (startOk && endOk) {
          best = Math.min(best, idx);
          break;
        }
        from = idx + 1;
      }
    }
    return best;
  }

  private static boolean isIdent(char c) {
    return Character.isLetterOrDigit(c) || c == '_' || c == '-';
  }

  static int line(ConfigValue v) {
    return v == null || v.origin() == null ? -1 : v.origin().lineNumber();
  }

  static List<String> append(List<String> path, String key) {
    List<String> out = new ArrayList<>(path.size() + 1);
    out.addAll(path);
    out.add(key);
    return out;
  }
}
