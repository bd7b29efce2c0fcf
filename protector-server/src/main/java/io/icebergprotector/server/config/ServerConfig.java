/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.server.config;

import static io.icebergprotector.policy.Preconditions.checkArgument;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigException;
import com.typesafe.config.ConfigFactory;
import com.typesafe.config.ConfigParseOptions;
import io.icebergprotector.kms.KmsSettings;
import io.icebergprotector.kms.SecretRef;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * The server's HOCON configuration (see {@code conf/server.conf}), read from the {@code
 * protector-server} block. Relative paths are resolved against the directory of the config file.
 * Validation errors are {@link IllegalArgumentException}s naming the file and the setting.
 */
public final class ServerConfig {
  static final String ROOT = "protector-server";

  // The settings of the `keys` block, named as the catalog's protector.kms.* options.
  private static final String KMS_PREFIX = "protector.kms.";
  private static final List<String> KEY_SETTINGS =
      List.of(
          "type",
          "keystore",
          "passphrase-env",
          "passphrase-file",
          "pkcs11-library",
          "token-label",
          "slot",
          "slot-list-index",
          "pin-env",
          "pin-file");
  private static final Set<String> KEY_PATHS =
      Set.of("keystore", "passphrase-file", "pkcs11-library", "pin-file");

  public record TokenEntry(String name, byte[] sha256, String principal, List<String> groups) {
    public TokenEntry {
      sha256 = sha256.clone();
      groups = List.copyOf(groups);
    }

    @Override
    public byte[] sha256() {
      return sha256.clone();
    }

    @Override
    public String toString() {
      return "TokenEntry{" + name + " -> " + principal + groups + "}"; // never the hash
    }
  }

  public record JwtSettings(
      String issuer,
      Set<String> audiences,
      SecretRef hs256Secret,
      Path jwksFile,
      JwksUrl jwksUrl,
      String principalClaim,
      String groupsClaim,
      Duration clockSkew) {}

  /**
   * An identity provider's JWKS endpoint: its keys are cached for {@code cacheLifetime}, and a
   * token signed by a key the cache lacks makes the server fetch the set again, at most once per
   * {@code minRefreshInterval} (the provider rotated its signing key).
   */
  public record JwksUrl(URI uri, Duration cacheLifetime, Duration minRefreshInterval) {}

  /** At most {@code requests} requests per {@code period} for each authenticated caller. */
  public record RateLimit(int requests, Duration period) {
    public boolean enabled() {
      return requests > 0;
    }
  }

  public enum AuditSync {
    NONE,
    FLUSH,
    FSYNC
  }

  private final Path origin;
  private final String host;
  private final int port;
  private final boolean allowInsecureHttp;
  private final Path tlsKeystore;
  private final String tlsKeystoreType;
  private final SecretRef tlsPassword;

  /** A trusted runtime's credential: a name for the audit, the hex SHA-256 of the credential. */
  public record RuntimeEntry(String name, byte[] sha256) {
    public RuntimeEntry {
      sha256 = sha256.clone();
    }

    @Override
    public byte[] sha256() {
      return sha256.clone();
    }

    @Override
    public String toString() {
      return "RuntimeEntry{" + name + "}"; // never the hash
    }
  }

  private final List<String> tlsProtocols;
  private final KmsSettings keyService;
  private final boolean createKeystore;
  private final boolean autoCreateKeys;
  private final Path policy;
  private final Duration policyReloadInterval;
  private final List<TokenEntry> tokens;
  private final JwtSettings jwt;
  private final List<RuntimeEntry> runtimeTokens;
  private final String runtimeJwtAudience;
  private final boolean releaseMaskKeysToPrincipals;
  private final Set<String> adminRoles;
  private final Path auditFile;
  private final AuditSync auditSync;
  private final long maxBodyBytes;
  private final int workerThreads;
  private final int queueSize;
  private final long maxHeaderBytes;
  private final Duration idleTimeout;
  private final RateLimit rateLimit;
  private final int maxConnections;
  private final int maxBatchValues;
  private final long maxBatchBodyBytes;
  private final boolean metricsRequireAuth;

  /** The defaults: {@code reference.conf} of the server jar. */
  private static Config reference() {
    return ConfigFactory.parseResources(ServerConfig.class.getClassLoader(), "reference.conf")
        .resolve();
  }

