/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.docs;

import com.typesafe.config.ConfigFactory;
import com.typesafe.config.ConfigParseOptions;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The key server's settings page, from {@code conf/server.conf}, which documents each setting in
 * the comments above it (and after it, on its line). Settings left commented out ({@code # jwks-url
 * = "..."}) are optional ones, listed as not set. The page keeps the file's order: the settings of
 * {@code protector-server} itself, then one section per block ({@code bind}, {@code tls}, ...),
 * each with the comment above the block.
 *
 * <p>A line parser rather than Typesafe Config, because the documentation is in the comments; the
 * keys it finds are checked against what Typesafe Config parses, so a setting it missed fails.
 */
final class ServerSettingsPage {
  private static final String ROOT = "protector-server";
  private static final Pattern BLOCK = Pattern.compile("([A-Za-z][\\w-]*)\\s*\\{\\s*(?:#.*)?");
  private static final Pattern SETTING = Pattern.compile("([A-Za-z][\\w-]*)\\s*=\\s*(.*)");
  // "# name = value  # note": a setting left out on purpose. One space after '#', so that
  // indented examples inside a comment ("#   sync = none ...") are not taken for one.
  private static final Pattern COMMENTED_SETTING =
      Pattern.compile(
          "([a-z][a-z0-9-]*)\\s*=\\s*(\"[^\"]*\"|\\[[^\\]]*\\]|[0-9]+[a-z]*|true|false)\\s*(?:#\\s*(.*))?");
  private static final Pattern RULE = Pattern.compile("[-=]{5,}");
  private static final Pattern ENV_SUBSTITUTION = Pattern.compile("\\$\\{\\?([A-Z0-9_]+)\\}");

  /** One setting: its key below {@code protector-server}, its value, what the comments say. */
  private record Setting(String key, String value, boolean set, List<String> doc) {}

  /** A block of settings ({@code protector-server} itself, or a nested block). */
  private static final class Section {
    final String key;
    final List<String> doc;
    final List<Setting> settings = new ArrayList<>();
    final List<String> notes = new ArrayList<>();

    Section(String key, List<String> doc) {
      this.key = key;
      this.doc = doc;
    }
  }

  private ServerSettingsPage() {}

  static String render(Path serverConf) throws IOException {
    List<String> lines = Files.readAllLines(serverConf, StandardCharsets.UTF_8);
    List<String> intro = new ArrayList<>();
    Map<String, Section> sections = new LinkedHashMap<>();
    Deque<String> path = new ArrayDeque<>();
    List<String> pending = new ArrayList<>();
    boolean started = false;
    for (String raw : lines) {
      String line = raw.strip();
      if (line.isEmpty()) {
        if (!started) {
          continue;
        }
        flushNotes(sections, path, pending);
        continue;
      }
      if (line.startsWith("#")) {
        String text = comment(line);
        if (RULE.matcher(text).matches()) {
          continue; // the rules around a banner comment
        }
        Matcher commented = COMMENTED_SETTING.matcher(text);
        if (started && !text.startsWith(" ") && commented.matches()) {
          List<String> doc = new ArrayList<>(pending);
          addNote(doc, commented.group(3));
          current(sections, path)
              .settings
              .add(new Setting(key(path, commented.group(1)), commented.group(2), false, doc));
          pending.clear();
        } else if (started) {
          pending.add(text);
        } else {
          intro.add(text);
        }
        continue;
      }
      if (line.equals("]") && "[".equals(path.peekLast())) {
        // the commented-out entries of a list are its examples
        Section section = current(sections, path);
        Setting list = section.settings.get(section.settings.size() - 1);
        pending.forEach(example -> list.doc.add("  " + example));
        pending.clear();
        path.removeLast();
        continue;
      }
      if (line.equals("}")) {
        flushNotes(sections, path, pending);
        path.removeLast();
        continue;
      }
      Matcher block = BLOCK.matcher(line);
      if (block.matches()) {
        if (!started) {
          if (!block.group(1).equals(ROOT)) {
            throw new IllegalStateException(serverConf + ": expected " + ROOT + " { ... }");
          }
          started = true;
        }
        path.addLast(block.group(1));
        String key = key(path, null);
        sections.put(key, new Section(key, new ArrayList<>(pending)));
        pending.clear();
        continue;
      }
      Matcher setting = SETTING.matcher(line);
      if (!setting.matches()) {
        throw new IllegalStateException(serverConf + ": cannot read the line '" + line + "'");
      }
      String[] valueAndNote = valueAndNote(setting.group(2));
      Section section = current(sections, path);
      String key = key(path, setting.group(1));
      Matcher env = ENV_SUBSTITUTION.matcher(valueAndNote[0]);
      Setting earlier =
          section.settings.stream().filter(s -> s.key.equals(key)).findFirst().orElse(null);
      if (env.matches() && earlier != null) {
        earlier.doc.add("The environment variable `" + env.group(1) + "` overrides it when set.");
        pending.clear();
        continue;
      }
      List<String> doc = new ArrayList<>(pending);
      addNote(doc, valueAndNote[1]);
      if (valueAndNote[0].equals("[")) {
        // a list over several lines, here with commented-out examples only
        valueAndNote[0] = "[]";
        path.addLast("[");
      }
      section.settings.add(new Setting(key, valueAndNote[0], true, doc));
      pending.clear();
    }
    checkKeys(serverConf, sections);
    return page(intro, sections);
  }

