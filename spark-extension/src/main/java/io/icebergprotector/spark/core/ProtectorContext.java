package io.icebergprotector.spark.core;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import io.icebergprotector.kms.KeyScope;
import io.icebergprotector.kms.KeyService;
import io.icebergprotector.kms.KeyServices;
import io.icebergprotector.kms.KmsSettings;
import io.icebergprotector.kms.remote.RemoteKeyService;
import io.icebergprotector.kms.remote.WhoAmI;
import io.icebergprotector.policy.Policy;
import io.icebergprotector.policy.PolicyException;
import io.icebergprotector.policy.Principal;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.apache.spark.sql.SparkSession;

/**
 * The protector settings of one catalog: its policy, its key service and how it names the
 * principal. Built once from the catalog options on the driver (one per catalog per session).
 */
public final class ProtectorContext {
  public static final String POLICY = "protector.policy";
  public static final String KMS_TYPE = KmsSettings.TYPE;
  public static final String KMS_KEYSTORE = KmsSettings.KEYSTORE;
  public static final String KMS_PASSPHRASE_ENV = KmsSettings.PASSPHRASE_ENV;
  public static final String KMS_PASSPHRASE_FILE = KmsSettings.PASSPHRASE_FILE;
  public static final String KMS_CREATE_MISSING_KEYS = KmsSettings.CREATE_MISSING_KEYS;
  public static final String KMS_URL = KmsSettings.URL;
  public static final String KMS_TRUST_STORE = KmsSettings.TRUST_STORE;
  public static final String KMS_TRUST_STORE_PASSWORD_ENV = KmsSettings.TRUST_STORE_PASSWORD_ENV;
  public static final String KMS_ALLOW_INSECURE_HTTP = KmsSettings.ALLOW_INSECURE_HTTP;
  public static final String TOKEN = KmsSettings.TOKEN;
  public static final String TOKEN_FILE = KmsSettings.TOKEN_FILE;
  public static final String TOKEN_ENV = KmsSettings.TOKEN_ENV;
  public static final String USER = "protector.user";
  public static final String GROUPS = "protector.groups";

  /** Every option this catalog understands, for documentation checks. */
  public static final List<String> OPTIONS =
      List.of(
          POLICY,
          KMS_TYPE,
          KMS_KEYSTORE,
          KMS_PASSPHRASE_ENV,
          KMS_PASSPHRASE_FILE,
          KMS_CREATE_MISSING_KEYS,
          KMS_URL,
          KMS_TRUST_STORE,
          KMS_TRUST_STORE_PASSWORD_ENV,
          KMS_ALLOW_INSECURE_HTTP,
          TOKEN,
          TOKEN_FILE,
          TOKEN_ENV,
          KmsSettings.PKCS11_LIBRARY,
          KmsSettings.TOKEN_LABEL,
          KmsSettings.SLOT,
          KmsSettings.SLOT_LIST_INDEX,
          KmsSettings.PIN_ENV,
          KmsSettings.PIN_FILE,
          USER,
          GROUPS);

  private static final int MAX_SCOPES = 256;

  private final Policy policy;
  private final KmsSettings kms;
  private final String configuredUser;
  private final List<String> configuredGroups;
  private final boolean remotePrincipal;
  // One scope per principal, so repeated scans of a session share Parquet's key caches.
  private final Cache<Principal, KeyScope> scopes =
      Caffeine.newBuilder().maximumSize(MAX_SCOPES).expireAfterAccess(Duration.ofHours(1)).build();

  private ProtectorContext(
      Policy policy, KmsSettings kms, String user, List<String> groups, boolean remotePrincipal) {
    this.policy = Objects.requireNonNull(policy, "policy");
    this.kms = Objects.requireNonNull(kms, "kms");
    this.configuredUser = user;
    this.configuredGroups = groups;
    this.remotePrincipal = remotePrincipal;
  }

  public static ProtectorContext of(Policy policy, KmsSettings kms) {
    return new ProtectorContext(policy, kms, null, List.of(), false);
  }

