/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.policy;

import com.typesafe.config.ConfigUtil;
import java.util.Collection;
import java.util.Map;

/**
 * Renders a {@link Policy} as HOCON that {@link PolicyParser} reads back to an equal model.
 *
 * <p>Every name (role, key, table, prefix, column, user, group) is a quoted string, so dots, spaces
 * and HOCON syntax characters never change the structure; a column path is written as one quoted
 * dotted key ({@code "address.zip"}), which the parser splits. Each entry starts on its own line,
 * because the parser restores policy order (which decides the winning mask) from lines. Every
 * setting is written, defaults included.
 */
final class PolicyWriter {
  private static final String INDENT = "  ";

  private final StringBuilder out = new StringBuilder();

  private PolicyWriter() {}

  static String write(Policy policy) {
    PolicyWriter w = new PolicyWriter();
    w.policy(policy);
    return w.out.toString();
  }

  private void policy(Policy p) {
    open(0, "protector");
    if (p.roles().isEmpty()) {
      line(1, "roles {}");
    } else {
      open(1, "roles");
      for (Role r : p.roles().values()) {
        open(2, quote(r.name()));
        line(3, "users = " + list(r.users()));
        line(3, "groups = " + list(r.groups()));
        close(2);
      }
      close(1);
    }
    open(1, "keys");
    for (String id : p.keyIds()) {
      line(2, quote(id) + " {}");
    }
    close(1);
    if (!p.retiredKeys().isEmpty()) {
      open(1, "retired-keys");
      p.retiredKeys()
          .forEach((id, decrypt) -> line(2, quote(id) + " { decrypt = " + list(decrypt) + " }"));
      close(1);
    }
    entries("tables", p.tables());
    entries("paths", p.paths());
    close(0);
  }

  private void entries(String section, Map<String, TablePolicy> entries) {
    if (entries.isEmpty()) {
      return; // an empty section would still parse; leaving it out keeps the text short
    }
    open(1, section);
    for (TablePolicy t : entries.values()) {
      open(2, quote(t.name()));
      line(3, "footer-key = " + quote(t.footerKeyId()));
      line(3, "footer-mode = " + quote(t.footerMode().spec()));
      line(3, "algorithm = " + quote(t.algorithm().name()));
      line(3, "writers = " + list(t.writers()));
      line(3, "declassify = " + list(t.declassifiers()));
      line(3, "strict = " + t.strict());
      if (t.strict()) {
        line(3, "plain-columns = " + list(t.plainColumns()));
      }
      if (t.columns().isEmpty()) {
        line(3, "columns {}");
      } else {
        open(3, "columns");
        for (ColumnPolicy c : t.columns()) {
          column(c);
        }
        close(3);
      }
      close(2);
    }
    close(1);
  }

  private void column(ColumnPolicy c) {
    open(4, quote(c.path()));
    line(5, "key = " + quote(c.keyId()));
    if (c.tokenized()) {
      line(5, "method = " + quote(c.method().spec()));
      line(5, "domain = " + quote(c.domain()));
      line(5, "pme = " + c.pme());
      line(5, "token = " + list(c.tokenRoles()));
    }
    line(5, "clear = " + list(c.clearRoles()));
    if (c.maskedRoles().isEmpty()) {
      line(5, "masked {}");
    } else {
      open(5, "masked");
      for (Map.Entry<String, Mask> m : c.maskedRoles().entrySet()) {
        line(6, quote(m.getKey()) + " = " + quote(m.getValue().spec()));
      }
      close(5);
    }
    line(5, "on-denied = " + quote(c.onDenied().spec()));
    close(4);
  }

  private void open(int depth, String key) {
    line(depth, key + " {");
  }

  private void close(int depth) {
    line(depth, "}");
  }

  private void line(int depth, String text) {
    out.append(INDENT.repeat(depth)).append(text).append('\n');
  }

  private static String list(Collection<String> values) {
    StringBuilder sb = new StringBuilder("[");
    for (String v : values) {
      if (sb.length() > 1) {
        sb.append(", ");
      }
      sb.append(quote(v));
    }
    return sb.append(']').toString();
  }

  /** A JSON string literal, which HOCON reads as is (no substitution, no path splitting). */
  private static String quote(String s) {
    return ConfigUtil.quoteString(s);
  }
}
