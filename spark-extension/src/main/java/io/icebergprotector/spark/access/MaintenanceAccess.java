/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.spark.access;

import static io.icebergprotector.spark.access.ColumnAccessText.clearRoles;
import static io.icebergprotector.spark.access.ColumnAccessText.levels;
import static io.icebergprotector.spark.access.ColumnAccessText.paths;

import io.icebergprotector.policy.AccessLevel;
import io.icebergprotector.policy.Principal;
import io.icebergprotector.policy.TablePolicy;
import io.icebergprotector.spark.core.ColumnProtection;
import io.icebergprotector.spark.core.ProtectionSpec;
import io.icebergprotector.spark.core.ProtectorException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * Who may rewrite the data files of a protected table (compaction with {@code rewrite_data_files},
 * {@code rewrite_protected}): a rewrite reads every row of the files it replaces and writes every
 * value again, re-encrypted under the current key versions. So the principal must read every
 * protected column in clear (a masked or NULL value written back would replace the real one) and
 * hold one of the table's writer roles, with every key the new files need. Decided on the driver,
 * before anything is written; the refusal names the columns, their access, and the roles that would
 * be needed.
 */
public final class MaintenanceAccess {
  private MaintenanceAccess() {}

  /**
   * Refuses {@code operation} (as the user wrote it, e.g. {@code CALL
   * prot.system.rewrite_data_files}) unless the principal reads every protected column in clear and
   * holds one of the table's writer roles, with every key the new files need.
   */
  public static void requireRewrite(ProtectionSpec spec, String operation) {
    requireRewrite(spec, operation, true);
  }

  /**
   * As {@link #requireRewrite(ProtectionSpec, String)}; without {@code writerRole} a principal who
   * may wrap every key the new files need counts as a writer (the rule of protected data writes,
   * which {@code rewrite_protected} follows).
   */
  public static void requireRewrite(ProtectionSpec spec, String operation, boolean writerRole) {
    List<ColumnProtection> notClear = notClear(spec);
    boolean writer = canWrap(spec) && (!writerRole || hasWriterRole(spec));
    if (notClear.isEmpty() && writer) {
      return;
    }
    Principal principal = spec.principal();
    StringBuilder why = new StringBuilder();
    if (!notClear.isEmpty()) {
      why.append(
          String.format(
              "it decrypts and re-encrypts every protected column of the files it rewrites, and"
                  + " the principal does not read %s in clear (%s): writing them back would put"
                  + " masked or NULL values in place of the real ones",
              paths(notClear), levels(spec, notClear)));
    }
    if (!writer) {
      if (why.length() > 0) {
        why.append("; and ");
      }
      why.append("it commits new data files, which only the table's writers may write");
    }
    throw new ProtectorException(
        String.format(
            "Principal '%s' (roles %s) may not run %s on protected table %s: %s. Needed: a role"
                + " that reads every protected column in clear (%s) and is one of the table's"
                + " writer roles %s (policy %s). Nothing was written.",
            principal.user(),
            new TreeSet<>(spec.policy().rolesOf(principal)),
            operation,
            spec.tableName(),
            why,
            clearRoles(spec, protectedColumns(spec)),
            writers(spec),
            spec.policyOrigin()));
  }

  /**
   * Refuses a read that feeds a rewrite ({@code what}) unless the principal reads every protected
   * column in clear: a rewrite writes back every value it reads.
   */
  public static void requireClearReads(ProtectionSpec spec, String what) {
    List<ColumnProtection> notClear = notClear(spec);
    if (notClear.isEmpty()) {
      return;
    }
    Principal principal = spec.principal();
    throw new ProtectorException(
        String.format(
            "Principal '%s' (roles %s) may not read protected table %s for %s: the principal does"
                + " not read %s in clear (%s), and a rewrite writes back every value it reads."
                + " Needed: a role that reads them in clear (%s)",
            principal.user(),
            new TreeSet<>(spec.policy().rolesOf(principal)),
            spec.tableName(),
            what,
            paths(notClear),
            levels(spec, notClear),
            clearRoles(spec, notClear)));
  }

  /** Protected columns (not retired) that the principal does not read in clear. */
  private static List<ColumnProtection> notClear(ProtectionSpec spec) {
    List<ColumnProtection> columns = new ArrayList<>();
    for (ColumnProtection column : protectedColumns(spec)) {
      if (column.level() != AccessLevel.CLEAR || column.keyDestroyed()) {
        columns.add(column);
      }
    }
    return columns;
  }

  private static List<ColumnProtection> protectedColumns(ProtectionSpec spec) {
    List<ColumnProtection> columns = new ArrayList<>();
    for (ColumnProtection column : spec.columns().values()) {
      if (!spec.retiredFieldIds().contains(column.fieldId())) {
        columns.add(column);
      }
    }
    return columns;
  }

  private static boolean hasWriterRole(ProtectionSpec spec) {
    return !Collections.disjoint(writers(spec), spec.policy().rolesOf(spec.principal()));
  }

  private static boolean canWrap(ProtectionSpec spec) {
    return spec.policy().wrappableKeys(spec.principal()).containsAll(spec.writeKeyIds());
  }

  private static Set<String> writers(ProtectionSpec spec) {
    return new TreeSet<>(
        spec.policy().table(spec.tableName()).map(TablePolicy::writers).orElse(Set.of()));
  }
}