  private ServerConfig(Config given, Path origin) {
    this.origin = origin;
    Path base =
        origin == null || origin.toAbsolutePath().getParent() == null
            ? Path.of("").toAbsolutePath()
            : origin.toAbsolutePath().getParent();
    checkRemovedTokenSetting(given.getConfig(ROOT));
    Config c = given.getConfig(ROOT).withFallback(reference().getConfig(ROOT));

    host = c.getString("bind.host");
    port = c.getInt("bind.port");
    if (port < 0 || port > 65535) {
      throw bad("bind.port", "must be 0..65535, got " + port);
    }
    allowInsecureHttp = c.getBoolean("allow-insecure-http");

    tlsKeystore = optionalPath(c, "tls.keystore", base);
    tlsKeystoreType = c.getString("tls.keystore-type");
    tlsPassword = secret(c, "tls.password", base, tlsKeystore != null && !allowInsecureHttp, "");
    tlsProtocols = List.copyOf(c.getStringList("tls.protocols"));
    if (!allowInsecureHttp && tlsKeystore == null) {
      throw bad(
          "tls.keystore",
          "is required: the server speaks HTTPS only (plain HTTP needs "
              + "allow-insecure-http = true and a loopback bind.host)");
    }

    keyService = keyService(c, base);
    createKeystore = c.getBoolean("keys.create-if-missing");
    if (createKeystore && keyService.type() != KmsSettings.Type.LOCAL) {
      throw bad(
          "keys.create-if-missing",
          "applies to type = local only (a PKCS#11 token is initialized"
              + " with its own tools, e.g. softhsm2-util --init-token)");
    }
    autoCreateKeys = c.getBoolean("keys.auto-create");

    policy = requiredPath(c, "policy", base);
    policyReloadInterval = c.getDuration("policy-reload-interval");
    if (!policyReloadInterval.isZero()
        && (policyReloadInterval.toMillis() < 100
            || policyReloadInterval.compareTo(Duration.ofMinutes(10)) > 0)) {
      throw bad(
          "policy-reload-interval",
          "must be 0 (never reload) or between 100ms and 10m, got " + policyReloadInterval);
    }

    List<TokenEntry> entries = new ArrayList<>();
    {
      List<? extends Config> list = c.getConfigList("auth.tokens");
      Set<String> names = new LinkedHashSet<>();
      for (int i = 0; i < list.size(); i++) {
        Config t = list.get(i);
        String where = "auth.tokens[" + i + "]";
        String name = t.hasPath("name") ? t.getString("name") : "token-" + i;
        if (!names.add(name)) {
          throw bad(where + ".name", "duplicate token name '" + name + "'");
        }
        if (!t.hasPath("sha256")) {
          throw bad(
              where + ".sha256",
              "is required (hex SHA-256 of the token; see `protector-server new-token`)");
        }
        String hex = t.getString("sha256").trim().toLowerCase(Locale.ROOT);
        if (!hex.matches("[0-9a-f]{64}")) {
          throw bad(where + ".sha256", "of token '" + name + "' must be 64 hex characters");
        }
        if (!t.hasPath("principal") || t.getString("principal").isBlank()) {
          throw bad(where + ".principal", "is required for token '" + name + "'");
        }
        List<String> groups = t.hasPath("groups") ? t.getStringList("groups") : List.of();
        entries.add(
            new TokenEntry(name, HexFormat.of().parseHex(hex), t.getString("principal"), groups));
      }
    }
    tokens = List.copyOf(entries);

    // On when the server config has an auth.jwt block, unless it says enabled = false.
    if (c.hasPath("auth.jwt")
        && (!c.hasPath("auth.jwt.enabled") || c.getBoolean("auth.jwt.enabled"))) {
      Config j = c.getConfig("auth.jwt").withFallback(c.getConfig("auth.jwt-defaults"));
      if (!j.hasPath("issuer") || j.getString("issuer").isBlank()) {
        throw bad("auth.jwt.issuer", "is required when JWT authentication is enabled");
      }
      Set<String> audiences =
          new LinkedHashSet<>(j.hasPath("audience") ? j.getStringList("audience") : List.of());
      if (audiences.isEmpty()) {
        throw bad(
            "auth.jwt.audience",
            "must list at least one accepted audience when JWT authentication is enabled");
      }
      SecretRef secret = secret(j, "hs256-secret", base, false, "auth.jwt.");
      Path jwks = optionalPath(j, "jwks-file", base);
      JwksUrl jwksUrl = jwksUrl(j);
      if (secret == null && jwks == null && jwksUrl == null) {
        throw bad("auth.jwt", "needs hs256-secret-env, hs256-secret-file, jwks-file or jwks-url");
      }
      jwt =
          new JwtSettings(
              j.getString("issuer"),
              Set.copyOf(audiences),
              secret,
              jwks,
              jwksUrl,
              j.getString("principal-claim"),
              j.getString("groups-claim"),
              j.getDuration("clock-skew"));
    } else {
      jwt = null;
    }
    if (tokens.isEmpty() && jwt == null) {
      throw bad(
          "auth", "configures no tokens and no JWT verification: nobody could use the server");
    }

    runtimeTokens = runtimeTokens(c, entries);
    runtimeJwtAudience =
        c.hasPath("auth.runtimes.jwt-audience")
            ? c.getString("auth.runtimes.jwt-audience").strip()
            : null;
    if (runtimeJwtAudience != null) {
      if (runtimeJwtAudience.isEmpty()) {
        throw bad("auth.runtimes.jwt-audience", "must not be empty");
      }
      if (jwt == null) {
        throw bad(
            "auth.runtimes.jwt-audience",
            "needs auth.jwt: runtime JWTs are verified with its issuer and keys");
      }
      if (jwt.audiences().contains(runtimeJwtAudience)) {
        throw bad(
            "auth.runtimes.jwt-audience",
            "'"
                + runtimeJwtAudience
                + "' is also in auth.jwt.audience: every user's token would be a runtime's");
      }
    }
    releaseMaskKeysToPrincipals = c.getBoolean("auth.release-mask-keys-to-principals");

    adminRoles = Set.copyOf(c.getStringList("admin-roles"));

    auditFile = requiredPath(c, "audit.file", base);
    String sync = c.getString("audit.sync");
    try {
      auditSync = AuditSync.valueOf(sync.trim().toUpperCase(Locale.ROOT));
    } catch (IllegalArgumentException e) {
      throw bad("audit.sync", "must be none, flush or fsync, got '" + sync + "'");
    }

    maxBodyBytes = c.getBytes("limits.max-body-size");
    if (maxBodyBytes < 256 || maxBodyBytes > 64L * 1024 * 1024) {
      throw bad(
          "limits.max-body-size", "must be between 256 bytes and 64 MiB, got " + maxBodyBytes);
    }
    int threads = c.getInt("limits.worker-threads");
    if (threads < 0 || threads > 1024) {
      throw bad(
          "limits.worker-threads", "must be 1..1024 (0: 2 x cores, at least 4), got " + threads);
    }
    workerThreads =
        threads == 0 ? Math.max(4, 2 * Runtime.getRuntime().availableProcessors()) : threads;
    queueSize = c.getInt("limits.queue-size");
    if (queueSize < 1) {
      throw bad("limits.queue-size", "must be >= 1, got " + queueSize);
    }
    maxHeaderBytes = c.getBytes("limits.max-header-size");
    if (maxHeaderBytes < 1024 || maxHeaderBytes > 1024 * 1024) {
      throw bad("limits.max-header-size", "must be between 1k and 1m bytes, got " + maxHeaderBytes);
    }
    int rateRequests = c.getInt("limits.rate.requests");
    Duration ratePeriod = c.getDuration("limits.rate.period");
    if (rateRequests < 0) {
      throw bad("limits.rate.requests", "must be >= 0 (0: no limit), got " + rateRequests);
    }
    if (ratePeriod.toMillis() < 1 || ratePeriod.compareTo(Duration.ofHours(1)) > 0) {
      throw bad("limits.rate.period", "must be between 1ms and 1h, got " + ratePeriod);
    }
    rateLimit = new RateLimit(rateRequests, ratePeriod);
    idleTimeout = c.getDuration("limits.idle-timeout");
    if (idleTimeout.toMillis() < 100 || idleTimeout.compareTo(Duration.ofHours(1)) > 0) {
      throw bad("limits.idle-timeout", "must be between 100ms and 1h, got " + idleTimeout);
    }
    maxConnections = c.getInt("limits.max-connections");
    if (maxConnections < 1) {
      throw bad("limits.max-connections", "must be >= 1, got " + maxConnections);
    }
    maxBatchValues = c.getInt("limits.max-batch-values");
    if (maxBatchValues < 1 || maxBatchValues > 1_000_000) {
      throw bad("limits.max-batch-values", "must be 1..1000000, got " + maxBatchValues);
    }
    maxBatchBodyBytes = c.getBytes("limits.max-batch-body-size");
    if (maxBatchBodyBytes < maxBodyBytes || maxBatchBodyBytes > 256L * 1024 * 1024) {
      throw bad(
          "limits.max-batch-body-size",
          "must be between limits.max-body-size ("
              + maxBodyBytes
              + " bytes) and 256 MiB, got "
              + maxBatchBodyBytes);
    }
    metricsRequireAuth = c.getBoolean("metrics.require-auth");
  }

