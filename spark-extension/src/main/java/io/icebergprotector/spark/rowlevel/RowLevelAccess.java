/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.spark.rowlevel;

import static io.icebergprotector.spark.access.ColumnAccessText.clearRoles;
import static io.icebergprotector.spark.access.ColumnAccessText.levels;
import static io.icebergprotector.spark.access.ColumnAccessText.paths;

import io.icebergprotector.policy.AccessLevel;
import io.icebergprotector.policy.Policy;
import io.icebergprotector.policy.Principal;
import io.icebergprotector.policy.TablePolicy;
import io.icebergprotector.spark.core.ColumnProtection;
import io.icebergprotector.spark.core.ProtectionSpec;
import io.icebergprotector.spark.core.ProtectorException;
import io.icebergprotector.spark.read.ProtectedProjection;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.apache.iceberg.RowLevelOperationMode;
import org.apache.iceberg.Schema;
import org.apache.iceberg.types.Types;
import org.apache.spark.sql.connector.write.RowLevelOperation.Command;

/**
 * Who may run DELETE, UPDATE and MERGE on a protected table, decided on the driver before anything
 * is written:
 *
 * <ul>
 *   <li>every row-level operation needs one of the table's {@code writers} roles;
 *   <li>every protected column the operation's scan reads must be one the principal reads in clear.
 *       The scan reads a protected column for one of two reasons: a condition compares it ({@code
 *       WHERE}, {@code ON}, MERGE's {@code WHEN ... AND}), and conditions on protected columns are
 *       evaluated on clear values only; or the operation copies it into the rows it writes again
 *       (copy-on-write rewrites of whole files, the rows UPDATE and MERGE change), and a copy of a
 *       value the principal cannot decrypt would put NULL or a masked value in place of the real
 *       one.
 * </ul>
 *
 * A merge-on-read DELETE whose condition names no protected column reads none: it writes only
 * delete files (data file locations and row positions) and needs no column key at all.
 */
public final class RowLevelAccess {
  private RowLevelAccess() {}

  /** Refuses a row-level operation by a principal that holds none of the table's writer roles. */
  public static void requireWriter(ProtectionSpec spec, String operation) {
    Principal principal = spec.principal();
    Policy policy = spec.policy();
    Set<String> roles = policy.rolesOf(principal);
    Set<String> writers = writers(spec);
    if (Collections.disjoint(writers, roles)) {
      throw new ProtectorException(
          String.format(
              "Principal '%s' (roles %s) may not run %s on protected table %s: only the table's"
                  + " writer roles %s may change its rows (policy %s)",
              principal.user(),
              new TreeSet<>(roles),
              operation,
              spec.tableName(),
              new TreeSet<>(writers),
              spec.policyOrigin()));
    }
  }

