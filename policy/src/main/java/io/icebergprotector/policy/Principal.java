/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.policy;

import static io.icebergprotector.policy.Preconditions.checkArgument;

import java.util.Collection;
import java.util.Collections;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;

/** Who is asking: a user name and the groups the identity provider puts them in. Immutable. */
public final class Principal {
  private final String user;
  private final Set<String> groups;

  private Principal(String user, Set<String> groups) {
    this.user = user;
    this.groups = groups;
  }

  /** A user with groups; {@code groups} may be null (no groups). Blank group names are dropped. */
  public static Principal of(String user, Collection<String> groups) {
    checkArgument(
        user != null && !user.isBlank(), "Principal user must be non-empty, got '%s'", user);
    Set<String> g = new TreeSet<>();
    if (groups != null) {
      for (String group : groups) {
        if (group != null && !group.isBlank()) {
          g.add(group);
        }
      }
    }
    return new Principal(user, Collections.unmodifiableSet(g));
  }

  /** A user without groups. */
  public static Principal user(String user) {
    return of(user, null);
  }

  public String user() {
    return user;
  }

  /** Sorted, unmodifiable. */
  public Set<String> groups() {
    return groups;
  }

  @Override
  public boolean equals(Object o) {
    if (this == o) {
      return true;
    }
    if (!(o instanceof Principal)) {
      return false;
    }
    Principal that = (Principal) o;
    return user.equals(that.user) && groups.equals(that.groups);
  }

  @Override
  public int hashCode() {
    return Objects.hash(user, groups);
  }

  /** {@code alice[secops]}, {@code bob[]}; groups comma-separated in sorted order. */
  @Override
  public String toString() {
    return user + "[" + String.join(",", groups) + "]";
  }
}