  /**
   * {@code tokens.release-keys-to-masked} is gone: a token key detokenizes its whole domain, so the
   * server releases it to clear readers only. {@code false} states what the server does now and is
   * accepted; {@code true} asks for what it no longer does and is refused, so that nobody believes
   * masked readers still get the key.
   */
  private void checkRemovedTokenSetting(Config given) {
    String key = "tokens.release-keys-to-masked";
    if (given.hasPath(key) && given.getBoolean(key)) {
      throw bad(
          key,
          "was removed: a token key detokenizes every token of its domain, so the key server"
              + " releases it only to principals who read the domain in clear; masked readers get"
              + " their mask from the decode endpoint (protector.kms.token-mode = server) or read"
              + " NULL in local token mode. Delete the setting");
    }
  }

  /** Reads and validates a config file; {@code ${?ENV}} substitutions are resolved. */
  public static ServerConfig load(Path file) {
    checkArgument(
        Files.isRegularFile(file), "Server config %s does not exist or is not a file", file);
    try {
      Config config =
          ConfigFactory.parseFile(
                  file.toFile(), ConfigParseOptions.defaults().setAllowMissing(false))
              .resolve();
      return fromConfig(config, file);
    } catch (ConfigException e) {
      throw new IllegalArgumentException("Server config " + file + ": " + e.getMessage(), e);
    }
  }

