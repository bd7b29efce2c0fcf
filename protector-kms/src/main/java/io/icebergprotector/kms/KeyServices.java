package io.icebergprotector.kms;

import io.icebergprotector.kms.remote.RemoteKeyService;
import java.nio.file.Path;
import java.util.Locale;

/** Opens the key service that {@link KmsSettings} describe; used by Spark, the CLI and the server. */
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
      default:
        throw new IllegalArgumentException("Unknown key service type: " + settings.type());
    }
  }

  /** The key server client of remote settings. */
  public static RemoteKeyService openRemote(KmsSettings settings) {
    if (settings.type() != KmsSettings.Type.REMOTE) {
      throw new IllegalArgumentException("Not a remote key service: " + settings);
    }
    RemoteKeyService.Builder builder =
        RemoteKeyService.builder()
            .url(settings.url())
            .token(settings.token().read())
            .allowInsecureHttp(settings.allowInsecureHttp());
    if (settings.trustStore() != null) {
      Path trust = Path.of(settings.trustStore());
      String lower = trust.getFileName().toString().toLowerCase(Locale.ROOT);
      if (lower.endsWith(".pem") || lower.endsWith(".crt") || lower.endsWith(".cer")) {
        builder.trustedCertificate(trust);
      } else {
        SecretRef password = settings.trustStorePassword();
        builder.trustStore(trust, password == null ? null : password.read().toCharArray());
      }
    }
    return builder.build();
  }
}