  /** Reads the catalog options; every missing or bad option fails with a message naming it. */
  public static ProtectorContext fromOptions(String catalogName, Map<String, String> options) {
    KmsSettings kms = KmsSettings.fromOptions(options, "Catalog '" + catalogName + "'");
    String location = options.get(POLICY);
    String user = options.get(USER);
    List<String> groups = splitGroups(options.get(GROUPS));
    String text;
    if (kms.type() == KmsSettings.Type.REMOTE) {
      // The server's view wins: the token decides who we are, and the server's policy is the
      // one it enforces.
      try (RemoteKeyService remote = KeyServices.openRemote(kms)) {
        WhoAmI whoami = remote.whoami();
        user = whoami.principal();
        groups = whoami.groups();
        if (location == null || location.isBlank()) {
          location = remote.url().resolve("/v1/protector/policy").toString();
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
    ProtectorContext context =
        new ProtectorContext(policy, kms, user, groups, kms.type() == KmsSettings.Type.REMOTE);
    if (kms.type() == KmsSettings.Type.LOCAL && kms.createMissingKeys()) {
      context.createMissingLocalKeys();
    }
    return context;
  }

  public Policy policy() {
    return policy;
  }

  public KmsSettings kms() {
    return kms;
  }

  /** Whether the key server names the principal (from the token), rather than the session. */
  public boolean remotePrincipal() {
    return remotePrincipal;
  }

  /** The key scope of {@code principal} with this catalog's key service and policy. */
  public KeyScope keyScope(Principal principal) {
    return scopes.get(principal, p -> KeyScope.of(kms, p, policy.digest()));
  }

  /**
   * The principal for reads and writes through catalog {@code catalogName}. A session may override
   * the catalog option with {@code spark.sql.catalog.<name>.protector.user} in its own conf, so
   * sessions from {@code spark.newSession()} can act as different users.
   */
  public Principal principal(SparkSession spark, String catalogName) {
    if (remotePrincipal) {
      return Principal.of(configuredUser, configuredGroups);
    }
    Function<String, String> sessionConf =
        spark == null ? key -> null : key -> spark.conf().get(key, null);
    String fallback =
        spark != null ? spark.sparkContext().sparkUser() : System.getProperty("user.name");
    return localPrincipal(sessionConf, catalogName, fallback);
  }

  /**
   * The local-mode principal as a session with these settings names it: the session's {@code
   * spark.sql.catalog.<name>.protector.user}/{@code .groups}, else the catalog options, else {@code
   * fallbackUser} (Spark's user). Executors evaluate it on the settings Spark propagates to each
   * task.
   */
  public Principal localPrincipal(
      Function<String, String> sessionConf, String catalogName, String fallbackUser) {
    return localPrincipal(sessionConf, catalogName, configuredUser, configuredGroups, fallbackUser);
  }

  static Principal localPrincipal(
      Function<String, String> sessionConf,
      String catalogName,
      String configuredUser,
      List<String> configuredGroups,
      String fallbackUser) {
    String prefix = "spark.sql.catalog." + catalogName + ".";
    String user = configuredUser;
    List<String> groups = configuredGroups;
    String sessionUser = sessionConf.apply(prefix + USER);
    if (sessionUser != null) {
      user = sessionUser;
    }
    String sessionGroups = sessionConf.apply(prefix + GROUPS);
    if (sessionGroups != null) {
      groups = splitGroups(sessionGroups);
    }
    if (user == null || user.isBlank()) {
      user = fallbackUser;
    }
    return Principal.of(user.trim(), groups);
  }

  /** How tasks of a scan or write for {@code principal} recognize their session's principal. */
  public PrincipalBinding binding(
      String catalogName, String table, Principal principal, String fallback) {
    return new PrincipalBinding(
        catalogName, table, principal, remotePrincipal, configuredUser, configuredGroups, fallback);
  }

  private void createMissingLocalKeys() {
    try (KeyService keys = KeyServices.open(kms, true)) {
      Set<String> present = keys.listKeys().stream().map(k -> k.id()).collect(Collectors.toSet());
      for (String keyId : policy.keyIds()) {
        if (!present.contains(keyId)) {
          keys.createKey(keyId);
        }
      }
    }
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