  /** For tests: parses HOCON text; relative paths resolve against {@code baseFile}'s directory. */
  public static ServerConfig parse(String hocon, Path baseFile) {
    try {
      return fromConfig(ConfigFactory.parseString(hocon).resolve(), baseFile);
    } catch (ConfigException e) {
      throw new IllegalArgumentException("Server config: " + e.getMessage(), e);
    }
  }

  private static ServerConfig fromConfig(Config config, Path origin) {
    checkArgument(
        config.hasPath(ROOT),
        "Server config %shas no '%s { ... }' block",
        (origin == null ? "" : origin + " "),
        ROOT);
    try {
      return new ServerConfig(config, origin);
    } catch (ConfigException e) {
      throw new IllegalArgumentException(
          "Server config " + (origin == null ? "" : origin + ": ") + e.getMessage(), e);
    }
  }

  private IllegalArgumentException bad(String key, String problem) {
    return new IllegalArgumentException(
        "Server config "
            + (origin == null ? "" : origin + ": ")
            + ROOT
            + "."
            + key
            + " "
            + problem);
  }

  private JwksUrl jwksUrl(Config j) {
    if (!j.hasPath("jwks-url") || j.getString("jwks-url").isBlank()) {
      return null;
    }
    String text = j.getString("jwks-url").strip();
    URI uri;
    try {
      uri = new URI(text);
    } catch (URISyntaxException e) {
      throw bad("auth.jwt.jwks-url", "is not a URL: '" + text + "'");
    }
    String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
    if (uri.getHost() == null || !(scheme.equals("https") || scheme.equals("http"))) {
      throw bad("auth.jwt.jwks-url", "must be an https:// URL with a host, got '" + text + "'");
    }
    if (scheme.equals("http") && !isLoopback(uri.getHost())) {
      // keys fetched in clear could be swapped on the way: only a provider on this host may
      throw bad(
          "auth.jwt.jwks-url",
          "must use https unless the provider is on loopback, got '" + text + "'");
    }
    Duration lifetime = j.getDuration("jwks-cache-lifetime");
    Duration minRefresh = j.getDuration("jwks-min-refresh-interval");
    if (lifetime.toSeconds() < 1 || lifetime.compareTo(Duration.ofDays(1)) > 0) {
      throw bad("auth.jwt.jwks-cache-lifetime", "must be between 1s and 1d, got " + lifetime);
    }
    if (minRefresh.isNegative() || minRefresh.compareTo(lifetime) > 0) {
      throw bad(
          "auth.jwt.jwks-min-refresh-interval",
          "must be between 0s and jwks-cache-lifetime (" + lifetime + "), got " + minRefresh);
    }
    return new JwksUrl(uri, lifetime, minRefresh);
  }

