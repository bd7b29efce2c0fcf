package io.icebergprotector.kms;

import io.icebergprotector.policy.Policy;
import io.icebergprotector.policy.Principal;
import java.util.Set;

/**
 * Decorator enforcing the policy for one principal: wrap needs the key in {@link Policy#wrappableKeys},
 * unwrap and deriveKey need it in {@link Policy#unwrappableKeys}. The check runs before the delegate is
 * touched, so a refused key is never read. Admin operations (create, rotate, destroy, list, describe) pass
 * through: they are guarded where the admin API is exposed.
 */
public final class AuthorizingKeyService extends ForwardingKeyService {
  private final Principal principal;
  // Policies are immutable; compute the principal's key sets once.
  private final Set<String> wrappable;
  private final Set<String> unwrappable;

  public AuthorizingKeyService(KeyService delegate, Policy policy, Principal principal) {
    super(delegate);
    if (policy == null) {
      throw new IllegalArgumentException("Invalid policy: null");
    }
    if (principal == null) {
      throw new IllegalArgumentException("Invalid principal: null");
    }
    this.principal = principal;
    this.wrappable = Set.copyOf(policy.wrappableKeys(principal));
    this.unwrappable = Set.copyOf(policy.unwrappableKeys(principal));
  }

  public Principal principal() {
    return principal;
  }

  @Override
  public String wrap(String keyId, byte[] plaintext) {
    check(wrappable, keyId, "wrap");
    return delegate().wrap(keyId, plaintext);
  }

  @Override
  public byte[] unwrap(String keyId, String wrapped) {
    check(unwrappable, keyId, "unwrap");
    return delegate().unwrap(keyId, wrapped);
  }

  @Override
  public byte[] deriveKey(String keyId, String context) {
    check(unwrappable, keyId, "deriveKey");
    return delegate().deriveKey(keyId, context);
  }







  @Override
  public String toString() {
    return "Authorizing(" + principal + ", " + delegate() + ")";
  }

  private void check(Set<String> allowed, String keyId, String operation) {
    if (keyId == null || !allowed.contains(keyId)) {
      throw new KeyAccessDeniedException(String.valueOf(principal), keyId, operation);
    }
  }
}