  // "]" closes a list opened by "name = [", which the loop tracks as a path element "[".
  private static Section current(Map<String, Section> sections, Deque<String> path) {
    List<String> blocks = new ArrayList<>(path);
    blocks.removeIf(p -> p.equals("["));
    return sections.get(
        String.join(".", blocks.subList(1, blocks.size())).isEmpty()
            ? ROOT
            : String.join(".", blocks.subList(1, blocks.size())));
  }

  private static String key(Deque<String> path, String name) {
    List<String> parts = new ArrayList<>(path);
    parts.removeIf(p -> p.equals("["));
    parts = new ArrayList<>(parts.subList(1, parts.size()));
    if (name != null) {
      parts.add(name);
    }
    return parts.isEmpty() ? ROOT : String.join(".", parts);
  }

  private static void flushNotes(
      Map<String, Section> sections, Deque<String> path, List<String> pending) {
    if (!pending.isEmpty()) {
      Section section = current(sections, path);
      if (section != null) {
        section.notes.addAll(pending);
        section.notes.add("");
      }
      pending.clear();
    }
  }

  private static String comment(String line) {
    String text = line.substring(1);
    return text.startsWith(" ") ? text.substring(1) : text;
  }

  private static void addNote(List<String> doc, String note) {
    if (note != null && !note.isBlank()) {
      doc.add(note.strip());
    }
  }

  /** The value (a quoted string, a list or a bare word) and the comment after it, if any. */
  private static String[] valueAndNote(String rest) {
    String value;
    String after;
    if (rest.startsWith("\"")) {
      int end = rest.indexOf('"', 1);
      value = rest.substring(0, end + 1);
      after = rest.substring(end + 1);
    } else if (rest.startsWith("[") && rest.contains("]")) {
      int end = rest.indexOf(']');
      value = rest.substring(0, end + 1);
      after = rest.substring(end + 1);
    } else {
      int hash = rest.indexOf('#');
      value = hash < 0 ? rest : rest.substring(0, hash);
      after = hash < 0 ? "" : rest.substring(hash);
    }
    after = after.strip();
    String note = after.startsWith("#") ? after.substring(1).strip() : null;
    return new String[] {value.strip(), note};
  }

