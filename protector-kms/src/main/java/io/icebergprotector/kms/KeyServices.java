/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.kms;

import static io.icebergprotector.policy.Preconditions.checkArgument;

import io.icebergprotector.kms.pkcs11.Pkcs11KeyService;
import io.icebergprotector.kms.remote.RemoteKeyService;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;

/**
 * Opens the key service that {@link KmsSettings} describe: the one way Spark, the CLI and the key
 * server open a key backend. Secrets are read here, from the settings' {@link SecretRef}s, and
 * wiped once the backend holds what it needs.
 */
public final class KeyServices {
  private KeyServices() {}

  /** Opens the settings' key service; a local keystore must exist already. */
  public static KeyService open(KmsSettings settings) {
    return open(settings, false);
  }

  /**
   * Opens the settings' key service.
   *
   * @param createKeystore whether a missing local keystore file is created (only where keys are
   *     administered, e.g. the driver with {@code create-missing-keys}; never on executors)
   */
  public static KeyService open(KmsSettings settings, boolean createKeystore) {
    switch (settings.type()) {
      case LOCAL:
        try (Passphrase passphrase = settings.passphrase().readPassphrase()) {
          return LocalKeyService.open(Path.of(settings.keystore()), passphrase, createKeystore);
        }
      case REMOTE:
        return openRemote(settings);
      case PKCS11:
        return openPkcs11(settings);
      default:
        throw new IllegalArgumentException("Unknown key service type: " + settings.type());
    }
  }

  /** The key server client of remote settings. */
  public static RemoteKeyService openRemote(KmsSettings settings) {
    checkArgument(
        settings.type() == KmsSettings.Type.REMOTE, "Not a remote key service: %s", settings);
    RemoteKeyService.Builder builder =
        RemoteKeyService.builder()
            .url(settings.url())
            .token(settings.token().read())
            .allowInsecureHttp(settings.allowInsecureHttp())
            // no cache of its own: callers (Parquet's key tools, the hash-mask keys) cache for the
            // key-cache lifetime, and a second cache behind theirs would stretch the revocation
            // bound to twice that lifetime (an entry refreshed from it just before it expires)
            .cacheTtl(Duration.ZERO);
    if (settings.runtimeToken() != null) {
      builder.runtimeToken(settings.runtimeToken().read());
    }
    if (settings.trustStore() != null) {
      Path trust = Path.of(settings.trustStore());
      String lower = trust.getFileName().toString().toLowerCase(Locale.ROOT);
      if (lower.endsWith(".pem")
          || lower.endsWith(".crt")
          || lower.endsWith(".cer")
          || lower.endsWith(".der")) {
        builder.trustedCertificate(trust);
      } else {
        SecretRef password = settings.trustStorePassword();
        builder.trustStore(trust, password == null ? null : password.read().toCharArray());
      }
    }
    return builder.build();
  }

  /** Logs in to the PKCS#11 token of the settings; the PIN is wiped once the session holds it. */
  private static Pkcs11KeyService openPkcs11(KmsSettings settings) {
    try (Passphrase pin = settings.pin().readPassphrase()) {
      Pkcs11KeyService.Builder builder =
          Pkcs11KeyService.builder(Path.of(settings.pkcs11Library())).pin(pin);
      if (settings.tokenLabel() != null) {
        builder.tokenLabel(settings.tokenLabel());
      } else if (settings.slot() != null) {
        builder.slot(settings.slot());
      } else {
        builder.slotListIndex(settings.slotListIndex());
      }
      return builder.build();
    }
  }
}
