package io.icebergprotector.server;

import io.icebergprotector.kms.Passphrase;

/** Loads a configured secret through {@link Passphrase} (env variable or file, wiped on close). */
final class Secrets {
  private Secrets() {}

  static Passphrase load(ServerConfig.SecretSource source, String what) {
    try {
      return source.env() != null ? Passphrase.fromEnv(source.env()) : Passphrase.fromFile(source.file());
    } catch (RuntimeException e) {
      throw new IllegalArgumentException("cannot read the " + what + " (" + source + "): " + e.getMessage(), e);
    }
  }
}
