/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.kms;

import static io.icebergprotector.policy.Preconditions.checkArgument;

import io.icebergprotector.policy.Policy;
import io.icebergprotector.policy.Principal;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;

/**
 * The one authorization rule for key operations: what a principal may do with which master key,
 * given the policy and the admin roles. Both the Spark side ({@link AuthorizingKeyService}) and the
 * key server decide with it.
 *
 * <ul>
 *   <li>wrap: the key is in {@link Policy#wrappableKeys} (a writer of a table or path using it);
 *   <li>unwrap and derive: the key is in {@link Policy#unwrappableKeys} (clear or masked access to
 *       a column under it, or the footer key of any entry);
 *   <li>administer (create, rotate, destroy, list, describe): one of the principal's roles is an
 *       admin role.
 * </ul>
 *
 * Decisions depend only on the principal and the key <em>name</em>, never on whether the key
 * exists, so a refusal reveals nothing about the key store. Immutable; compute once per principal
 * and policy.
 */
public final class KeyGrants {
  /** What a principal asks to do. */
  public enum Operation {
    WRAP("wrap", "not a writer of any table using this key"),
    UNWRAP("unwrap", "no role with clear or masked access to a column under this key"),
    DERIVE("deriveKey", "no role with clear or masked access to a column under this key"),
    HASH_MASK_KEY(
        "derive the hash-mask key",
        "no role that reads a pme column under this key with a hash mask (the hash-mask key"
            + " reverses hash masks of small domains)"),
    TOKEN_KEY(
        "derive the token key",
        "no role with clear access to a column of this key and token domain (a token key"
            + " detokenizes the whole domain: writers without clear access tokenize through the key"
            + " server, masked readers get its mask)"),
    TOKEN_BATCHES(
        "send token batches",
        "not a writer, and no role with clear or masked access, of a column of this key and token"
            + " domain"),
    ENCODE(
        "encode values",
        "not a writer, and no role with clear access, of a column of this key and token domain"),
    DECODE("decode tokens", "no role with clear access to a column of this key and token domain"),
    ADMIN("administer keys", "not in an admin role");

    private final String verb;
    private final String refusal;

    Operation(String verb, String refusal) {
      this.verb = verb;
      this.refusal = refusal;
    }

    /** The operation as messages name it ("wrap", "unwrap", "deriveKey", ...). */
    public String verb() {
      return verb;
    }

    /** Why the rule refuses it, for audit lines: names no key and no other principal. */
    public String refusal() {
      return refusal;
    }
  }

  private final Principal principal;
  private final Set<String> roles;
  private final Set<String> wrappable;
  private final Set<String> unwrappable;
  // the keys of unwrappable the principal needs for what it reads in clear (or as stored tokens)
  private final Set<String> clearUnwrappable;
  private final boolean admin;
  private final Set<String> hashMaskKeys;
  // "keyId\0domain" of every token key the principal may be given
  private final Set<String> tokenKeys;
  // "keyId\0domain" of every token domain the principal has a use for on the key server
  private final Set<String> tokenBatches;
  // "keyId\0domain" of every token domain whose values the principal may encode / decode
  private final Set<String> encodable;
  private final Set<String> decodable;

