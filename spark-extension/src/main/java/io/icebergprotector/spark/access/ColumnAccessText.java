/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.spark.access;

import io.icebergprotector.policy.ColumnPolicy;
import io.icebergprotector.policy.TablePolicy;
import io.icebergprotector.spark.core.ColumnProtection;
import io.icebergprotector.spark.core.ProtectionSpec;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.TreeSet;

/**
 * How refusals of row-level operations and rewrites describe columns: their paths, the principal's
 * access to each, and the roles that read them in clear.
 */
public final class ColumnAccessText {
  private ColumnAccessText() {}

  public static List<String> paths(List<ColumnProtection> columns) {
    List<String> paths = new ArrayList<>();
    columns.forEach(c -> paths.add(c.path()));
    return paths;
  }

  /** "ssn: masked, salary: key 'fin' destroyed", with retired columns said to be retired. */
  public static String levels(ProtectionSpec spec, List<ColumnProtection> columns) {
    List<String> levels = new ArrayList<>();
    for (ColumnProtection c : columns) {
      String level;
      if (spec.retiredFieldIds().contains(c.fieldId())) {
        level = "retired: no longer protected by the policy, files still hold it encrypted";
      } else if (c.keyDestroyed()) {
        level = "key '" + c.keyId() + "' destroyed";
      } else {
        level = c.level().name().toLowerCase(Locale.ROOT);
      }
      levels.add(c.path() + ": " + level);
    }
    return String.join(", ", levels);
  }

  /** "clear roles ssn: [admin], salary: [admin]" from the policy entry of the spec's table. */
  public static String clearRoles(ProtectionSpec spec, List<ColumnProtection> columns) {
    TablePolicy table = spec.policy().table(spec.tableName()).orElse(null);
    List<String> roles = new ArrayList<>();
    for (ColumnProtection c : columns) {
      ColumnPolicy policy = table == null ? null : table.column(c.policyPath()).orElse(null);
      roles.add(
          c.path()
              + ": "
              + (policy == null ? "none (not in the policy)" : new TreeSet<>(policy.clearRoles())));
    }
    return "clear roles " + String.join(", ", roles);
  }
}
