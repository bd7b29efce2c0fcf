package io.icebergprotector.policy;

import java.util.Collections;
import java.util.LinkedHashSet;
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

  @Override
  public String toString() {
    return name + "{users=" + users + ", groups=" + groups + "}";
  }
}
