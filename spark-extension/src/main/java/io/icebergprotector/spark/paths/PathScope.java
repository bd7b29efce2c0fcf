/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.spark.paths;

import io.icebergprotector.kms.KeyScope;
import io.icebergprotector.kms.KmsOptions;
import io.icebergprotector.kms.KmsSettings;
import io.icebergprotector.policy.Locations;
import io.icebergprotector.policy.Policy;
import io.icebergprotector.policy.Principal;
import io.icebergprotector.policy.TablePolicy;
import io.icebergprotector.spark.compat.ScalaCollections;
import io.icebergprotector.spark.core.CatalogOptions;
import io.icebergprotector.spark.core.ProtectorContext;
import io.icebergprotector.spark.core.ProtectorException;
import io.icebergprotector.spark.crypto.KeyServiceRegistry;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.Collections;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.security.UserGroupInformation;
import org.apache.spark.sql.SparkSession;

/**
 * The protector settings of a Spark session for plain Parquet paths: the policy, the key service
 * and the principal, read from {@code spark.protector.*} (the catalog option names with a {@code
 * spark.} prefix). The same settings reach executors because Spark copies the session's SQL conf
 * into each job's Hadoop configuration; driver and executors therefore agree on the principal.
 */
public final class PathScope {
  /** Session settings are the catalog options ({@code protector.*}) with this prefix. */
  public static final String SESSION_PREFIX = CatalogOptions.SESSION_PREFIX;

  /** Every session setting, for documentation checks: {@link CatalogOptions#PATH_SESSION}. */
  public static final List<String> SETTINGS = CatalogOptions.keys(CatalogOptions.PATH_SESSION);

  private static final String OPTION_PREFIX = "protector.";
  private static final String ORIGIN = "spark.protector.* session settings";
  // Policy edits are picked up within this time (the policy is read again, not on every file).
  private static final long REFRESH_NANOS = TimeUnit.SECONDS.toNanos(60);
  private static final Map<String, Loaded> CONTEXTS = new ConcurrentHashMap<>();

  private final ProtectorContext context;
  private final Principal principal;
  private final Set<String> roles;
  private final KeyScope keyScope;
  // Taken once: a key server's policy may be refreshed while this scope decides.
  private final Policy policy;
  private final boolean acceptPlaintextFiles;
  private final CanonicalLocations canonical;

  private PathScope(
      ProtectorContext context,
      Principal principal,
      boolean acceptPlaintextFiles,
      Supplier<Configuration> hadoopConf) {
    this.context = context;
    this.principal = principal;
    this.policy = context.policy();
    this.roles = policy.rolesOf(principal);
    this.keyScope = context.keyScope(principal, policy);
    this.acceptPlaintextFiles = acceptPlaintextFiles;
    this.canonical = new CanonicalLocations(hadoopConf);
  }

  /** The session's settings (driver side); empty when the session sets no protector policy. */
  public static Optional<PathScope> fromSession(SparkSession session) {
    Map<String, String> all = ScalaCollections.asJava(session.conf().getAll());
    return of(
        options(all, SESSION_PREFIX + OPTION_PREFIX, null),
        true,
        memoized(() -> session.sessionState().newHadoopConf()));
  }

  /**
   * The settings in a Hadoop configuration: {@code spark.protector.*} (what Spark copies from the
   * session), else {@code protector.*} (standalone parquet-mr). Never creates keys.
   */
  public static Optional<PathScope> fromHadoop(Configuration conf) {
    Map<String, String> spark = conf.getPropsWithPrefix(SESSION_PREFIX + OPTION_PREFIX);
    Map<String, String> plain = spark.isEmpty() ? conf.getPropsWithPrefix(OPTION_PREFIX) : spark;
    return of(options(plain, "", OPTION_PREFIX), false, () -> conf);
  }

  /** Options keyed like the catalog options ({@code protector.policy}, ...). */
  static Optional<PathScope> of(Map<String, String> options, boolean driver) {
    return of(options, driver, () -> null);
  }

