/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.testing;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.regex.Pattern;

/**
 * A protection policy for tests, built in code and rendered as the HOCON text the product parses,
 * or loaded from a test resource. Tests that check how malformed text is reported keep their own
 * text; every other test states only the roles, keys, tables and columns it needs.
 *
 * <pre>{@code
 * String hocon =
 *     TestPolicy.builder()
 *         .role("admin", "alice")
 *         .role("analyst", "bob")
 *         .keys("pii", "footer")
 *         .table("db.people", t -> t.footerKey("footer").writers("etl")
 *             .column("ssn", c -> c.key("pii").clear("admin").masked("analyst", "hash")))
 *         .render();
 * }</pre>
 */
public final class TestPolicy {
  // what HOCON reads as one unquoted string (or the keyword null); anything else is quoted
  private static final Pattern BARE = Pattern.compile("[A-Za-z_][A-Za-z0-9_-]*");

  private final Map<String, Role> roles = new LinkedHashMap<>();
  private final List<String> keys = new ArrayList<>();
  private final Map<String, Table> tables = new LinkedHashMap<>();
  private final Map<String, Table> paths = new LinkedHashMap<>();
  private final List<String> extra = new ArrayList<>();

  private TestPolicy() {}

  public static TestPolicy builder() {
    return new TestPolicy();
  }

