/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.policy;

import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.Objects;
import java.util.Set;

/** A named role: the users and groups that hold it. Immutable. */
public final class Role {
  private final String name;
  private final Set<String> users;
  private final Set<String> groups;

  Role(String name, Set<String> users, Set<String> groups) {
    this.name = name;
    this.users = Collections.unmodifiableSet(new LinkedHashSet<>(users));
    this.groups = Collections.unmodifiableSet(new LinkedHashSet<>(groups));
  }

  public String name() {
    return name;
  }

  public Set<String> users() {
    return users;
  }

  public Set<String> groups() {
    return groups;
  }

  /** True if the principal is one of the users or in one of the groups. */
  public boolean matches(Principal p) {
    if (users.contains(p.user())) {
      return true;
    }
    for (String g : p.groups()) {
      if (groups.contains(g)) {
        return true;
      }
    }
    return false;
  }

  /**
   * This role as {@code p} may see it: only p's own user name (if the role lists it) and only those
   * of p's groups that the role names. Null if p does not hold the role.
   */
  Role restrictedTo(Principal p) {
    if (!matches(p)) {
      return null;
    }
    Set<String> ownUser = users.contains(p.user()) ? Set.of(p.user()) : Set.of();
    Set<String> ownGroups = new LinkedHashSet<>(groups);
    ownGroups.retainAll(p.groups());
    return new Role(name, ownUser, ownGroups);
  }

  /** Value equality: name, users and groups. */
  @Override
  public boolean equals(Object o) {
    if (this == o) {
      return true;
    }
    if (!(o instanceof Role)) {
      return false;
    }
    Role that = (Role) o;
    return name.equals(that.name) && users.equals(that.users) && groups.equals(that.groups);
  }

  @Override
  public int hashCode() {
    return Objects.hash(name, users, groups);
  }

  @Override
  public String toString() {
    return name + "{users=" + users + ", groups=" + groups + "}";
  }
}