  private static boolean isLoopback(String host) {
    String h = host.startsWith("[") ? host.substring(1, host.length() - 1) : host;
    return h.equalsIgnoreCase("localhost") || h.equals("::1") || h.startsWith("127.");
  }

  private static Path optionalPath(Config c, String key, Path base) {
    if (!c.hasPath(key) || c.getString(key).isBlank()) {
      return null;
    }
    return base.resolve(c.getString(key)).normalize();
  }

  private Path requiredPath(Config c, String key, Path base) {
    Path p = optionalPath(c, key, base);
    if (p == null) {
      throw bad(key, "is required");
    }
    return p;
  }

  /**
   * The secret {@code <prefix>-env} or {@code <prefix>-file} names (a relative file against the
   * config's directory). Inline secrets are refused: they would sit in the config file.
   */
  private SecretRef secret(
      Config c, String prefix, Path base, boolean required, String shownPrefix) {
    String envKey = prefix + "-env";
    String fileKey = prefix + "-file";
    if (c.hasPath(prefix)) {
      throw bad(
          shownPrefix + prefix, "must not hold a secret inline; use " + envKey + " or " + fileKey);
    }
    Map<String, String> options = new HashMap<>();
    if (c.hasPath(envKey) && !c.getString(envKey).isBlank()) {
      options.put(envKey, c.getString(envKey));
    }
    if (c.hasPath(fileKey) && !c.getString(fileKey).isBlank()) {
      options.put(fileKey, base.resolve(c.getString(fileKey)).normalize().toString());
    }
    SecretRef ref;
    try {
      ref = SecretRef.choose(options, null, fileKey, envKey, null);
    } catch (IllegalArgumentException e) {
      throw bad(shownPrefix + prefix, "set only one of " + envKey + " and " + fileKey);
    }
    if (ref == null && required) {
      throw bad(shownPrefix + prefix, "needs " + envKey + " or " + fileKey);
    }
    return ref;
  }

  /**
   * The key backend of the {@code keys} block. Its settings have the names of the catalog's {@code
   * protector.kms.*} options, so {@link KmsSettings#fromOptions} reads them, and its messages name
   * them as this file does.
   */
  private KmsSettings keyService(Config c, Path base) {
    for (String inline : List.of("passphrase", "pin")) {
      if (c.hasPath("keys." + inline)) {
        throw bad(
            "keys." + inline,
            "must not hold a secret inline; use " + inline + "-env or " + inline + "-file");
      }
    }
    Map<String, String> options = new HashMap<>();
    for (String name : KEY_SETTINGS) {
      String key = "keys." + name;
      if (c.hasPath(key) && !c.getString(key).isBlank()) {
        String value = c.getString(key).trim();
        options.put(
            KMS_PREFIX + name,
            KEY_PATHS.contains(name) ? base.resolve(value).normalize().toString() : value);
      }
    }
    String type = options.getOrDefault(KMS_PREFIX + "type", "local").toLowerCase(Locale.ROOT);
    if (!type.equals("local") && !type.equals("pkcs11")) {
      throw bad("keys.type", "must be local or pkcs11, got '" + type + "'");
    }
    String owner = "Server config" + (origin == null ? "" : " " + origin);
    try {
      return KmsSettings.fromOptions(options, owner);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(e.getMessage().replace(KMS_PREFIX, ROOT + ".keys."), e);
    }
  }

  public Path origin() {
    return origin;
  }

  public String host() {
    return host;
  }

  public int port() {
    return port;
  }

  public boolean allowInsecureHttp() {
    return allowInsecureHttp;
  }

  public Path tlsKeystore() {
    return tlsKeystore;
  }

  public String tlsKeystoreType() {
    return tlsKeystoreType;
  }

  public SecretRef tlsPassword() {
    return tlsPassword;
  }

  public List<String> tlsProtocols() {
    return tlsProtocols;
  }

  /** The key backend: a local keystore or a PKCS#11 token. */
  public KmsSettings keyService() {
    return keyService;
  }

