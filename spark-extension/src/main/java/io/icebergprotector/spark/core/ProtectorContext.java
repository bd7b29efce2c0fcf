/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.spark.core;

import static io.icebergprotector.policy.Preconditions.checkArgument;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import io.icebergprotector.kms.KeyScope;
import io.icebergprotector.kms.KeyService;
import io.icebergprotector.kms.KeyServices;
import io.icebergprotector.kms.KmsSettings;
import io.icebergprotector.kms.remote.PolicyResponse;
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
import java.util.function.Supplier;
import java.util.stream.Collectors;
import org.apache.spark.sql.SparkSession;

/**
 * The protector settings of one catalog: its policy, its key service and how it names the
 * principal. Built once from the catalog options on the driver (one per catalog per session).
 */
public final class ProtectorContext {
  /**
   * Every catalog option, for documentation checks and the notebooks' test: the keys of {@link
   * CatalogOptions#CATALOG}.
   */
  public static final List<String> OPTIONS = CatalogOptions.keys(CatalogOptions.CATALOG);

  private static final int MAX_SCOPES = 256;

  private final Supplier<Policy> policy;
  private final KmsSettings kms;
  private final String configuredUser;
  private final List<String> configuredGroups;
  private final boolean remotePrincipal;
  // One scope per principal and policy, so repeated scans of a session share Parquet's key caches.
  private final Cache<ScopeKey, KeyScope> scopes =
      Caffeine.newBuilder().maximumSize(MAX_SCOPES).expireAfterAccess(Duration.ofHours(1)).build();

  private record ScopeKey(Principal principal, String policyDigest) {}

  private ProtectorContext(
      Supplier<Policy> policy,
      KmsSettings kms,
      String user,
      List<String> groups,
      boolean remotePrincipal) {
    this.policy = Objects.requireNonNull(policy, "policy");
    this.kms = Objects.requireNonNull(kms, "kms");
    this.configuredUser = user;
    this.configuredGroups = groups;
    this.remotePrincipal = remotePrincipal;
  }

  public static ProtectorContext of(Policy policy, KmsSettings kms) {
    Objects.requireNonNull(policy, "policy");
    return new ProtectorContext(() -> policy, kms, null, List.of(), false);
  }

  /** Reads the catalog options; every missing or bad option fails with a message naming it. */
  public static ProtectorContext fromOptions(String catalogName, Map<String, String> options) {
    KmsSettings kms = KmsSettings.fromOptions(options, "Catalog '" + catalogName + "'");
    String location = options.get(CatalogOptions.POLICY.key());
    String user = options.get(CatalogOptions.USER.key());
    List<String> groups = splitGroups(options.get(CatalogOptions.GROUPS.key()));
    if (kms.type() == KmsSettings.Type.REMOTE) {
      return fromServer(catalogName, options, kms, location);
    }
    checkArgument(
        location != null && !location.isBlank(),
        "Catalog '%s' has no %s option: set spark.sql.catalog.%s.%s to "
            + "the policy's path or URL",
        catalogName,
        CatalogOptions.POLICY.key(),
        catalogName,
        CatalogOptions.POLICY.key());
    Policy policy = Policy.parse(readPolicy(location), location);
    ProtectorContext context = new ProtectorContext(() -> policy, kms, user, groups, false);
    if (kms.createMissingKeys()) {
      context.createMissingLocalKeys();
    }
    return context;
  }

