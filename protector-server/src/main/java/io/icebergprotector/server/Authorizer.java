package io.icebergprotector.server;

import io.icebergprotector.policy.Policy;
import io.icebergprotector.policy.Principal;
import io.icebergprotector.policy.TablePolicy;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Policy-based authorization. Wrap (encrypt) needs the key in {@link Policy#wrappableKeys}; unwrap
 * (decrypt) and hmac need it in {@link Policy#unwrappableKeys}; key administration needs one of the
 * configured admin roles. Decisions depend only on the principal and the key <em>name</em>, never on
 * whether the key exists, so a refusal reveals nothing about the key store.
 */
final class Authorizer {
  /** What one principal may do. Computed once per principal (the policy is immutable). */
  record Grants(Set<String> roles, Set<String> wrappable, Set<String> unwrappable, boolean admin) {
    Grants {
      roles = Set.copyOf(roles);
      wrappable = Set.copyOf(wrappable);
      unwrappable = Set.copyOf(unwrappable);
    }
  }

  private static final int MAX_CACHED_PRINCIPALS = 10_000;

  private final Policy policy;
  private final Set<String> adminRoles;
  private final ConcurrentHashMap<Principal, Grants> cache = new ConcurrentHashMap<>();

  Authorizer(Policy policy, Set<String> adminRoles) {
    this.policy = policy;
    this.adminRoles = Set.copyOf(adminRoles);
  }

  /** Whether one of the principal's roles is in the {@code declassify} list of {@code entry}. */
  boolean canDeclassify(Principal principal, TablePolicy entry) {
    return policy.canDeclassify(entry, principal);
  }

  Grants grants(Principal principal) {
    Grants grants = cache.get(principal);
    if (grants == null) {
      if (cache.size() >= MAX_CACHED_PRINCIPALS) {
        cache.clear(); // bounded: JWT groups make principals open-ended
      }
      grants = cache.computeIfAbsent(principal, this::compute);
    }
    return grants;
  }

  private Grants compute(Principal p) {
    Set<String> roles = new TreeSet<>(policy.rolesOf(p));
    boolean admin = roles.stream().anyMatch(adminRoles::contains);
    return new Grants(roles, policy.wrappableKeys(p), policy.unwrappableKeys(p), admin);
  }
}
