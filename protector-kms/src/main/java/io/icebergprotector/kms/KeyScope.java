/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.kms;

import io.icebergprotector.policy.Digests;
import io.icebergprotector.policy.Principal;
import java.io.Serializable;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.List;
import java.util.Objects;
import java.util.TreeSet;

/**
 * One principal's access to one key service under one policy: the unit that key services, key
 * caches and key releases are scoped to. Two scopes are equal when endpoint, credential source,
 * principal and policy are; their {@link #identity()} is a non-secret digest of those.
 *
 * <p>A scope also has a random {@link #handle()}: the name under which its key service is
 * registered in a JVM and by which Parquet's key tools find it. The handle is not derivable from
 * anything another principal knows, so a registered service cannot be looked up by recomputing a
 * digest; it travels only inside the tasks of the principal's own scans and writes.
 */
public final class KeyScope implements Serializable {
  private static final long serialVersionUID = 1L;
  private static final SecureRandom RANDOM = new SecureRandom();

  private final KmsSettings kms;
  private final String user;
  private final List<String> groups;
  private final String policyDigest;
  private final String identity;
  private final String handle;

  private KeyScope(KmsSettings kms, Principal principal, String policyDigest, String handle) {
    this.kms = Objects.requireNonNull(kms, "kms settings");
    this.user = Objects.requireNonNull(principal, "principal").user();
    this.groups = List.copyOf(new TreeSet<>(principal.groups()));
    this.policyDigest = Objects.requireNonNull(policyDigest, "policy digest");
    this.identity =
        "ks-"
            + Digests.sha256Hex(
                    String.join(
                        "\u0000", kms.identity(), user, String.join(",", groups), policyDigest))
                .substring(0, 32);
    this.handle = handle;
  }

  /** A new scope with a fresh random handle. */
  public static KeyScope of(KmsSettings kms, Principal principal, String policyDigest) {
    byte[] bytes = new byte[24];
    RANDOM.nextBytes(bytes);
    String handle = "kh-" + Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
    return new KeyScope(kms, principal, policyDigest, handle);
  }

  public KmsSettings kms() {
    return kms;
  }

  public Principal principal() {
    return Principal.of(user, groups);
  }

  /** SHA-256 of the policy text this scope's decisions follow. */
  public String policyDigest() {
    return policyDigest;
  }

  /** A non-secret digest of (endpoint, credential source, principal, policy); safe to log. */
  public String identity() {
    return identity;
  }

  /** The random registration name of this scope's key service; not shown in messages. */
  public String handle() {
    return handle;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof KeyScope && ((KeyScope) o).identity.equals(identity);
  }

  @Override
  public int hashCode() {
    return identity.hashCode();
  }

  @Override
  public String toString() {
    return "KeyScope{" + user + groups + " at " + kms.endpoint() + ", " + identity + "}";
  }
}