  /** Every key Typesafe Config finds must be on the page. */
  private static void checkKeys(Path serverConf, Map<String, Section> sections) {
    Set<String> parsed = new TreeSet<>();
    ConfigFactory.parseFile(serverConf.toFile(), ConfigParseOptions.defaults())
        .resolve()
        .getConfig(ROOT)
        .entrySet()
        .forEach(e -> parsed.add(e.getKey()));
    Set<String> onPage = new TreeSet<>();
    sections
        .values()
        .forEach(s -> s.settings.stream().filter(Setting::set).forEach(x -> onPage.add(x.key)));
    parsed.removeAll(onPage);
    if (!parsed.isEmpty()) {
      throw new IllegalStateException(
          serverConf + ": settings the page generator could not read: " + parsed);
    }
  }

  private static String page(List<String> intro, Map<String, Section> sections) {
    StringBuilder md =
        new StringBuilder(ReferencePages.header("Key server settings", "conf/server.conf"));
    md.append(
        "Every setting of the key server's configuration file, as `conf/server.conf` documents"
            + " it (the sample file, with the values shown here). Defaults of the optional"
            + " settings are in `protector-server/src/main/resources/reference.conf`. How to deploy"
            + " the server: [The key server](../key-server.md).\n\n");
    md.append("## The file\n\n");
    prose(md, intro);
    for (Section section : sections.values()) {
      md.append("## `").append(section.key).append("`\n\n");
      prose(md, section.doc);
      if (!section.settings.isEmpty()) {
        md.append("| setting | in `conf/server.conf` | meaning |\n| --- | --- | --- |\n");
        for (Setting s : section.settings) {
          md.append("| `")
              .append(s.key)
              .append("` | ")
              .append(s.set ? code(s.value) : "not set; e.g. " + code(s.value))
              .append(" | ")
              .append(cell(s.doc))
              .append(" |\n");
        }
        md.append('\n');
      }
      prose(md, section.notes);
    }
    return md.toString().stripTrailing() + "\n";
  }

  /**
   * Comment lines as Markdown: lines indented in the comment (commands, API lines, lists of values)
   * become code blocks; the others are text, one paragraph per blank line.
   */
  private static void prose(StringBuilder md, List<String> lines) {
    boolean inCode = false;
    boolean any = false;
    for (String line : lines) {
      boolean preformatted = line.startsWith(" ") || line.startsWith("\t");
      if (preformatted && !inCode) {
        md.append(any ? "\n" : "").append("```text\n");
        inCode = true;
      } else if (!preformatted && inCode) {
        md.append("```\n\n");
        inCode = false;
      }
      if (inCode) {
        md.append(line).append('\n');
      } else if (line.isEmpty()) {
        md.append('\n');
      } else {
        md.append(text(line)).append('\n');
      }
      any = true;
    }
    if (inCode) {
      md.append("```\n");
    }
    if (any) {
      md.append('\n');
    }
  }

  /** Comment lines in a table cell: text joined by spaces, indented lines as code on their own. */
  private static String cell(List<String> lines) {
    List<String> parts = new ArrayList<>();
    StringBuilder text = new StringBuilder();
    for (String line : lines) {
      if (line.startsWith(" ")) {
        if (text.length() > 0) {
          parts.add(text.toString());
          text.setLength(0);
        }
        parts.add(code(line.strip()));
      } else {
        text.append(text.length() > 0 ? " " : "").append(text(line));
      }
    }
    if (text.length() > 0) {
      parts.add(text.toString());
    }
    return String.join("<br>", parts);
  }

  /** Free text: what Markdown would take for HTML or a table's cell boundary is escaped. */
  private static String text(String line) {
    StringBuilder out = new StringBuilder();
    String[] parts = line.split("`", -1);
    for (int i = 0; i < parts.length; i++) {
      if (i > 0) {
        out.append('`');
      }
      String part = parts[i];
      if (i % 2 == 0 || i == parts.length - 1 && parts.length % 2 == 0) {
        part = part.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;");
        part = part.replace("*", "\\*").replace("|", "\\|");
      }
      out.append(part);
    }
    return out.toString();
  }

  private static String code(String value) {
    // a value holding a backtick needs a longer fence; a '|' in a code span does not end a cell
    return value.contains("`") ? "`` " + value + " ``" : "`" + value + "`";
  }
}