  public boolean createKeystore() {
    return createKeystore;
  }

  public boolean autoCreateKeys() {
    return autoCreateKeys;
  }

  public Path policy() {
    return policy;
  }

  /** How often the policy file is checked for changes; zero: read once at start. */
  public Duration policyReloadInterval() {
    return policyReloadInterval;
  }

  public List<TokenEntry> tokens() {
    return tokens;
  }

  /** Null when JWT authentication is off. */
  public JwtSettings jwt() {
    return jwt;
  }

  /** {@code auth.runtimes.tokens}: the credentials of trusted runtimes. */
  public List<RuntimeEntry> runtimeTokens() {
    return runtimeTokens;
  }

  /** {@code auth.runtimes.jwt-audience}: the audience of runtime JWTs, or null. */
  public String runtimeJwtAudience() {
    return runtimeJwtAudience;
  }

  /**
   * {@code auth.release-mask-keys-to-principals}: whether a principal's own token also gets the
   * keys it uses only to mask (single-user clusters), instead of only a trusted runtime acting for
   * it.
   */
  public boolean releaseMaskKeysToPrincipals() {
    return releaseMaskKeysToPrincipals;
  }

  private List<RuntimeEntry> runtimeTokens(Config c, List<TokenEntry> userTokens) {
    List<RuntimeEntry> out = new ArrayList<>();
    List<? extends Config> list = c.getConfigList("auth.runtimes.tokens");
    Set<String> names = new LinkedHashSet<>();
    for (int i = 0; i < list.size(); i++) {
      Config t = list.get(i);
      String where = "auth.runtimes.tokens[" + i + "]";
      if (!t.hasPath("name") || t.getString("name").isBlank()) {
        throw bad(where + ".name", "is required: the audit names the runtime by it");
      }
      String name = t.getString("name");
      if (!names.add(name)) {
        throw bad(where + ".name", "duplicate runtime name '" + name + "'");
      }
      if (t.hasPath("principal")) {
        throw bad(
            where + ".principal",
            "is not a runtime setting: a runtime acts for the principal whose token each request"
                + " carries");
      }
      if (!t.hasPath("sha256")) {
        throw bad(
            where + ".sha256",
            "is required (hex SHA-256 of the credential; see `protector-server new-token`)");
      }
      String hex = t.getString("sha256").trim().toLowerCase(Locale.ROOT);
      if (!hex.matches("[0-9a-f]{64}")) {
        throw bad(where + ".sha256", "of runtime '" + name + "' must be 64 hex characters");
      }
      byte[] hash = HexFormat.of().parseHex(hex);
      for (TokenEntry user : userTokens) {
        if (java.security.MessageDigest.isEqual(hash, user.sha256())) {
          throw bad(
              where + ".sha256",
              "of runtime '"
                  + name
                  + "' is also the token of principal '"
                  + user.principal()
                  + "' (auth.tokens): a runtime credential must never be a user's");
        }
      }
      out.add(new RuntimeEntry(name, hash));
    }
    return List.copyOf(out);
  }

  public Set<String> adminRoles() {
    return adminRoles;
  }

  public Path auditFile() {
    return auditFile;
  }

  public AuditSync auditSync() {
    return auditSync;
  }

  public long maxBodyBytes() {
    return maxBodyBytes;
  }

  public int workerThreads() {
    return workerThreads;
  }

  public int queueSize() {
    return queueSize;
  }

  /** The largest request line plus headers accepted (431 above it). */
  public int maxHeaderBytes() {
    return (int) maxHeaderBytes;
  }

  /**
   * How long a connection may sit without progress (idle between requests, or stalled in the middle
   * of one) before the server closes it.
   */
  /** The per-caller request limit ({@code limits.rate}); disabled when requests is 0. */
  public RateLimit rateLimit() {
    return rateLimit;
  }

  public Duration idleTimeout() {
    return idleTimeout;
  }

  /** Open connections at most; further clients wait in the OS's accept queue. */
  public int maxConnections() {
    return maxConnections;
  }

  /** The most values one token batch (encode or decode) may carry; more get 413. */
  public int maxBatchValues() {
    return maxBatchValues;
  }

  /** The largest request body of the token batch endpoints (encode, decode); larger get 413. */
  public long maxBatchBodyBytes() {
    return maxBatchBodyBytes;
  }

  public boolean metricsRequireAuth() {
    return metricsRequireAuth;
  }
}
