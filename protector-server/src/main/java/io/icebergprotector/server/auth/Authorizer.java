/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.server.auth;

import io.icebergprotector.kms.KeyGrants;
import io.icebergprotector.policy.Policy;
import io.icebergprotector.policy.Principal;
import io.icebergprotector.policy.TablePolicy;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The server's authorization: the shared rule of {@link KeyGrants} (wrap for writers, unwrap and
 * hmac for readers, key administration for the configured admin roles), computed once per
 * principal, plus declassification. Decisions depend only on the principal and the key
 * <em>name</em>, never on whether the key exists, so a refusal reveals nothing about the key store.
 */
public final class Authorizer {
  private static final int MAX_CACHED_PRINCIPALS = 10_000;

  private final Policy policy;
  private final Set<String> adminRoles;
  private final ConcurrentHashMap<Principal, KeyGrants> cache = new ConcurrentHashMap<>();

  public Authorizer(Policy policy, Set<String> adminRoles) {
    this.policy = policy;
    this.adminRoles = Set.copyOf(adminRoles);
  }

  /** Whether one of the principal's roles is in the {@code declassify} list of {@code entry}. */
  public boolean canDeclassify(Principal principal, TablePolicy entry) {
    return policy.canDeclassify(entry, principal);
  }

  public KeyGrants grants(Principal principal) {
    KeyGrants grants = cache.get(principal);
    if (grants == null) {
      if (cache.size() >= MAX_CACHED_PRINCIPALS) {
        cache.clear(); // bounded: JWT groups make principals open-ended
      }
      grants = cache.computeIfAbsent(principal, p -> KeyGrants.of(policy, p, adminRoles));
    }
    return grants;
  }
}
