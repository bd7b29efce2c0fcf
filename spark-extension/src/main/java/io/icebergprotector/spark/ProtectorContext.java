package io.icebergprotector.spark;

import io.icebergprotector.kms.KeyService;
import io.icebergprotector.kms.LocalKeyService;
import io.icebergprotector.kms.Passphrase;
import io.icebergprotector.policy.Policy;
import io.icebergprotector.policy.PolicyException;
import io.icebergprotector.policy.Principal;
import io.icebergprotector.kms.remote.RemoteKeyService;
import io.icebergprotector.kms.remote.WhoAmI;
import io.icebergprotector.spark.crypto.KmsSettings;
import io.icebergprotector.spark.crypto.RemoteKeyServices;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.stream.Collectors;
import org.apache.spark.sql.SparkSession;

/**
 * The protector settings of one catalog: its policy, its key service and how it names the
 * principal. Built once from the catalog options on the driver.
 */
public final class ProtectorContext {
  public static final String POLICY = "protector.policy";
  public static final String KMS_TYPE = "protector.kms.type";
  public static final String KMS_KEYSTORE = "protector.kms.keystore";
  public static final String KMS_PASSPHRASE_ENV = "protector.kms.passphrase-env";
  public static final String KMS_PASSPHRASE_FILE = "protector.kms.passphrase-file";
  public static final String KMS_CREATE_MISSING_KEYS = "protector.kms.create-missing-keys";
  public static final String KMS_URL = "protector.kms.url";
  public static final String KMS_TRUST_STORE = "protector.kms.trust-store";
  public static final String KMS_TRUST_STORE_PASSWORD_ENV = "protector.kms.trust-store-password-env";
  public static final String KMS_ALLOW_INSECURE_HTTP = "protector.kms.allow-insecure-http";
  public static final String TOKEN = "protector.token";
  public static final String TOKEN_FILE = "protector.token-file";
  public static final String TOKEN_ENV = "protector.token-env";
  public static final String USER = "protector.user";
  public static final String GROUPS = "protector.groups";

  /** Every option this catalog understands, for documentation checks. */
  public static final List<String> OPTIONS =
      List.of(
          POLICY, KMS_TYPE, KMS_KEYSTORE, KMS_PASSPHRASE_ENV, KMS_PASSPHRASE_FILE,
          KMS_CREATE_MISSING_KEYS, KMS_URL, KMS_TRUST_STORE, KMS_TRUST_STORE_PASSWORD_ENV,
          KMS_ALLOW_INSECURE_HTTP, TOKEN, TOKEN_FILE, TOKEN_ENV, USER, GROUPS);

  private final Policy policy;
  private final String policyText;
  private final KmsSettings kms;
  private final String configuredUser;
  private final List<String> configuredGroups;
  private boolean remotePrincipal;

  private ProtectorContext(
      Policy policy, String policyText, KmsSettings kms, String user, List<String> groups) {
    this.policy = Objects.requireNonNull(policy, "policy");
    this.policyText = Objects.requireNonNull(policyText, "policyText");
    this.kms = Objects.requireNonNull(kms, "kms");
    this.configuredUser = user;
    this.configuredGroups = groups;
  }

  public static ProtectorContext of(Policy policy, String policyText, KmsSettings kms) {
    return new ProtectorContext(policy, policyText, kms, null, List.of());
  }

  /** Reads the catalog options; every missing or bad option fails with a message naming it. */
  public static ProtectorContext fromOptions(String catalogName, Map<String, String> options) {
    KmsSettings kms = kmsSettings(catalogName, options);
    String location = options.get(POLICY);
    String user = options.get(USER);
    List<String> groups = splitGroups(options.get(GROUPS));
    String text;
    if (kms.type() == KmsSettings.Type.REMOTE) {
      // The server's view wins: the token decides who we are, and the server's policy is the
      // one it enforces.
      try (RemoteKeyService remote = RemoteKeyServices.open(kms)) {
        WhoAmI whoami = remote.whoami();
        user = whoami.principal();
        groups = whoami.groups();
        if (location == null || location.isBlank()) {
          location = kms.url() + "/v1/protector/policy";
          text = remote.fetchPolicyText();
        } else {
          text = readPolicy(location);
        }
      }
    } else {
      if (location == null || location.isBlank()) {
        throw new IllegalArgumentException(
            String.format(
                "Catalog '%s' has no %s option: set spark.sql.catalog.%s.%s to the policy's path"
                    + " or URL",
                catalogName, POLICY, catalogName, POLICY));
      }
      text = readPolicy(location);
    }
    Policy policy = Policy.parse(text, location);
    ProtectorContext context = new ProtectorContext(policy, text, kms, user, groups);
    context.remotePrincipal = kms.type() == KmsSettings.Type.REMOTE;
    if (kms.type() == KmsSettings.Type.LOCAL && kms.createMissingKeys()) {
      context.createMissingLocalKeys();
    }
    return context;
  }

