/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.cli;

import static io.icebergprotector.policy.Preconditions.checkArgument;

import io.icebergprotector.kms.KmsOptions;
import io.icebergprotector.kms.KmsSettings;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;

/**
 * The options that pick a key backend on the command line: a local keystore, a PKCS#11 token or the
 * key server, one picocli mixin each. They become the catalog's {@code protector.kms.*} options
 * (each flag is named like its option: {@code --pin-file} is {@code protector.kms.pin-file}), read
 * by {@link KmsSettings#fromOptions}, so the command line chooses secrets and backends exactly as
 * Spark catalogs do.
 */
final class KeyBackendOptions {
  private KeyBackendOptions() {}

  /**
   * The local keystore: {@code --keystore}, {@code --passphrase-env}, {@code --passphrase-file}.
   */
  static final class Keystore {
    @Option(
        names = "--keystore",
        paramLabel = "<file>",
        description = "PKCS12 keystore (default: " + Workspace.DEFAULT_KEYSTORE + ").")
    Path keystore;

    @Option(
        names = "--passphrase-env",
        paramLabel = "<var>",
        description = "Environment variable holding the keystore passphrase.")
    String passphraseEnv;

    @Option(
        names = "--passphrase-file",
        paramLabel = "<file>",
        description = "Passphrase file (default: " + Workspace.DEFAULT_PASSPHRASE + ").")
    Path passphraseFile;

    boolean given() {
      return keystore != null || passphraseEnv != null || passphraseFile != null;
    }

    Path keystorePath() {
      return keystore != null ? keystore : Path.of(Workspace.DEFAULT_KEYSTORE);
    }

    void addTo(Map<String, String> options) {
      options.put(KmsOptions.TYPE.key(), "local");
      options.put(KmsOptions.KEYSTORE.key(), keystorePath().toAbsolutePath().toString());
      if (passphraseEnv != null) {
        options.put(KmsOptions.PASSPHRASE_ENV.key(), passphraseEnv);
      }
      if (passphraseFile != null || passphraseEnv == null) {
        options.put(KmsOptions.PASSPHRASE_FILE.key(), passphraseFile().toAbsolutePath().toString());
      }
    }

    Path passphraseFileOrDefault() {
      return passphraseFile();
    }

    private Path passphraseFile() {
      return passphraseFile != null ? passphraseFile : Path.of(Workspace.DEFAULT_PASSPHRASE);
    }

    /**
     * A missing passphrase file (the demo's by default) is named with the options that replace it.
     */
    void requirePassphraseFile() {
      checkArgument(
          passphraseEnv != null || Files.exists(passphraseFile()),
          "Passphrase file %s does not exist (create it and a keystore "
              + "with 'keys init', or pass --passphrase-env <var> or "
              + "--passphrase-file <file>)",
          passphraseFile());
    }

    String describe() {
      return "keystore " + keystorePath();
    }
  }

  /** A PKCS#11 token: its library, slot or label, and the user PIN. */
  static final class Pkcs11 {
    @Option(
        names = "--pkcs11-library",
        paramLabel = "<file>",
        description =
            "PKCS#11 library of an HSM token (instead of a keystore), e.g. /usr/lib/softhsm/libsofthsm2.so.")
    Path library;

    @Option(
        names = "--token-label",
        paramLabel = "<label>",
        description = "PKCS#11: the token's label.")
    String tokenLabel;

    @Option(
        names = "--slot",
        paramLabel = "<id>",
        description = "PKCS#11: the token's slot id (instead of --token-label).")
    Long slot;

    @Option(
        names = "--slot-list-index",
        paramLabel = "<n>",
        description =
            "PKCS#11: the token's index among the slots with a token (instead of --token-label).")
    Integer slotListIndex;

    @Option(
        names = "--pin-env",
        paramLabel = "<var>",
        description = "PKCS#11: environment variable holding the user PIN.")
    String pinEnv;

    @Option(
        names = "--pin-file",
        paramLabel = "<file>",
        description = "PKCS#11: file holding the user PIN.")
    Path pinFile;

    boolean given() {
      return library != null;
    }

    boolean anyTokenOption() {
      return tokenLabel != null
          || slot != null
          || slotListIndex != null
          || pinEnv != null
          || pinFile != null;
    }

    void addTo(Map<String, String> options) {
      options.put(KmsOptions.TYPE.key(), "pkcs11");
      options.put(KmsOptions.PKCS11_LIBRARY.key(), library.toAbsolutePath().toString());
      putIfSet(options, KmsOptions.TOKEN_LABEL.key(), tokenLabel);
      putIfSet(options, KmsOptions.SLOT.key(), slot);
      putIfSet(options, KmsOptions.SLOT_LIST_INDEX.key(), slotListIndex);
      putIfSet(options, KmsOptions.PIN_ENV.key(), pinEnv);
      putIfSet(
          options, KmsOptions.PIN_FILE.key(), pinFile == null ? null : pinFile.toAbsolutePath());
    }

    String describe() {
      String token =
          tokenLabel != null
              ? "'" + tokenLabel + "'"
              : slot != null ? "in slot " + slot : "at slot list index " + slotListIndex;
      return "PKCS#11 token " + token + " of " + library;
    }
  }