  private static Optional<PathScope> of(
      Map<String, String> options, boolean driver, Supplier<Configuration> hadoopConf) {
    boolean remote =
        "remote".equalsIgnoreCase(options.getOrDefault(KmsOptions.TYPE.key(), "").trim());
    if (!remote && isBlank(options.get(CatalogOptions.POLICY.key()))) {
      return Optional.empty();
    }
    Map<String, String> effective = new TreeMap<>(options);
    boolean acceptPlaintext =
        Boolean.parseBoolean(
            String.valueOf(effective.remove(CatalogOptions.ACCEPT_PLAINTEXT_FILES.key())).trim());
    if (!driver) {
      // Only the driver creates missing local keys: executors must not race on the keystore.
      effective.remove(KmsOptions.CREATE_MISSING_KEYS.key());
    }
    ProtectorContext context = context(effective);
    Principal principal;
    if (context.kms().type() == KmsSettings.Type.REMOTE) {
      // The key server names the principal from the token.
      principal = context.principal(null, ORIGIN);
    } else {
      String user = options.get(CatalogOptions.USER.key());
      principal =
          Principal.of(
              isBlank(user) ? currentUser() : user.trim(),
              groups(options.get(CatalogOptions.GROUPS.key())));
    }
    return Optional.of(new PathScope(context, principal, acceptPlaintext, hadoopConf));
  }

  private static Supplier<Configuration> memoized(Supplier<Configuration> create) {
    Configuration[] made = new Configuration[1];
    return () -> {
      synchronized (made) {
        if (made[0] == null) {
          made[0] = create.get();
        }
        return made[0];
      }
    };
  }

  // Keys in `source` start with `prefix`; the result is keyed "protector.<name>".
  private static Map<String, String> options(
      Map<String, String> source, String prefix, String strippedPrefix) {
    Map<String, String> out = new TreeMap<>();
    source.forEach(
        (k, v) -> {
          if (v == null) {
            return;
          }
          if (strippedPrefix != null) {
            out.put(strippedPrefix + k, v);
          } else if (k.startsWith(prefix)) {
            out.put(k.substring(SESSION_PREFIX.length()), v);
          }
        });
    return out;
  }

  /**
   * The settings' context, loaded once per {@link #REFRESH_NANOS}. The options name where the
   * credential is read, which anyone may repeat; a cached context (and the key scopes it hands out)
   * is therefore returned only to a caller that can read that credential now ({@link
   * KeyServiceRegistry#credentialBinding}). A changed token or passphrase loads the context again.
   */
  private static ProtectorContext context(Map<String, String> options) {
    String key = digest(options.toString());
    long now = System.nanoTime();
    Loaded loaded = CONTEXTS.get(key);
    if (loaded != null && now - loaded.at <= REFRESH_NANOS) {
      String binding = KeyServiceRegistry.credentialBinding(loaded.context.kms());
      if (MessageDigest.isEqual(
          binding.getBytes(StandardCharsets.UTF_8),
          loaded.binding.getBytes(StandardCharsets.UTF_8))) {
        return loaded.context;
      }
    }
    ProtectorContext context = ProtectorContext.fromOptions(ORIGIN, options);
    loaded = new Loaded(context, KeyServiceRegistry.credentialBinding(context.kms()), now);
    CONTEXTS.put(key, loaded);
    return context;
  }

  /** Forgets loaded settings, so the next use reads the policy again (tests, policy changes). */
  public static void forgetLoadedSettings() {
    CONTEXTS.clear();
  }

  /**
   * The user Spark runs as when {@code spark.protector.user} is not set: {@code SPARK_USER}, else
   * the Hadoop login user, as Spark's own {@code sparkUser} (the same on driver and executors).
   */
  static String currentUser() {
    String env = System.getenv("SPARK_USER");
    if (!isBlank(env)) {
      return env.trim();
    }
    try {
      return UserGroupInformation.getCurrentUser().getShortUserName();
    } catch (IOException e) {
      return System.getProperty("user.name");
    }
  }

  public Policy policy() {
    return policy;
  }

  public ProtectorContext context() {
    return context;
  }

  public Principal principal() {
    return principal;
  }

  /** The principal's roles in the policy. */
  public Set<String> roles() {
    return roles;
  }