  public Policy policy() {
    return policy;
  }

  public String policyText() {
    return policyText;
  }

  public KmsSettings kms() {
    return kms;
  }

  /**
   * The principal for reads and writes through catalog {@code catalogName}. A session may override
   * the catalog option with {@code spark.sql.catalog.<name>.protector.user} in its own conf, so
   * sessions from {@code spark.newSession()} can act as different users.
   */
  public Principal principal(SparkSession spark, String catalogName) {
    String prefix = "spark.sql.catalog." + catalogName + ".";
    String user = configuredUser;
    List<String> groups = configuredGroups;
    if (remotePrincipal) {
      return Principal.of(user, groups);
    }
    if (spark != null) {
      user = spark.conf().get(prefix + USER, user);
      String sessionGroups = spark.conf().get(prefix + GROUPS, null);
      if (sessionGroups != null) {
        groups = splitGroups(sessionGroups);
      }
    }
    if (user == null || user.isBlank()) {
      user = spark != null ? spark.sparkContext().sparkUser() : System.getProperty("user.name");
    }
    return Principal.of(user, groups);
  }

  private void createMissingLocalKeys() {
    try (Passphrase passphrase = passphrase(kms);
        KeyService keys = LocalKeyService.open(Path.of(kms.keystore()), passphrase, true)) {
      java.util.Set<String> present =
          keys.listKeys().stream().map(k -> k.id()).collect(Collectors.toSet());
      for (String keyId : policy.keyIds()) {
        if (!present.contains(keyId)) {
          keys.createKey(keyId);
        }
      }
    }
  }

  static Passphrase passphrase(KmsSettings kms) {
    return kms.passphraseEnv() != null
        ? Passphrase.fromEnv(kms.passphraseEnv())
        : Passphrase.fromFile(Path.of(kms.passphraseFile()));
  }

  private static KmsSettings kmsSettings(String catalogName, Map<String, String> options) {
    String type = options.getOrDefault(KMS_TYPE, "local").trim().toLowerCase(Locale.ROOT);
    switch (type) {
      case "local":
        return KmsSettings.builder(KmsSettings.Type.LOCAL)
            .keystore(options.get(KMS_KEYSTORE))
            .passphraseEnv(options.get(KMS_PASSPHRASE_ENV))
            .passphraseFile(options.get(KMS_PASSPHRASE_FILE))
            .createMissingKeys(Boolean.parseBoolean(options.getOrDefault(KMS_CREATE_MISSING_KEYS, "false")))
            .build();
      case "remote":
        if (Boolean.parseBoolean(options.getOrDefault(KMS_CREATE_MISSING_KEYS, "false"))) {
          throw new IllegalArgumentException(
              KMS_CREATE_MISSING_KEYS + " applies to the local key service only (catalog '"
                  + catalogName + "' uses remote)");
        }
        return KmsSettings.builder(KmsSettings.Type.REMOTE)
            .url(options.get(KMS_URL))
            .token(token(options))
            .trustStore(options.get(KMS_TRUST_STORE))
            .trustStorePasswordEnv(options.get(KMS_TRUST_STORE_PASSWORD_ENV))
            .allowInsecureHttp(Boolean.parseBoolean(options.getOrDefault(KMS_ALLOW_INSECURE_HTTP, "false")))
            .build();
      default:
        throw new IllegalArgumentException(
            String.format(
                "Catalog '%s': unknown %s '%s' (expected local or remote)",
                catalogName, KMS_TYPE, type));
    }
  }

  private static String token(Map<String, String> options) {
    if (options.get(TOKEN) != null) {
      return options.get(TOKEN).trim();
    }
    if (options.get(TOKEN_FILE) != null) {
      Path file = Path.of(options.get(TOKEN_FILE));
      try {
        return Files.readString(file, StandardCharsets.UTF_8).trim();
      } catch (IOException e) {
        throw new UncheckedIOException("Cannot read " + TOKEN_FILE + " " + file, e);
      }
    }
    String var = options.getOrDefault(TOKEN_ENV, "PROTECTOR_TOKEN");
    String value = System.getenv(var);
    return value == null ? null : value.trim();
  }

  private static List<String> splitGroups(String text) {
    if (text == null || text.isBlank()) {
      return List.of();
    }
    return Arrays.stream(text.split(","))
        .map(String::trim)
        .filter(s -> !s.isEmpty())
        .collect(Collectors.toList());
  }

  private static String readPolicy(String location) {
    String lower = location.toLowerCase(Locale.ROOT);
    try {
      if (lower.startsWith("http:") || lower.startsWith("https:") || lower.startsWith("file:")) {
        try (InputStream in = new URL(location).openStream()) {
          return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
      }
      Path path = Path.of(location);
      if (!Files.isRegularFile(path)) {
        throw new PolicyException(location, -1, "protector.policy", "policy file not found");
      }
      return Files.readString(path, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read policy " + location + ": " + e.getMessage(), e);
    }
  }
}
