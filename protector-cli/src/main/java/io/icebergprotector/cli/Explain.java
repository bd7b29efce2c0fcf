/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.cli;

import io.icebergprotector.kms.wire.JsonCodec;
import io.icebergprotector.policy.Access;
import io.icebergprotector.policy.AccessLevel;
import io.icebergprotector.policy.ColumnPolicy;
import io.icebergprotector.policy.Policy;
import io.icebergprotector.policy.Principal;
import io.icebergprotector.policy.TablePolicy;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;

/** What a policy grants a principal, per table (or location) and protected column. */
final class Explain {
  private Explain() {}

  /** "clear", "masked(partial(keep_last=4))" or "denied" (with what a read gets instead). */
  static String describe(Access access) {
    if (access.level() == AccessLevel.CLEAR) {
      return "clear";
    }
    if (access.level() == AccessLevel.MASKED) {
      return "masked(" + access.mask().spec() + ")";
    }
    return "denied";
  }

  static List<TablePolicy> entries(Policy policy, String table) {
    List<TablePolicy> out = new ArrayList<>();
    if (table != null) {
      TablePolicy t = policy.table(table).orElseGet(() -> policy.paths().get(table));
      if (t == null) {
        throw new IllegalArgumentException(
            "Table "
                + table
                + " is not in policy "
                + policy.origin()
                + " (tables: "
                + String.join(", ", policy.tables().keySet())
                + "); its columns are not protected");
      }
      out.add(t);
      return out;
    }
    out.addAll(policy.tables().values());
    out.addAll(policy.paths().values());
    return out;
  }

  static Map<String, Object> json(Policy policy, Principal who, Collection<TablePolicy> entries) {
    List<Object> tables = new ArrayList<>();
    for (TablePolicy t : entries) {
      List<Object> columns = new ArrayList<>();
      for (ColumnPolicy c : t.columns()) {
        Access a = c.accessFor(policy.rolesOf(who));
        columns.add(
            JsonCodec.object(
                "column", c.path(),
                "access", a.level().name().toLowerCase(java.util.Locale.ROOT),
                "mask", a.level() == AccessLevel.MASKED ? a.mask().spec() : null,
                "key", c.keyId()));
      }
      tables.add(
          JsonCodec.object(
              policy.tables().containsValue(t) ? "table" : "location",
              t.name(),
              "footer_key",
              t.footerKeyId(),
              "writer",
              !java.util.Collections.disjoint(t.writers(), policy.rolesOf(who)),
              "columns",
              columns));
    }
    return JsonCodec.object(
        "user",
        who.user(),
        "groups",
        new ArrayList<>(who.groups()),
        "roles",
        new ArrayList<>(policy.rolesOf(who)),
        "tables",
        tables);
  }

  static String text(Policy policy, Principal who, Collection<TablePolicy> entries) {
    StringBuilder sb = new StringBuilder();
    sb.append(who.user());
    if (!who.groups().isEmpty()) {
      sb.append(" [").append(String.join(",", who.groups())).append(']');
    }
    java.util.Set<String> roles = policy.rolesOf(who);
    sb.append(": roles ")
        .append(roles.isEmpty() ? "none" : String.join(", ", roles))
        .append(" in ")
        .append(policy.origin())
        .append('\n');
    for (TablePolicy t : entries) {
      boolean writer = !java.util.Collections.disjoint(t.writers(), roles);
      sb.append('\n')
          .append(policy.tables().containsValue(t) ? "table " : "location ")
          .append(t.name())
          .append(" (footer key ")
          .append(t.footerKeyId())
          .append(writer ? "; may write" : "; may not write")
          .append(")\n");
      List<List<String>> rows = new ArrayList<>();
      for (ColumnPolicy c : t.columns()) {
        rows.add(List.of(c.path(), describe(c.accessFor(roles)), c.keyId()));
      }
      sb.append(TextTable.plain(List.of("COLUMN", "ACCESS", "KEY"), rows).indent(2));
      sb.append(
          t.strict()
              ? "  other columns: only the plain columns " + t.plainColumns() + " (strict entry)\n"
              : "  other columns: clear (not protected)\n");
    }
    return sb.toString();
  }
}