  /**
   * A non-secret digest of (key service, credential, principal, policy): what a plan was analyzed
   * for, and the Parquet key-cache token.
   */
  public String identity() {
    return keyScope.identity();
  }

  /**
   * The policy entry governing {@code location}: the longest prefix that covers where the location
   * really is (symbolic links resolved, on local file systems and HDFS), else the longest that
   * covers it as written. Prefixes and locations are compared {@link Locations#normalize
   * normalized}: {@code file:/x}, {@code file:///x/} and {@code /x} are one location, and so are
   * {@code /a/b/../x} and {@code /a//x}. A prefix that is itself an alias matches its target too.
   */
  public Optional<TablePolicy> policyFor(String location) {
    if (location == null || policy.paths().isEmpty()) {
      return Optional.empty();
    }
    String written = Locations.normalize(location);
    Optional<TablePolicy> found = longestCovering(canonical.canonical(written));
    return found.isPresent() ? found : longestCovering(written);
  }

  private Optional<TablePolicy> longestCovering(String location) {
    TablePolicy best = null;
    int bestLength = -1;
    for (TablePolicy entry : policy.paths().values()) {
      for (String prefix : prefixForms(entry)) {
        if (Locations.covers(prefix, location) && prefix.length() > bestLength) {
          best = entry;
          bestLength = prefix.length();
        }
      }
    }
    return Optional.ofNullable(best);
  }

  /**
   * Whether a policy prefix lies below {@code location}, as written or where it really is: a read
   * or write of it may include files under the prefix.
   */
  public boolean hasPrefixBelow(String location) {
    if (location == null) {
      return false;
    }
    String written = Locations.normalize(location);
    String real = canonical.canonical(written);
    for (TablePolicy entry : policy.paths().values()) {
      for (String prefix : prefixForms(entry)) {
        if (Locations.isBelow(prefix, written) || Locations.isBelow(prefix, real)) {
          return true;
        }
      }
    }
    return false;
  }

  private List<String> prefixForms(TablePolicy entry) {
    String written = Locations.normalize(entry.name());
    String real = canonical.canonical(written);
    return written.equals(real) ? List.of(written) : List.of(written, real);
  }

  /**
   * Whether the session accepts Parquet files under a protected prefix that the protector did not
   * write ({@code protector.paths.accept-plaintext-files}); they are refused by default.
   */
  public boolean acceptPlaintextFiles() {
    return acceptPlaintextFiles;
  }

  /** Whether one of the principal's roles may write under {@code entry}. */
  public boolean canWrite(TablePolicy entry) {
    return !Collections.disjoint(entry.writers(), roles);
  }

  /** Refuses a write under {@code entry} by a principal that is not one of its writers. */
  public void checkWrite(TablePolicy entry, String location) {
    if (!canWrite(entry)) {
      throw new ProtectorException(
          String.format(
              "Access denied: principal %s may not write %s: the policy (%s) protects prefix %s and"
                  + " lets only the roles %s write there (the principal's roles: %s)",
              principal,
              location,
              policy.origin(),
              entry.name(),
              entry.writers(),
              roles.isEmpty() ? "none" : roles));
    }
  }

  /** The principal's key scope: the key service and caches this principal's path files use. */
  public KeyScope keyScope() {
    return keyScope;
  }

  private static List<String> groups(String text) {
    if (isBlank(text)) {
      return List.of();
    }
    return Arrays.stream(text.split(","))
        .map(String::trim)
        .filter(s -> !s.isEmpty())
        .collect(Collectors.toList());
  }

  private static boolean isBlank(String s) {
    return s == null || s.isBlank();
  }

  static String digest(String text) {
    try {
      MessageDigest md = MessageDigest.getInstance("SHA-256");
      return HexFormat.of().formatHex(md.digest(text.getBytes(StandardCharsets.UTF_8)));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is not available", e);
    }
  }

  @Override
  public String toString() {
    return "PathScope{" + principal + ", policy=" + policy.origin() + "}";
  }

  private static final class Loaded {
    final ProtectorContext context;
    final String binding;
    final long at;

    Loaded(ProtectorContext context, String binding, long at) {
      this.context = context;
      this.binding = binding;
      this.at = at;
    }
  }
}