  /**
   * With a key server, the server names the principal (from the token) and the policy is the one
   * the server enforces, refreshed every {@link CatalogOptions#POLICY_REFRESH_SECONDS}. A local
   * {@code protector.policy} is only checked: it must state the server's rules (equal content
   * digests), otherwise the catalog refuses to start, naming both digests.
   */
  private static ProtectorContext fromServer(
      String catalogName, Map<String, String> options, KmsSettings kms, String location) {
    int refreshSeconds =
        policyRefreshSeconds(catalogName, options.get(CatalogOptions.POLICY_REFRESH_SECONDS.key()));
    WhoAmI whoami;
    PolicyResponse served;
    String server;
    String origin;
    try (RemoteKeyService remote = KeyServices.openRemote(kms)) {
      whoami = remote.whoami();
      served = remote.fetchPolicy(null);
      server = remote.url().toString();
      origin = remote.url().resolve("/v1/protector/policy").toString();
    }
    if (location != null && !location.isBlank()) {
      Policy local = Policy.parse(readPolicy(location), location);
      checkArgument(
          served.digest() != null && served.digest().equals(local.contentDigest()),
          "Cannot start catalog '%s': its %s %s (content digest %s) is "
              + "not the policy the key server at %s enforces (content digest "
              + "%s). Remove the option to use the server's policy, or deploy "
              + "the same policy to both",
          catalogName,
          CatalogOptions.POLICY.key(),
          location,
          local.contentDigest(),
          server,
          served.digest() == null ? "not sent by the server" : served.digest());
    }
    ServerPolicy policy =
        new ServerPolicy(
            catalogName, kms, origin, served, Duration.ofSeconds(refreshSeconds), System::nanoTime);
    return new ProtectorContext(policy::current, kms, whoami.principal(), whoami.groups(), true);
  }

  private static int policyRefreshSeconds(String catalogName, String text) {
    if (text == null || text.isBlank()) {
      return CatalogOptions.DEFAULT_POLICY_REFRESH_SECONDS;
    }
    int seconds;
    try {
      seconds = Integer.parseInt(text.trim());
    } catch (NumberFormatException e) {
      seconds = -1;
    }
    checkArgument(
        seconds >= 1 && seconds <= CatalogOptions.MAX_POLICY_REFRESH_SECONDS,
        "Catalog '%s': %s must be a whole number of seconds from 1 to %s, got '%s'",
        catalogName,
        CatalogOptions.POLICY_REFRESH_SECONDS.key(),
        CatalogOptions.MAX_POLICY_REFRESH_SECONDS,
        text.trim());
    return seconds;
  }

  /**
   * The policy now. With a key server it may change between two calls (a refresh), so code that
   * makes several decisions for one query takes it once and keeps it.
   */
  public Policy policy() {
    return policy.get();
  }

  public KmsSettings kms() {
    return kms;
  }

  /** Whether the key server names the principal (from the token), rather than the session. */
  public boolean remotePrincipal() {
    return remotePrincipal;
  }

  /** The key scope of {@code principal} with this catalog's key service and {@code policy}. */
  public KeyScope keyScope(Principal principal, Policy policy) {
    return scopes.get(
        new ScopeKey(principal, policy.digest()),
        k -> KeyScope.of(kms, principal, policy.digest()));
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
    String sessionUser = sessionConf.apply(prefix + CatalogOptions.USER.key());
    if (sessionUser != null) {
      user = sessionUser;
    }
    String sessionGroups = sessionConf.apply(prefix + CatalogOptions.GROUPS.key());
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
        catalogName,
        table,
        "a plan over protected table " + table,
        principal,
        remotePrincipal,
        configuredUser,
        configuredGroups,
        fallback);
  }

  /**
   * How the tasks of a token function call ({@code protect}/{@code unprotect}) bound to {@code
   * principal} recognize that principal; {@code call} names the call for messages.
   */
  public PrincipalBinding callBinding(
      String catalogName, String call, Principal principal, String fallback) {
    return new PrincipalBinding(
        catalogName,
        call,
        "a plan calling " + call,
        principal,
        remotePrincipal,
        configuredUser,
        configuredGroups,
        fallback);
  }

  private void createMissingLocalKeys() {
    try (KeyService keys = KeyServices.open(kms, true)) {
      Set<String> present = keys.listKeys().stream().map(k -> k.id()).collect(Collectors.toSet());
      for (String keyId : policy().keyIds()) {
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
        throw new PolicyException(
            location, -1, CatalogOptions.POLICY.key(), "policy file not found");
      }
      return Files.readString(path, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read policy " + location + ": " + e.getMessage(), e);
    }
  }
}
