package io.icebergprotector.spark.crypto;

import io.icebergprotector.kms.remote.RemoteKeyService;
import java.nio.file.Path;
import java.util.Locale;

/** Opens the remote key-service client from catalog settings. */
public final class RemoteKeyServices {
  private RemoteKeyServices() {}

  public static RemoteKeyService open(KmsSettings kms) {
    RemoteKeyService.Builder builder =
        RemoteKeyService.builder()
            .url(kms.url())
            .token(kms.token())
            .allowInsecureHttp(kms.allowInsecureHttp());
    if (kms.trustStore() != null) {
      Path trust = Path.of(kms.trustStore());
      String lower = trust.getFileName().toString().toLowerCase(Locale.ROOT);
      if (lower.endsWith(".pem") || lower.endsWith(".crt") || lower.endsWith(".cer")) {
        builder.trustedCertificate(trust);
      } else {
        String var = kms.trustStorePasswordEnv();
        String password = var == null ? null : System.getenv(var);
        if (var != null && password == null) {
          throw new IllegalArgumentException(
              "protector.kms.trust-store-password-env names " + var + ", which is not set");
        }
        builder.trustStore(trust, password == null ? null : password.toCharArray());
      }
    }
    return builder.build();
  }
}
