/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.kms;

import io.icebergprotector.kms.token.TokenKey;
import io.icebergprotector.kms.token.TokenMode;
import io.icebergprotector.kms.token.Tokenizer;
import io.icebergprotector.policy.Policy;
import io.icebergprotector.policy.Principal;
import io.icebergprotector.policy.ProtectionMethod;
import java.util.Set;

/**
 * Decorator enforcing the policy for one principal with the shared rule of {@link KeyGrants}: wrap,
 * unwrap and deriveKey are checked before the delegate is touched, so a refused key is never read.
 * Admin operations (create, rotate, retire, destroy, list, describe) pass through: key metadata is
 * needed to plan scans, and administration is guarded where the admin API is exposed (the key
 * server's admin roles; the keystore passphrase for a local keystore).
 */
public final class AuthorizingKeyService extends ForwardingKeyService {
  private static final System.Logger AUDIT = System.getLogger("io.icebergprotector.audit");

  private final KeyGrants grants;

  public AuthorizingKeyService(KeyService delegate, Policy policy, Principal principal) {
    this(delegate, KeyGrants.of(policy, principal, Set.of()));
  }

  public AuthorizingKeyService(KeyService delegate, KeyGrants grants) {
    super(delegate);
    this.grants = grants;
  }

  public Principal principal() {
    return grants.principal();
  }

  @Override
  public String wrapKey(byte[] plaintext, String keyId) {
    grants.check(KeyGrants.Operation.WRAP, keyId);
    return delegate().wrapKey(plaintext, keyId);
  }

  @Override
  public byte[] unwrapKey(String wrapped, String keyId) {
    grants.check(KeyGrants.Operation.UNWRAP, keyId);
    return delegate().unwrapKey(wrapped, keyId);
  }

  @Override
  public byte[] deriveKey(String keyId, String context) {
    grants.checkDerive(keyId, context);
    return delegate().deriveKey(keyId, context);
  }

  /**
   * Checks the token-key rule for (key, domain) before the delegate is touched, and writes an audit
   * line for every release and refusal (logger {@code io.icebergprotector.audit}): principal, key,
   * version and domain, never the key.
   */
  @Override
  public TokenKey deriveTokenKey(
      String keyId, int version, String domain, ProtectionMethod.Kind kind) {
    try {
      grants.checkTokenKey(keyId, domain);
    } catch (KeyAccessDeniedException e) {
      AUDIT.log(
          System.Logger.Level.WARNING,
          "token key refused: principal={0} key={1} domain={2} reason={3}",
          grants.principal(),
          keyId,
          domain,
          KeyGrants.Operation.TOKEN_KEY.refusal());
      throw e;
    }
    TokenKey key = delegate().deriveTokenKey(keyId, version, domain, kind);
    AUDIT.log(
        System.Logger.Level.INFO,
        "token key released: principal={0} key={1} version={2} domain={3} method={4}",
        grants.principal(),
        keyId,
        key.version(),
        domain,
        kind);
    return key;
  }

  /**
   * Server mode: whether the principal has any use for the domain's batches is checked here first
   * (a refused domain never reaches the server), and the key server decides and audits every batch
   * again with its own policy. Local mode derives the token key, under the token-key rule.
   */
  @Override
  public Tokenizer tokenizer(
      String keyId, int version, String domain, ProtectionMethod method, TokenMode mode) {
    if (mode == TokenMode.SERVER) {
      try {
        grants.checkTokenBatches(keyId, domain);
      } catch (KeyAccessDeniedException e) {
        AUDIT.log(
            System.Logger.Level.WARNING,
            "token batches refused: principal={0} key={1} domain={2} reason={3}",
            grants.principal(),
            keyId,
            domain,
            KeyGrants.Operation.TOKEN_BATCHES.refusal());
        throw e;
      }
    }
    return super.tokenizer(keyId, version, domain, method, mode);
  }

  @Override
  public String toString() {
    return "Authorizing(" + grants.principal() + ", " + delegate() + ")";
  }
}
