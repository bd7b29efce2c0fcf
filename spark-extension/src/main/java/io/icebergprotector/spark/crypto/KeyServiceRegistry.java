/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.spark.crypto;

import static io.icebergprotector.policy.Preconditions.checkArgument;
import static io.icebergprotector.policy.Preconditions.checkState;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.RemovalCause;
import io.icebergprotector.kms.AuthorizingKeyService;
import io.icebergprotector.kms.ForwardingKeyService;
import io.icebergprotector.kms.KeyScope;
import io.icebergprotector.kms.KeyService;
import io.icebergprotector.kms.KeyServices;
import io.icebergprotector.kms.KmsSettings;
import io.icebergprotector.policy.Policy;
import io.icebergprotector.spark.metrics.ThreadKeyCalls;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The key services of this JVM, one per {@link KeyScope}, registered under the scope's random
 * handle. Parquet's key tools create our KMS clients by class name and hand them only the access
 * token; the token is the handle, so a client reaches exactly the service of the scope whose scan
 * or write configured it, and nobody can reach a service by recomputing a name.
 *
 * <p>Backends (an open keystore, a server client holding a token) are shared by the scopes that
 * reach the same endpoint with the same credential, keyed by {@link #credentialBinding}: a digest
 * of the credential itself, read when a scope is registered, under a key random to this JVM. Naming
 * the same token file or passphrase variable is not enough to reach another scope's backend; the
 * caller must be able to read the secret.
 *
 * <p>Both caches are bounded and expire: a scope unused for {@link #IDLE} is dropped, and a backend
 * (an open keystore or server client) unused for as long is closed, which wipes the key material a
 * local keystore holds. A later use opens them again.
 */
public final class KeyServiceRegistry {
  private static final Logger LOG = LoggerFactory.getLogger(KeyServiceRegistry.class);
  static final Duration IDLE = Duration.ofMinutes(30);
  private static final int MAX_SCOPES = 1_000;
  private static final int MAX_BACKENDS = 100;

  private static final Cache<String, Registered> BY_HANDLE =
      Caffeine.newBuilder()
          .maximumSize(MAX_SCOPES)
          .expireAfterAccess(IDLE)
          .ticker(CacheClock.TICKER)
          .executor(Runnable::run)
          .build();
  private static final Cache<String, KeyService> BACKENDS =
      Caffeine.newBuilder()
          .maximumSize(MAX_BACKENDS)
          .expireAfterAccess(IDLE)
          .ticker(CacheClock.TICKER)
          .executor(Runnable::run)
          .removalListener(KeyServiceRegistry::closeBackend)
          .build();
  // Keys the credential bindings of this JVM; never leaves it.
  private static final byte[] BINDING_KEY = randomKey();
  // Calls that reached a backend, per endpoint; a handful of counters per JVM.
  private static final Map<String, AtomicLong> CALLS = new ConcurrentHashMap<>();

  private KeyServiceRegistry() {}

  /**
   * The key service of {@code scope}, opened and registered on first use in this JVM. On an
   * executor that never saw the scope (another JVM than the driver) it is opened from the scope's
   * settings, which name where the credential is read, never the credential itself.
   *
   * @param policy the policy the scope was made for; every key request is checked against it
   */
  public static KeyService obtain(KeyScope scope, Policy policy) {
    checkArgument(
        scope.policyDigest().equals(policy.digest()),
        "Cannot open key service of %s: it was made for another policy than %s",
        scope,
        policy.origin());
    Registered registered =
        BY_HANDLE.get(scope.handle(), handle -> new Registered(scope, open(scope, policy)));
    checkState(registered.scope.equals(scope), "Key scope handle collision for %s", scope);
    return registered.service;
  }

  /** The service registered under {@code accessToken} (a handle, optionally with a suffix). */
  static Optional<KeyService> lookup(String accessToken) {
    if (accessToken == null) {
      return Optional.empty();
    }
    int hash = accessToken.indexOf('#');
    String handle = hash < 0 ? accessToken : accessToken.substring(0, hash);
    Registered registered = BY_HANDLE.getIfPresent(handle);
    return registered == null ? Optional.empty() : Optional.of(registered.service);
  }

  /** Calls that reached the key-service backend of this endpoint in this JVM. */
  public static long backendCalls(KmsSettings kms) {
    AtomicLong calls = CALLS.get(kms.endpoint());
    return calls == null ? 0 : calls.get();
  }

  /** Scopes registered in this JVM now (for tests of the bounds). */
  static long registeredScopes() {
    BY_HANDLE.cleanUp();
    return BY_HANDLE.estimatedSize();
  }

  /** Backends open in this JVM now (for tests of the bounds). */
  static long openBackends() {
    BACKENDS.cleanUp();
    return BACKENDS.estimatedSize();
  }

  /**
   * The endpoint of {@code kms} and a keyed digest of its credential (keystore passphrase, token or
   * PIN), read now: equal for two settings exactly when they reach the same endpoint with the same
   * secret. Fails when the credential cannot be read.
   */
  public static String credentialBinding(KmsSettings kms) {
    // and of the trusted runtime's credential: with it, a key server releases keys the same token
    // alone does not get, so the two must never share a backend (or its caches)
    return kms.endpoint()
        + "|"
        + kms.credential().keyedDigest(BINDING_KEY)
        + (kms.runtimeToken() == null
            ? ""
            : "|runtime:" + kms.runtimeToken().keyedDigest(BINDING_KEY));
  }

  private static KeyService open(KeyScope scope, Policy policy) {
    KmsSettings kms = scope.kms();
    // Remote servers authorize again with the token's principal; checking here too fails fast
    // and keeps a refused key from ever being requested.
    return new AuthorizingKeyService(
        new BackendRef(kms, credentialBinding(kms)), policy, scope.principal());
  }

  private static KeyService backend(KmsSettings kms, String binding) {
    return BACKENDS.get(binding, b -> openBackend(kms));
  }

  private static KeyService openBackend(KmsSettings kms) {
    AtomicLong calls = CALLS.computeIfAbsent(kms.endpoint(), e -> new AtomicLong());
    return new ThreadKeyCalls(KeyServices.open(kms), calls);
  }

  private static void closeBackend(String binding, KeyService backend, RemovalCause cause) {
    if (backend == null) {
      return;
    }
    try {
      backend.close();
    } catch (RuntimeException e) {
      LOG.warn("Failed to close key service backend {}: {}", backend, e.toString());
    }
  }

  private static byte[] randomKey() {
    byte[] key = new byte[32];
    new SecureRandom().nextBytes(key);
    return key;
  }

  /** Drops every registered scope and closes every backend (tests that rotate or destroy keys). */
  public static void clear() {
    BY_HANDLE.invalidateAll();
    BACKENDS.invalidateAll();
    BACKENDS.cleanUp();
    CALLS.clear();
  }

  private static final class Registered {
    final KeyScope scope;
    final KeyService service;

    Registered(KeyScope scope, KeyService service) {
      this.scope = scope;
      this.service = service;
    }
  }

  /**
   * A scope's view of its backend: looked up on every call, so a backend closed after being idle is
   * opened again instead of failing the scope that outlived it.
   */
  private static final class BackendRef extends ForwardingKeyService {
    private final KmsSettings kms;
    private final String binding;

    BackendRef(KmsSettings kms, String binding) {
      this.kms = kms;
      this.binding = binding;
    }

    @Override
    public KeyService delegate() {
      return backend(kms, binding);
    }

    @Override
    public void close() {
      // the backend is shared by every scope of the endpoint; the cache closes it
    }

    @Override
    public String toString() {
      return "KeyServiceBackend(" + kms.endpoint() + ")";
    }
  }
}
