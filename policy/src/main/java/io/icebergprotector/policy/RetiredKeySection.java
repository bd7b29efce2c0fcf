/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.policy;

import static io.icebergprotector.policy.PolicySource.append;
import static io.icebergprotector.policy.PolicySource.line;

import com.typesafe.config.ConfigObject;
import com.typesafe.config.ConfigUtil;
import com.typesafe.config.ConfigValue;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * {@code retired-keys { pii2 { decrypt = [admin] } }}: keys that protect nothing any more but still
 * protect data written before a policy change, with the roles that may unwrap them to decrypt that
 * data (e.g. with a decrypt-rewrite). Parsed after the tables and paths, since a retired key must
 * protect no column and no footer.
 */
final class RetiredKeySection {
  private static final List<String> RETIRED_KEY_FIELDS =
      PolicyFields.names(PolicyFields.Scope.RETIRED_KEY);

  private final PolicySource src;
  private final RoleSection roles;
  private final KeySection keys;
  private final TableSection tables;

  RetiredKeySection(PolicySource src, RoleSection roles, KeySection keys, TableSection tables) {
    this.src = src;
    this.roles = roles;
    this.keys = keys;
    this.tables = tables;
  }

  /** The retired keys, each with the roles that may decrypt with it. */
  Map<String, Set<String>> parse(ConfigObject prot, List<String> p) {
    Map<String, Set<String>> out = new LinkedHashMap<>();
    ConfigObject o =
        src.optionalObject(
            prot,
            p,
            "retired-keys",
            "an object of retired key ids, e.g. retired-keys { pii2 { decrypt = [admin] } }");
    if (o == null) {
      return out;
    }
    List<String> rp = append(p, "retired-keys");
    for (Map.Entry<String, ConfigValue> e : src.ordered(o)) {
      String id = e.getKey();
      List<String> path = append(rp, id);
      ConfigObject ko =
          src.entry(
              src.object(e.getValue(), path, "a retired key object { decrypt = [roles] }"),
              id,
              path,
              RETIRED_KEY_FIELDS,
              "retired key");
      keys.requireKey(id, e.getValue(), path);
      checkUnused(id, ko, path);
      out.put(id, roles.roleList(ko, path, "decrypt", "[admin]"));
    }
    return out;
  }

  /** A retired key protects no column and is no entry's footer key. */
  private void checkUnused(String id, ConfigObject ko, List<String> path) {
    String use = tables.columnKeyUse(id);
    if (use != null) {
      throw src.err(
          ko,
          path,
          "retired key '"
              + id
              + "' still protects "
              + use
              + "; a retired key"
              + " protects no column (remove it from retired-keys, or move the column to another"
              + " key)");
    }
    for (TableSection.FooterRef ref : tables.footerRefs()) {
      if (ref.keyId.equals(id)) {
        throw src.err(
            ko,
            path,
            "retired key '"
                + id
                + "' is still the footer key at "
                + ConfigUtil.joinPath(ref.path)
                + " (line "
                + line(ref.at)
                + ")");
      }
    }
  }
}