  /**
   * Refuses the scan of a row-level operation that reads a protected column the principal does not
   * read in clear.
   *
   * @param scanned the schema the scan reads from (field ids, names)
   * @param projected the columns the scan reads
   * @param conditionIds field ids the operation's pushed-down condition refers to
   */
  public static void checkScan(
      ProtectionSpec spec,
      Command command,
      RowLevelOperationMode mode,
      Schema scanned,
      Schema projected,
      Set<Integer> conditionIds) {
    Set<Integer> conditions = withRelatives(scanned, conditionIds);
    List<ColumnProtection> compared = new ArrayList<>();
    List<ColumnProtection> copied = new ArrayList<>();
    for (ColumnProtection column : spec.columns().values()) {
      if (column.level() == AccessLevel.CLEAR
          && !spec.retiredFieldIds().contains(column.fieldId())) {
        continue;
      }
      if (projected.findField(column.fieldId()) == null) {
        continue; // not read: not compared, not copied
      }
      boolean deleteOnly = command == Command.DELETE && mode == RowLevelOperationMode.MERGE_ON_READ;
      if (deleteOnly || conditions.contains(column.fieldId())) {
        compared.add(column);
      } else {
        copied.add(column);
      }
    }
    if (compared.isEmpty() && copied.isEmpty()) {
      return;
    }
    String operation = describe(command, mode);
    StringBuilder why = new StringBuilder();
    if (!compared.isEmpty()) {
      why.append(
          String.format(
              "its condition compares protected column(s) %s, which it does not read in clear (%s);"
                  + " conditions on protected columns are evaluated on clear values only, never"
                  + " on masked or NULL values",
              paths(compared), levels(spec, compared)));
    }
    if (!copied.isEmpty()) {
      if (why.length() > 0) {
        why.append("; and ");
      }
      why.append(
          String.format(
              "it reads protected column(s) %s to %s, which it does not read in clear (%s):"
                  + " writing them back would put NULL or masked values in place of the real ones",
              paths(copied), copyPurpose(command, mode), levels(spec, copied)));
    }
    List<ColumnProtection> all = new ArrayList<>(compared);
    all.addAll(copied);
    String hint =
        command == Command.DELETE
                && mode == RowLevelOperationMode.COPY_ON_WRITE
                && compared.isEmpty()
            ? " A merge-on-read DELETE (table property write.delete.mode = merge-on-read) copies no"
                + " rows and needs no column access."
            : "";
    throw new ProtectorException(
        String.format(
            "Principal '%s' (roles %s) may not run %s on protected table %s: %s. Needed: a role"
                + " that reads %s in clear (%s) and is one of the table's writer roles %s (policy"
                + " %s).%s Nothing was written.",
            spec.principal().user(),
            new TreeSet<>(spec.policy().rolesOf(spec.principal())),
            operation,
            spec.tableName(),
            why,
            paths(all),
            clearRoles(spec, all),
            new TreeSet<>(writers(spec)),
            spec.policyOrigin(),
            hint));
  }

  /**
   * Whether any of {@code ids} is a protected field, lies inside one, or contains one: a predicate
   * on such a field compares protected values.
   */
  public static boolean touchesProtected(ProtectionSpec spec, Schema schema, Set<Integer> ids) {
    Set<Integer> protectedIds = spec.protectedFieldIds(schema);
    for (int id : withRelatives(schema, ids)) {
      if (protectedIds.contains(id)) {
        return true;
      }
    }
    return false;
  }

  static String describe(Command command, RowLevelOperationMode mode) {
    return command.name() + " (" + mode.modeName() + ")";
  }

  private static String copyPurpose(Command command, RowLevelOperationMode mode) {
    if (mode == RowLevelOperationMode.COPY_ON_WRITE) {
      return "copy the rows of every data file it rewrites (copy-on-write), or to compare them in"
          + " a condition";
    }
    return command == Command.MERGE
        ? "compare them in the MERGE's ON or WHEN conditions or copy them into the rows it"
            + " rewrites"
        : "copy them into the rows it rewrites";
  }

  /** The ids, every field nested below one of them, and every struct that holds one. */
  private static Set<Integer> withRelatives(Schema schema, Set<Integer> ids) {
    Set<Integer> result = new LinkedHashSet<>(ProtectedProjection.withDescendants(schema, ids));
    // a struct holding a referenced field: a protected struct's fields are protected too
    for (Types.NestedField top : schema.columns()) {
      addAncestors(top, ids, result);
    }
    return result;
  }

  private static boolean addAncestors(Types.NestedField field, Set<Integer> ids, Set<Integer> out) {
    boolean holds = ids.contains(field.fieldId());
    if (field.type().isNestedType()) {
      for (Types.NestedField child : field.type().asNestedType().fields()) {
        holds |= addAncestors(child, ids, out);
      }
    }
    if (holds) {
      out.add(field.fieldId());
    }
    return holds;
  }

  private static Set<String> writers(ProtectionSpec spec) {
    return spec.policy().table(spec.tableName()).map(TablePolicy::writers).orElse(Set.of());
  }
}