  /** The key server: URL, token, trusted certificate. */
  static final class Server {
    @Option(
        names = "--url",
        paramLabel = "<url>",
        description = "Key server URL, e.g. https://keys.example.com:8200 (instead of a keystore).")
    String url;

    @Option(
        names = "--token-env",
        paramLabel = "<var>",
        description =
            "Environment variable holding the server token (default: "
                + KmsSettings.DEFAULT_TOKEN_ENV
                + ").")
    String tokenEnv;

    @Option(
        names = "--token-file",
        paramLabel = "<file>",
        description = "File holding the server token, on one line.")
    Path tokenFile;

    @Option(
        names = "--trust-cert",
        paramLabel = "<pem>",
        description =
            "Trust exactly this certificate (.pem, .crt, .cer or .der), e.g. the server's self-signed one.")
    Path trustCert;

    @Option(
        names = "--allow-insecure-http",
        description =
            "Allow plain http:// to a key server that is not on loopback (the token crosses "
                + "the network in clear; a warning is logged). Loopback needs no option.")
    boolean allowInsecureHttp;

    boolean given() {
      return url != null;
    }

    boolean anyServerOption() {
      return tokenEnv != null || tokenFile != null || trustCert != null || allowInsecureHttp;
    }

    void addTo(Map<String, String> options) {
      options.put(KmsOptions.TYPE.key(), "remote");
      options.put(KmsOptions.URL.key(), url);
      putIfSet(options, KmsOptions.TOKEN_ENV.key(), tokenEnv);
      putIfSet(
          options,
          KmsOptions.TOKEN_FILE.key(),
          tokenFile == null ? null : tokenFile.toAbsolutePath());
      putIfSet(
          options,
          KmsOptions.TRUST_STORE.key(),
          trustCert == null ? null : trustCert.toAbsolutePath());
      options.put(KmsOptions.ALLOW_INSECURE_HTTP.key(), Boolean.toString(allowInsecureHttp));
    }

    String describe() {
      return "key server " + url;
    }

    /** A usage error if key-server options are given without --url. */
    void requireOnlyWithUrl(CommandSpec spec) {
      if (!given() && anyServerOption()) {
        throw usage(
            spec,
            "--token-env, --token-file, --trust-cert and --allow-insecure-http need --url"
                + " (they configure the key server)");
      }
    }
  }

  /**
   * Checks which backend the options pick (a usage error when they pick more than one, or name
   * options of a backend they do not pick).
   *
   * @param server null where the command offers no key server
   */
  static void validate(CommandSpec spec, Keystore keystore, Pkcs11 pkcs11, Server server) {
    if (server != null && server.given() && keystore.given()) {
      throw usage(spec, "--url (key server) cannot be combined with --keystore or --passphrase-*");
    }
    if (server != null && server.given() && (pkcs11.given() || pkcs11.anyTokenOption())) {
      throw usage(
          spec, "--url (key server) cannot be combined with --pkcs11-library or its token options");
    }
    if (pkcs11.given() && keystore.given()) {
      throw usage(
          spec,
          "--pkcs11-library (PKCS#11 token) cannot be combined with --keystore or --passphrase-*");
    }
    if (server != null && !server.given() && server.anyServerOption()) {
      throw usage(
          spec,
          "--token-env, --token-file, --trust-cert and --allow-insecure-http need --url"
              + " (they configure the key server)");
    }
    if (!pkcs11.given() && pkcs11.anyTokenOption()) {
      throw usage(
          spec,
          "--token-label, --slot, --slot-list-index, --pin-env and --pin-file need"
              + " --pkcs11-library (they configure the PKCS#11 token)");
    }
  }

  /**
   * The settings of the backend the options pick (after {@link #validate}). Conflicting secret
   * sources are usage errors naming the flags.
   */
  static KmsSettings settings(CommandSpec spec, Keystore keystore, Pkcs11 pkcs11, Server server) {
    Map<String, String> options = new LinkedHashMap<>();
    if (server != null && server.given()) {
      server.addTo(options);
    } else if (pkcs11.given()) {
      pkcs11.addTo(options);
    } else {
      keystore.addTo(options);
    }
    try {
      return KmsSettings.fromOptions(options, null);
    } catch (IllegalArgumentException e) {
      // Option names as the command line spells them: protector.kms.pin-file is --pin-file.
      throw usage(
          spec, e.getMessage().replace(KmsOptions.PREFIX, "--").replace("protector.", "--"));
    }
  }

  /** The key server's settings alone (sql, inspect --table, whoami). */
  static KmsSettings settings(Server server) {
    Map<String, String> options = new LinkedHashMap<>();
    server.addTo(options);
    return KmsSettings.fromOptions(options, null);
  }

  static String describe(Keystore keystore, Pkcs11 pkcs11, Server server) {
    if (server != null && server.given()) {
      return server.describe();
    }
    return pkcs11.given() ? pkcs11.describe() : keystore.describe();
  }

  private static void putIfSet(Map<String, String> options, String key, Object value) {
    if (value != null) {
      options.put(key, value.toString());
    }
  }

  private static ParameterException usage(CommandSpec spec, String message) {
    return new ParameterException(spec.commandLine(), message);
  }
}