  /**
   * The text of the test resource {@code name} (e.g. {@code "policies/customers.conf"}), looked up
   * on the class path of {@code owner}.
   */
  public static String resource(Class<?> owner, String name) {
    String absolute = name.startsWith("/") ? name : "/" + name;
    try (InputStream in = owner.getResourceAsStream(absolute)) {
      if (in == null) {
        throw new IllegalArgumentException(
            "Cannot load policy resource " + absolute + ": not on the class path of " + owner);
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read policy resource " + absolute, e);
    }
  }

  /**
   * The customers table the Spark tests and the end-to-end tests share: encrypted footer with key
   * {@code footer}, written by {@code etl} and {@code admin}; {@code ssn} and {@code email} under
   * {@code pii} (clear for {@code admin}, masked for {@code analyst}), {@code salary} under {@code
   * fin} and {@code address.zip} under {@code pii}, clear for {@code admin} only. The policy must
   * declare those roles and keys.
   */
  public static Consumer<Table> customersTable() {
    return t ->
        t.footerKey("footer")
            .footerMode("encrypted")
            .algorithm("AES_GCM_V1")
            .writers("etl", "admin")
            .column(
                "ssn",
                c ->
                    c.key("pii")
                        .clear("admin")
                        .masked("analyst", "partial(keep_last=4)")
                        .onDenied("null"))
            .column("email", c -> c.key("pii").clear("admin").masked("analyst", "hash"))
            .column("salary", c -> c.key("fin").clear("admin"))
            .column("address.zip", c -> c.key("pii").clear("admin"));
  }

  /** A role granted to these users. */
  public TestPolicy role(String name, String... users) {
    role(name).users.addAll(List.of(users));
    return this;
  }

  /** A role granted to these groups (in addition to any users it has). */
  public TestPolicy roleGroups(String name, String... groups) {
    role(name).groups.addAll(List.of(groups));
    return this;
  }

  /** Master keys the policy declares. */
  public TestPolicy keys(String... ids) {
    keys.addAll(List.of(ids));
    return this;
  }

  /** A protected table ({@code "db.name"}), described by {@code spec}. */
  public TestPolicy table(String name, Consumer<Table> spec) {
    Table table = tables.computeIfAbsent(name, n -> new Table());
    spec.accept(table);
    return this;
  }

  /**
   * A protected Parquet location (paths mode, e.g. a {@code file:} URI), described by {@code spec}.
   */
  public TestPolicy path(String location, Consumer<Table> spec) {
    Table path = paths.computeIfAbsent(location, n -> new Table());
    spec.accept(path);
    return this;
  }

  /**
   * HOCON placed as is inside {@code protector { }} after the tables (settings this builder does
   * not model, such as paths or domains).
   */
  public TestPolicy raw(String hocon) {
    extra.add(hocon);
    return this;
  }

  /** The policy as HOCON text. */
  public String render() {
    StringBuilder out = new StringBuilder("protector {\n");
    if (!roles.isEmpty()) {
      out.append("  roles {\n");
      roles.forEach(
          (name, role) -> {
            List<String> fields = new ArrayList<>();
            if (!role.users.isEmpty() || role.groups.isEmpty()) {
              fields.add("users = " + list(role.users));
            }
            if (!role.groups.isEmpty()) {
              fields.add("groups = " + list(role.groups));
            }
            out.append("    ")
                .append(value(name))
                .append(" { ")
                .append(String.join(", ", fields))
                .append(" }\n");
          });
      out.append("  }\n");
    }
    if (!keys.isEmpty()) {
      List<String> declared = new ArrayList<>();
      keys.forEach(k -> declared.add(value(k) + " {}"));
      out.append("  keys { ").append(String.join(", ", declared)).append(" }\n");
    }
    if (!tables.isEmpty()) {
      out.append("  tables {\n");
      tables.forEach((name, table) -> table.render(name, out));
      out.append("  }\n");
    }
    if (!paths.isEmpty()) {
      out.append("  paths {\n");
      paths.forEach((location, path) -> path.render(location, out));
      out.append("  }\n");
    }
    extra.forEach(e -> out.append(e.endsWith("\n") ? e : e + "\n"));
    return out.append("}\n").toString();
  }

  /** Writes {@link #render()} to {@code file} and returns the file. */
  public Path writeTo(Path file) {
    try {
      if (file.getParent() != null) {
        Files.createDirectories(file.getParent());
      }
      return Files.writeString(file, render());
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot write policy " + file, e);
    }
  }

  @Override
  public String toString() {
    return render();
  }

  private Role role(String name) {
    return roles.computeIfAbsent(name, n -> new Role());
  }

  /** {@code text} as a HOCON value: bare when HOCON reads it back the same, quoted otherwise. */
  static String value(String text) {
    if (BARE.matcher(text).matches() && !text.equals("true") && !text.equals("false")) {
      return text;
    }
    return quoted(text);
  }

  /** {@code text} as a quoted HOCON string. */
  static String quoted(String text) {
    StringBuilder q = new StringBuilder("\"");
    for (char ch : text.toCharArray()) {
      if (ch == '"' || ch == '\\') {
        q.append('\\');
      }
      q.append(ch);
    }
    return q.append('"').toString();
  }

  static String list(List<String> values) {
    List<String> rendered = new ArrayList<>();
    values.forEach(v -> rendered.add(value(v)));
    return "[" + String.join(", ", rendered) + "]";
  }

  private static final class Role {
    final List<String> users = new ArrayList<>();
    final List<String> groups = new ArrayList<>();
  }

  /** The settings of a table or column, in the order given; {@code T} is the concrete builder. */
  public abstract static class Settings<T extends Settings<T>> {
    final Map<String, String> settings = new LinkedHashMap<>();

    Settings() {}

    /** Any other setting, {@code hocon} written as is (e.g. {@code set("x", "[a, b]")}). */
    public T set(String key, String hocon) {
      settings.put(key, hocon);
      return self();
    }

    abstract T self();
  }

  /** One table of the policy: its table settings, then its columns in the order given. */
  public static final class Table extends Settings<Table> {
    private final Map<String, Column> columns = new LinkedHashMap<>();

    private Table() {}

    public Table footerKey(String key) {
      return set("footer-key", value(key));
    }

    public Table footerMode(String mode) {
      return set("footer-mode", value(mode));
    }

    public Table algorithm(String algorithm) {
      return set("algorithm", value(algorithm));
    }

    public Table writers(String... roles) {
      return set("writers", list(List.of(roles)));
    }

    public Table declassify(String... roles) {
      return set("declassify", list(List.of(roles)));
    }

    @Override
    Table self() {
      return this;
    }

    /** A protected column ({@code "address.zip"} for a nested field), described by {@code spec}. */
    public Table column(String name, Consumer<Column> spec) {
      Column column = columns.computeIfAbsent(name, n -> new Column());
      spec.accept(column);
      return this;
    }

    private void render(String name, StringBuilder out) {
      out.append("    ").append(value(name)).append(" {\n");
      settings.forEach(
          (k, v) -> out.append("      ").append(k).append(" = ").append(v).append('\n'));
      if (!columns.isEmpty()) {
        out.append("      columns {\n");
        columns.forEach(
            (c, column) ->
                out.append("        ")
                    .append(value(c))
                    .append(" { ")
                    .append(column.render())
                    .append(" }\n"));
        out.append("      }\n");
      }
      out.append("    }\n");
    }
  }

  /** One protected column: its key, method and what each role gets. */
  public static final class Column extends Settings<Column> {
    private final Map<String, String> masks = new LinkedHashMap<>();

    private Column() {}

    public Column key(String key) {
      return set("key", value(key));
    }

    /** The protection method, e.g. {@code "fpe(alphabet = digits, keep = '-')"}. */
    public Column method(String method) {
      return set("method", value(method));
    }

    public Column domain(String domain) {
      return set("domain", value(domain));
    }

    public Column clear(String... roles) {
      return set("clear", list(List.of(roles)));
    }

    public Column token(String... roles) {
      return set("token", list(List.of(roles)));
    }

    /** {@code role} reads the column through {@code mask}, e.g. {@code "partial(keep_last=4)"}. */
    public Column masked(String role, String mask) {
      masks.put(role, mask);
      return this;
    }

    /** {@code null} or {@code fail}. */
    public Column onDenied(String onDenied) {
      return set("on-denied", value(onDenied));
    }

    @Override
    Column self() {
      return this;
    }

    private String render() {
      List<String> fields = new ArrayList<>();
      settings.forEach((k, v) -> fields.add(k + " = " + v));
      if (!masks.isEmpty()) {
        List<String> rendered = new ArrayList<>();
        // always quoted: a mask named null is the mask, not HOCON's null
        masks.forEach((role, mask) -> rendered.add(value(role) + " = " + quoted(mask)));
        fields.add("masked { " + String.join(", ", rendered) + " }");
      }
      return String.join(", ", fields);
    }
  }
}