  private KeyGrants(Policy policy, Principal principal, Set<String> adminRoles) {
    this.principal = principal;
    this.roles = Set.copyOf(new TreeSet<>(policy.rolesOf(principal)));
    this.wrappable = Set.copyOf(policy.wrappableKeys(principal));
    this.unwrappable = Set.copyOf(policy.unwrappableKeys(principal));
    this.clearUnwrappable = Set.copyOf(policy.clearKeys(principal));
    this.admin = roles.stream().anyMatch(adminRoles::contains);
    Set<String> hashKeys = new TreeSet<>();
    for (String keyId : policy.keyIds()) {
      if (policy.mayDeriveHashMaskKey(principal, keyId)) {
        hashKeys.add(keyId);
      }
    }
    this.hashMaskKeys = Set.copyOf(hashKeys);
    Set<String> tokens = new TreeSet<>();
    Set<String> batches = new TreeSet<>();
    Set<String> encode = new TreeSet<>();
    Set<String> decode = new TreeSet<>();
    for (String domain : policy.tokenDomains()) {
      String keyId = policy.tokenDomain(domain).orElseThrow().keyId();
      if (policy.mayReleaseTokenKey(principal, keyId, domain)) {
        tokens.add(keyId + "\u0000" + domain);
      }
      if (policy.usesTokenDomain(principal, keyId, domain)) {
        batches.add(keyId + "\u0000" + domain);
      }
      if (policy.mayProtect(principal, domain)) {
        encode.add(keyId + "\u0000" + domain);
      }
      if (policy.mayUnprotect(principal, domain)) {
        decode.add(keyId + "\u0000" + domain);
      }
    }
    this.tokenKeys = Set.copyOf(tokens);
    this.tokenBatches = Set.copyOf(batches);
    this.encodable = Set.copyOf(encode);
    this.decodable = Set.copyOf(decode);
  }

  /**
   * What {@code principal} may do under {@code policy}.
   *
   * @param adminRoles the policy roles that administer keys (the key server's {@code admin-roles});
   *     empty where key administration is not decided by roles
   */
  public static KeyGrants of(Policy policy, Principal principal, Set<String> adminRoles) {
    checkArgument(policy != null, "Invalid policy: null");
    checkArgument(principal != null, "Invalid principal: null");
    return new KeyGrants(policy, principal, Objects.requireNonNull(adminRoles, "admin roles"));
  }

  public Principal principal() {
    return principal;
  }

  /** The policy roles the principal holds, sorted. */
  public Set<String> roles() {
    return roles;
  }

  public Set<String> wrappable() {
    return wrappable;
  }

  public Set<String> unwrappable() {
    return unwrappable;
  }

  /**
   * The keys of {@link #unwrappable} the principal needs for what it reads in clear (or as stored
   * tokens): what its own token gets from a key server that releases mask-only keys only to trusted
   * runtimes.
   */
  public Set<String> clearUnwrappable() {
    return clearUnwrappable;
  }

  public boolean admin() {
    return admin;
  }

  /**
   * Whether {@code operation} with {@code keyId}, if {@linkplain #allows allowed}, is allowed only
   * because the principal reads columns under the key masked: unwrapping or deriving from a key the
   * principal uses only to mask, or deriving the hash-mask key of a key it does not read in clear.
   * Holding such a key, the principal would read the values behind the masks; a key server releases
   * it only to a trusted runtime that applies the masks for the principal.
   */
  public boolean masksOnly(Operation operation, String keyId) {
    if (keyId == null || clearUnwrappable.contains(keyId)) {
      return false;
    }
    switch (operation) {
      case UNWRAP:
      case DERIVE:
        return unwrappable.contains(keyId);
      case HASH_MASK_KEY:
        return hashMaskKeys.contains(keyId);
      default:
        return false;
    }
  }

  /** Whether the rule allows {@code operation} with {@code keyId} (ignored for {@code ADMIN}). */
  public boolean allows(Operation operation, String keyId) {
    switch (operation) {
      case WRAP:
        return keyId != null && wrappable.contains(keyId);
      case UNWRAP:
      case DERIVE:
        return keyId != null && unwrappable.contains(keyId);
      case HASH_MASK_KEY:
        return keyId != null && hashMaskKeys.contains(keyId);
      case TOKEN_KEY:
        return keyId != null && tokenKeys.stream().anyMatch(k -> k.startsWith(keyId + "\u0000"));
      case TOKEN_BATCHES:
        return keyId != null && tokenBatches.stream().anyMatch(k -> k.startsWith(keyId + "\u0000"));
      case ENCODE:
        return keyId != null && encodable.stream().anyMatch(k -> k.startsWith(keyId + "\u0000"));
      case DECODE:
        return keyId != null && decodable.stream().anyMatch(k -> k.startsWith(keyId + "\u0000"));
      default:
        return admin;
    }
  }

