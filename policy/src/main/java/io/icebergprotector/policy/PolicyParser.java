/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.policy;

import com.typesafe.config.ConfigObject;
import com.typesafe.config.ConfigValue;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Turns HOCON text into a validated {@link Policy}. Walks the raw {@link ConfigObject} tree (not
 * the {@code Config} getters) so every error can name the exact value, its line and key path, and
 * so that typos (unknown fields) and silently merged duplicate keys are caught. Each section of the
 * policy has its own parser ({@link RoleSection}, {@link KeySection}, {@link TableSection} with
 * {@link ColumnSection}, {@link RetiredKeySection}) over the shared {@link PolicySource}; this
 * class reads the root object and runs them in the order their references need.
 */
final class PolicyParser {
  // The fields of protector, in the order errors list them (PolicyFields documents each).
  private static final List<String> TOP_ORDER = PolicyFields.names(PolicyFields.Scope.PROTECTOR);

  private final PolicySource src;

  PolicyParser(String origin, String text) {
    this.src = new PolicySource(origin, text);
  }

  Policy parse() {
    List<String> p = List.of("protector");
    ConfigObject prot = protector(src.root(), p);
    ConfigObject tablesObj =
        src.optionalObject(
            prot, p, "tables", "an object of tables, e.g. tables { \"db.t\" { ... } }");
    ConfigObject pathsObj =
        src.optionalObject(
            prot,
            p,
            "paths",
            "an object of locations, e.g. paths { \"s3a://bucket/pii/\" { ... } }");
    if ((tablesObj == null || tablesObj.isEmpty()) && (pathsObj == null || pathsObj.isEmpty())) {
      throw src.err(
          prot,
          p,
          "policy protects nothing: define at least one table under protector.tables"
              + " or one location under protector.paths");
    }
    // roles and keys first: tables, columns and retired keys name them
    RoleSection roles = new RoleSection(src);
    roles.parse(prot, p);
    KeySection keys = new KeySection(src);
    keys.parse(prot, p);
    TableSection entries = new TableSection(src, roles, keys);
    Map<String, TablePolicy> tables = entries.parseTables(tablesObj, p);
    Map<String, TablePolicy> paths = entries.parsePaths(pathsObj, p);
    entries.checkFooterKeys();
    RetiredKeySection retired = new RetiredKeySection(src, roles, keys, entries);
    Map<String, Set<String>> retiredKeys = new LinkedHashMap<>();
    src.collecting(() -> retiredKeys.putAll(retired.parse(prot, p)));
    src.throwErrors();
    return new Policy(
        src.origin(),
        src.text(),
        roles.roles(),
        keys.keyIds(),
        retiredKeys,
        tables,
        paths,
        src.warnings());
  }

  /** The root's {@code protector} object, with only the fields it may have. */
  private ConfigObject protector(ConfigObject root, List<String> p) {
    ConfigValue pv = root.get("protector");
    if (pv == null) {
      String problem =
          root.isEmpty()
              ? "missing root object 'protector': the policy is empty"
              : "missing root object 'protector'; found top-level keys "
                  + root.keySet()
                  + ", expected protector { roles {...}, keys {...}, tables {...} }";
      throw new PolicyException(src.origin(), 1, "protector", problem);
    }
    ConfigObject prot =
        src.object(pv, p, "the policy object protector { roles {...}, keys {...}, tables {...} }");
    src.checkFields(prot, p, TOP_ORDER, "protector");
    return prot;
  }
}
