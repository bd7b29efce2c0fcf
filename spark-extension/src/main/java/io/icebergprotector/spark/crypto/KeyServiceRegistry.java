package io.icebergprotector.spark.crypto;

import io.icebergprotector.kms.AuthorizingKeyService;
import io.icebergprotector.kms.CountingKeyService;
import io.icebergprotector.kms.KeyService;
import io.icebergprotector.kms.LocalKeyService;
import io.icebergprotector.kms.Passphrase;
import io.icebergprotector.policy.Policy;
import io.icebergprotector.spark.ProtectionSpec;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Per-JVM key services, one per (endpoint, credential, principal, policy) token. Parquet's key
 * tools instantiate our {@link ProtectorKmsClient} by class name; the client finds its principal's
 * service here through the access token, so no secret travels through a Hadoop configuration.
 */
public final class KeyServiceRegistry {
  private static final Map<String, KeyService> BY_TOKEN = new ConcurrentHashMap<>();
  private static final Map<String, KeyService> BACKENDS = new ConcurrentHashMap<>();
  private static final Map<String, CountingKeyService> COUNTERS = new ConcurrentHashMap<>();

  private KeyServiceRegistry() {}

  /** The principal-scoped key service for a spec, opened on first use in this JVM. */
  public static KeyService obtain(ProtectionSpec spec) {
    return BY_TOKEN.computeIfAbsent(spec.cacheToken(), token -> open(spec));
  }

  static Optional<KeyService> lookup(String token) {
    return Optional.ofNullable(BY_TOKEN.get(token));
  }

  /** Calls that reached the key-service backend for this spec's endpoint in this JVM. */
  public static long backendCalls(ProtectionSpec spec) {
    CountingKeyService counter = COUNTERS.get(spec.kms().endpoint());
    return counter == null ? 0 : counter.totalCount();
  }

  private static KeyService open(ProtectionSpec spec) {
    KmsSettings kms = spec.kms();
    KeyService backend = BACKENDS.computeIfAbsent(backendKey(kms), k -> openBackend(kms));
    Policy policy = PolicyCache.parse(spec.policyText(), spec.policyOrigin());
    // Remote servers authorize again with the token's principal; checking here too fails fast
    // and keeps a refused key from ever being requested.
    return new AuthorizingKeyService(backend, policy, spec.principal());
  }

  private static String backendKey(KmsSettings kms) {
    return kms.type() == KmsSettings.Type.LOCAL
        ? kms.endpoint()
        : kms.credentialDigestFor("", java.util.List.of(), "");
  }

  private static KeyService openBackend(KmsSettings kms) {
    KeyService service;
    if (kms.type() == KmsSettings.Type.LOCAL) {
      Passphrase passphrase =
          kms.passphraseEnv() != null
              ? Passphrase.fromEnv(kms.passphraseEnv())
              : Passphrase.fromFile(Path.of(kms.passphraseFile()));
      service = LocalKeyService.open(Path.of(kms.keystore()), passphrase, false);
    } else {
      service = RemoteKeyServices.open(kms);
    }
    CountingKeyService counting = new CountingKeyService(new ThreadKeyCalls(service));
    COUNTERS.merge(kms.endpoint(), counting, (a, b) -> b);
    return counting;
  }

  /** Drops every cached service; for tests that rotate or destroy keys under a running JVM. */
  public static void clear() {
    BY_TOKEN.clear();
    BACKENDS.values().forEach(KeyService::close);
    BACKENDS.clear();
    COUNTERS.clear();
  }
}
