/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.policy;

import static io.icebergprotector.policy.PolicySource.append;

import com.typesafe.config.ConfigObject;
import com.typesafe.config.ConfigValue;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * {@code protector.roles}: who holds each role. Parsed first, since every other section names
 * roles; {@link #checkRole} is how they do.
 */
final class RoleSection {
  private static final List<String> ROLE_FIELDS = PolicyFields.names(PolicyFields.Scope.ROLE);

  private final PolicySource src;
  private final Map<String, Role> roles = new LinkedHashMap<>();

  RoleSection(PolicySource src) {
    this.src = src;
  }

  Map<String, Role> roles() {
    return roles;
  }

  void parse(ConfigObject prot, List<String> p) {
    ConfigObject o =
        src.optionalObject(
            prot, p, "roles", "an object of roles, e.g. roles { admin { users = [alice] } }");
    if (o == null) {
      return;
    }
    List<String> rp = append(p, "roles");
    Map<String, String> lowerNames = new LinkedHashMap<>();
    for (Map.Entry<String, ConfigValue> e : src.ordered(o)) {
      src.collecting(() -> parseRole(e.getKey(), e.getValue(), rp, lowerNames));
    }
  }

  private void parseRole(
      String name, ConfigValue v, List<String> rp, Map<String, String> lowerNames) {
    List<String> path = append(rp, name);
    if (name.isBlank()) {
      throw src.err(v, path, "empty role name");
    }
    String other = lowerNames.putIfAbsent(name.toLowerCase(Locale.ROOT), name);
    if (other != null) {
      throw src.err(v, path, "role '" + name + "' differs only in case from role '" + other + "'");
    }
    ConfigObject ro =
        src.entry(
            src.object(v, path, "a role object { users = [...], groups = [...] }"),
            name,
            path,
            ROLE_FIELDS,
            "role");
    Set<String> users = names(ro, path, "users", "user names", "[alice, bob]");
    Set<String> groups = names(ro, path, "groups", "group names", "[secops]");
    if (users.isEmpty() && groups.isEmpty()) {
      throw src.err(
          ro,
          path,
          "role '"
              + name
              + "' has no users and no groups, so nobody holds it;"
              + " add users = [...] or groups = [...]");
    }
    roles.put(name, new Role(name, users, groups));
  }

  private Set<String> names(
      ConfigObject ro, List<String> path, String field, String what, String example) {
    Set<String> out = new LinkedHashSet<>();
    for (PolicySource.Str s : src.stringList(ro.get(field), append(path, field), what, example)) {
      out.add(s.value);
    }
    return out;
  }

  /**
   * {@code s}, a role name listed in {@code where}, if the policy defines that role.
   *
   * @throws PolicyException naming the defined roles (and the nearest one) if it does not
   */
  String checkRole(PolicySource.Str s, List<String> path, String where) {
    if (!roles.containsKey(s.value)) {
      throw src.err(
          s.at,
          path,
          "unknown role '"
              + s.value
              + "' in "
              + where
              + "; "
              + (roles.isEmpty()
                  ? "no roles are defined in protector.roles"
                  : "roles defined in protector.roles: "
                      + String.join(", ", roles.keySet())
                      + Suggestions.suggest(s.value, roles.keySet())));
    }
    return s.value;
  }

  /** The roles listed in {@code field} of {@code o}, each one the policy defines. */
  Set<String> roleList(ConfigObject o, List<String> path, String field, String example) {
    Set<String> out = new LinkedHashSet<>();
    List<String> fieldPath = append(path, field);
    for (PolicySource.Str s : src.stringList(o.get(field), fieldPath, "role names", example)) {
      out.add(checkRole(s, fieldPath, field));
    }
    return out;
  }
}