  /**
   * Whether the principal may be given the token key of ({@code keyId}, {@code domain}): it reads a
   * column of that key and domain in clear ({@link Policy#mayReleaseTokenKey}). Writers, masked and
   * token roles never may: the key detokenizes every token of the domain.
   */
  public boolean allowsTokenKey(String keyId, String domain) {
    return keyId != null && domain != null && tokenKeys.contains(keyId + "\u0000" + domain);
  }

  /**
   * Whether the principal has any use for the key server's token batches of ({@code keyId}, {@code
   * domain}) ({@link Policy#usesTokenDomain}): the client's first check in server token mode,
   * before the server decides each batch.
   */
  public boolean allowsTokenBatches(String keyId, String domain) {
    return keyId != null && domain != null && tokenBatches.contains(keyId + "\u0000" + domain);
  }

  /**
   * Whether the principal may have the key server tokenize values of ({@code keyId}, {@code
   * domain}) for it (server token mode): a writer of an entry with a column of that key and domain,
   * or a clear reader of one ({@link Policy#mayProtect}). Token and masked roles never may.
   */
  public boolean allowsEncode(String keyId, String domain) {
    return keyId != null && domain != null && encodable.contains(keyId + "\u0000" + domain);
  }

  /**
   * Whether the principal may have the key server detokenize tokens of ({@code keyId}, {@code
   * domain}) for it (server token mode): a clear reader of a column of that key and domain ({@link
   * Policy#mayUnprotect}). Token roles never may.
   */
  public boolean allowsDecode(String keyId, String domain) {
    return keyId != null && domain != null && decodable.contains(keyId + "\u0000" + domain);
  }

  /**
   * Throws unless the principal may be given the token key of ({@code keyId}, {@code domain}).
   *
   * @throws KeyAccessDeniedException naming the principal, the key and the domain
   */
  public void checkTokenKey(String keyId, String domain) {
    if (!allowsTokenKey(keyId, domain)) {
      throw new KeyAccessDeniedException(
          String.valueOf(principal),
          keyId,
          Operation.TOKEN_KEY.verb() + " of token domain '" + domain + "'");
    }
  }

  /**
   * Throws unless the principal has a use for the token batches of ({@code keyId}, {@code domain}).
   *
   * @throws KeyAccessDeniedException naming the principal, the key and the domain
   */
  public void checkTokenBatches(String keyId, String domain) {
    if (!allowsTokenBatches(keyId, domain)) {
      throw new KeyAccessDeniedException(
          String.valueOf(principal),
          keyId,
          Operation.TOKEN_BATCHES.verb() + " of token domain '" + domain + "'");
    }
  }

  /**
   * Throws unless the principal may derive {@code context} under {@code keyId}: contexts under the
   * protector's reserved prefix {@value KeyService#RESERVED_CONTEXT_PREFIX} are its own mask keys,
   * of which only {@link KeyService#HASH_MASK_CONTEXT} is ever released, and only to the principals
   * {@link Policy#mayDeriveHashMaskKey} names; any other context needs {@code DERIVE}.
   *
   * @throws KeyAccessDeniedException naming the principal, the key and the operation
   */
  public void checkDerive(String keyId, String context) {
    check(derivation(context), keyId);
  }

  /** The rule that decides a derivation of {@code context}, or null when none may. */
  public static Operation derivation(String context) {
    if (context != null && context.startsWith(KeyService.RESERVED_CONTEXT_PREFIX)) {
      return KeyService.HASH_MASK_CONTEXT.equals(context) ? Operation.HASH_MASK_KEY : null;
    }
    return Operation.DERIVE;
  }

  /**
   * Throws unless the rule allows {@code operation} with {@code keyId}.
   *
   * @throws KeyAccessDeniedException naming the principal, the key and the operation
   */
  public void check(Operation operation, String keyId) {
    if (operation == null) {
      throw new KeyAccessDeniedException(
          String.valueOf(principal), keyId, "derive a reserved key of the protector");
    }
    if (!allows(operation, keyId)) {
      throw new KeyAccessDeniedException(String.valueOf(principal), keyId, operation.verb());
    }
  }

  @Override
  public String toString() {
    return "KeyGrants{" + principal + ", roles " + roles + (admin ? ", admin" : "") + "}";
  }
}
