/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.policy;

import java.io.IOException;
import java.io.InputStream;
import java.io.Serializable;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.URL;
import java.net.URLConnection;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * The central protection policy: roles, key ids, and per table (or storage prefix) which columns
 * are encrypted with which key and who sees them clear, masked or not at all. Immutable; every
 * {@code load}/{@code parse} validates the whole policy and throws {@link PolicyException} with the
 * origin, line and key of the first problem.
 */
public final class Policy implements Serializable {
  private static final long serialVersionUID = 1L;
  private static final int URL_TIMEOUT_MS = 10_000;
  // Deserialized copies (one per task on executors) parse each policy text once per JVM.
  private static final int PARSED_CACHE_SIZE = 16;
  private static final Map<String, Policy> PARSED =
      Collections.synchronizedMap(
          new LinkedHashMap<>(PARSED_CACHE_SIZE, 0.75f, true) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<String, Policy> eldest) {
              return size() > PARSED_CACHE_SIZE;
            }
          });

  private final String origin;
  private final String text;
  private final String digest;
  private volatile String contentDigest; // computed on first use
  private final Map<String, Role> roles;
  private final Set<String> keyIds;
  private final Map<String, Set<String>> retiredKeys;
  private final Map<String, TablePolicy> tables;
  private final Map<String, TablePolicy> paths;
  private final List<PolicyWarning> warnings;

  Policy(
      String origin,
      String text,
      Map<String, Role> roles,
      Set<String> keyIds,
      Map<String, Set<String>> retiredKeys,
      Map<String, TablePolicy> tables,
      Map<String, TablePolicy> paths,
      List<PolicyWarning> warnings) {
    this.origin = origin;
    this.text = text;
    this.digest = Digests.sha256Hex(origin + "\u0000" + text);
    this.roles = Collections.unmodifiableMap(new LinkedHashMap<>(roles));
    this.keyIds = Collections.unmodifiableSet(new LinkedHashSet<>(keyIds));
    Map<String, Set<String>> retired = new LinkedHashMap<>();
    retiredKeys.forEach(
        (k, v) -> retired.put(k, Collections.unmodifiableSet(new LinkedHashSet<>(v))));
    this.retiredKeys = Collections.unmodifiableMap(retired);
    this.tables = Collections.unmodifiableMap(new LinkedHashMap<>(tables));
    this.paths = Collections.unmodifiableMap(new LinkedHashMap<>(paths));
    this.warnings = List.copyOf(warnings);
  }

  // ---------------------------------------------------------------------------------- loading

  /** Loads a policy file; the origin in messages is the path as given. */
  public static Policy load(Path file) {
    String origin = file.toString();
    String text;
    try {
      text = Files.readString(file, StandardCharsets.UTF_8);
    } catch (NoSuchFileException e) {
      throw new PolicyException(origin, -1, "", "policy file not found", e);
    } catch (IOException e) {
      throw new PolicyException(origin, -1, "", "cannot read policy file: " + e, e);
    }
    return parse(text, origin);
  }

  /** Loads a policy from a URL (file:, http:, https:, jar:...); the origin is the URL. */
  public static Policy load(URL url) {
    String origin = url.toString();
    if ("file".equalsIgnoreCase(url.getProtocol())) {
      try {
        return load(Paths.get(url.toURI()));
      } catch (URISyntaxException | IllegalArgumentException e) {
        // fall through to a plain URL read
      }
    }
    try {
      URLConnection conn = url.openConnection();
      conn.setConnectTimeout(URL_TIMEOUT_MS);
      conn.setReadTimeout(URL_TIMEOUT_MS);
      try (InputStream in = conn.getInputStream()) {
        return parse(new String(in.readAllBytes(), StandardCharsets.UTF_8), origin);
      }
    } catch (IOException e) {
      throw new PolicyException(origin, -1, "", "cannot read policy: " + e, e);
    }
  }

  /** {@code classpath:name}, {@code file:...}, {@code http(s)://...}, or a plain file path. */
  public static Policy load(String pathOrUrl) {
    if (pathOrUrl == null || pathOrUrl.isBlank()) {
      throw new PolicyException("<policy>", -1, "", "policy location is empty");
    }
    String s = pathOrUrl.trim();
    String lower = s.toLowerCase(Locale.ROOT);
    if (lower.startsWith("classpath:")) {
      String name = s.substring("classpath:".length());
      while (name.startsWith("/")) {
        name = name.substring(1);
      }
      ClassLoader cl = Thread.currentThread().getContextClassLoader();
      URL url = cl == null ? null : cl.getResource(name);
      if (url == null) {
        url = Policy.class.getClassLoader().getResource(name);
      }
      if (url == null) {
        throw new PolicyException(s, -1, "", "policy resource not found on the classpath");
      }
      try (InputStream in = url.openStream()) {
        return parse(new String(in.readAllBytes(), StandardCharsets.UTF_8), s);
      } catch (IOException e) {
        throw new PolicyException(s, -1, "", "cannot read policy: " + e, e);
      }
    }
    if (lower.startsWith("file:") || lower.startsWith("http:") || lower.startsWith("https:")) {
      try {
        return load(new URI(s).toURL());
      } catch (URISyntaxException | IOException | IllegalArgumentException e) {
        throw new PolicyException(s, -1, "", "not a valid policy URL: " + e.getMessage(), e);
      }
    }
    return load(Paths.get(s));
  }

  /** Parses HOCON text; {@code originName} is used in error messages (usually the file name). */
  public static Policy parse(String hoconText, String originName) {
    String origin = originName == null || originName.isBlank() ? "<policy>" : originName;
    if (hoconText == null) {
      throw new PolicyException(origin, -1, "", "policy text is null");
    }
    return new PolicyParser(origin, hoconText).parse();
  }

  // ---------------------------------------------------------------------------------- model

  /** Where the policy came from: file path, URL or the name given to {@link #parse}. */
  public String origin() {
    return origin;
  }

  /** The HOCON text this policy was parsed from. */
  public String text() {
    return text;
  }

  /** SHA-256 (hex) of origin and text: equal digests mean the same policy. */
  public String digest() {
    return digest;
  }

  /**
   * SHA-256 (hex) of this policy's canonical text ({@link #toHocon}): equal for two files that
   * state the same rules in the same order, whatever their origin, comments or layout. The key
   * server and the catalogs compare policies by it.
   */
  public String contentDigest() {
    String d = contentDigest;
    if (d == null) {
      d = Digests.sha256Hex(toHocon());
      contentDigest = d;
    }
    return d;
  }

  /** Roles by name, in policy order. */
  public Map<String, Role> roles() {
    return roles;
  }

  /** Master key ids that must exist in the key service, in policy order. */
  public Set<String> keyIds() {
    return keyIds;
  }

  /**
   * Keys that protect no column or footer any more, but data written before a policy change, each
   * with the roles that may unwrap it ({@code retired-keys { pii2 { decrypt = [admin] } }}), in
   * policy order. Nobody wraps with a retired key.
   */
  public Map<String, Set<String>> retiredKeys() {
    return retiredKeys;
  }

  /** Tables by normalized lower-case name, in policy order. */
  public Map<String, TablePolicy> tables() {
    return tables;
  }

  /** Case-insensitive. */
  public Optional<TablePolicy> table(String name) {
    return name == null
        ? Optional.empty()
        : Optional.ofNullable(tables.get(TablePolicy.lower(name.trim())));
  }

  /** Storage-location entries by prefix as written, in policy order. */
  public Map<String, TablePolicy> paths() {
    return paths;
  }

  /**
   * The entry with the longest prefix that contains {@code location}. Prefix and location are
   * compared in their {@link Locations#normalize normalized} form ({@code file:/x}, {@code
   * file:///x} and {@code /x} are one location; so are {@code S3A://b/x/} and {@code s3a://b/x}),
   * on whole path segments: {@code s3a://b/pii} covers {@code s3a://b/pii/x} but not {@code
   * s3a://b/pii2}.
   */
  public Optional<TablePolicy> pathFor(String location) {
    if (location == null || paths.isEmpty()) {
      return Optional.empty();
    }
    String normalized = Locations.normalize(location);
    TablePolicy best = null;
    int bestLength = -1;
    for (TablePolicy p : paths.values()) {
      String prefix = Locations.normalize(p.name());
      if (Locations.covers(prefix, normalized) && prefix.length() > bestLength) {
        best = p;
        bestLength = prefix.length();
      }
    }
    return Optional.ofNullable(best);
  }

  /**
   * Valid but risky settings, in policy order, each with origin, line and key (today: entries using
   * {@code AES_GCM_CTR_V1}, whose data pages are not authenticated).
   */
  public List<PolicyWarning> warnings() {
    return warnings;
  }

  // ---------------------------------------------------------------------------------- views

  /**
   * The policy as {@code p} may see it: the same keys, tables, paths, footers, algorithms,
   * strictness, plain columns, columns and masks, but only the roles p holds, each naming only p's
   * own user and those of p's groups it lists, and no reference to any other role in {@code
   * writers}, {@code declassify}, {@code clear} or {@code masked}. Every decision about p ({@link
   * #rolesOf}, {@link #decide}, {@link #wrappableKeys}, {@link #unwrappableKeys}, {@link
   * #canDeclassify}) is the same as under this policy; nothing names another person, group or role.
   * A principal without roles gets a policy without roles, which still parses.
   */
  public Policy restrictedTo(Principal p) {
    Objects.requireNonNull(p, "principal");
    Map<String, Role> mine = new LinkedHashMap<>();
    for (Role r : roles.values()) {
      Role own = r.restrictedTo(p);
      if (own != null) {
        mine.put(own.name(), own);
      }
    }
    Set<String> names = mine.keySet();
    Map<String, TablePolicy> t = new LinkedHashMap<>();
    tables.forEach((name, entry) -> t.put(name, entry.restrictedTo(names)));
    Map<String, TablePolicy> pa = new LinkedHashMap<>();
    paths.forEach((prefix, entry) -> pa.put(prefix, entry.restrictedTo(names)));
    Map<String, Set<String>> retired = new LinkedHashMap<>();
    retiredKeys.forEach(
        (id, decrypt) -> {
          Set<String> own = new LinkedHashSet<>(decrypt);
          own.retainAll(names);
          retired.put(id, own);
        });
    // Parsed back from its own text, so that text() and digest() describe the restricted view.
    return parse(new Policy(origin, "", mine, keyIds, retired, t, pa, warnings).toHocon(), origin);
  }

  /**
   * This policy as HOCON text that {@link #parse} reads back to an equal policy. Every setting is
   * written out (defaults too), every name is quoted, one entry per line; descriptions and comments
   * are not part of the model and are not written.
   */
  public String toHocon() {
    return PolicyWriter.write(this);
  }

  // ---------------------------------------------------------------------------------- decisions

  /**
   * Names of the roles the principal holds (user listed, or a group in common), in policy order.
   */
  public Set<String> rolesOf(Principal p) {
    Set<String> out = new LinkedHashSet<>();
    if (p != null) {
      for (Role r : roles.values()) {
        if (r.matches(p)) {
          out.add(r.name());
        }
      }
    }
    return Collections.unmodifiableSet(out);
  }

  /**
   * What {@code p} may see of {@code table.columnPath}. Columns the policy does not protect, and
   * tables it does not list, are {@link Access#clear()}. A field of a protected struct is governed
   * by that struct's entry.
   */
  public Access decide(String table, String columnPath, Principal p) {
    Optional<TablePolicy> t = table(table);
    if (t.isEmpty()) {
      return Access.clear();
    }
    Optional<ColumnPolicy> c = t.get().covering(columnPath);
    return c.isEmpty() ? Access.clear() : c.get().accessFor(rolesOf(p));
  }

  /** Protected columns of a table (case-insensitive name); empty if the table is not listed. */
  public List<ColumnPolicy> protectedColumns(String table) {
    return table(table).map(TablePolicy::columns).orElse(List.of());
  }

  /** Column keys and footer key of every table/path where one of p's roles is a writer. */
  public Set<String> wrappableKeys(Principal p) {
    Set<String> mine = rolesOf(p);
    Set<String> out = new LinkedHashSet<>();
    for (TablePolicy t : allEntries()) {
      if (!Collections.disjoint(t.writers(), mine)) {
        out.addAll(t.columnKeyIds());
        out.add(t.footerKeyId());
      }
    }
    return Collections.unmodifiableSet(out);
  }

  /** Whether one of p's roles may declassify the protected columns of {@code entry}. */
  public boolean canDeclassify(TablePolicy entry, Principal p) {
    return !Collections.disjoint(entry.declassifiers(), rolesOf(p));
  }

  /**
   * Keys of the columns p may read (CLEAR or MASKED), plus the footer key of every table/path
   * (anyone reading a table needs its footer key, which is why it may never protect a column), plus
   * the retired keys whose {@code decrypt} roles p holds.
   */
  public Set<String> unwrappableKeys(Principal p) {
    return keysReadWith(p, Access::canDecrypt);
  }

  /**
   * The keys of {@link #unwrappableKeys} that p needs for what it reads in clear (or as stored
   * tokens): every footer key, the keys of the PME columns p reads with {@link AccessLevel#CLEAR}
   * or {@link AccessLevel#TOKEN} access, and the retired keys whose {@code decrypt} roles p holds.
   * The others, keys p uses only to {@linkplain AccessLevel#MASKED mask}, are the keys a key server
   * releases only to a trusted runtime acting for p: p itself, holding the key, would read the
   * values in clear.
   */
  public Set<String> clearKeys(Principal p) {
    return keysReadWith(p, a -> a.canDecrypt() && a.level() != AccessLevel.MASKED);
  }

  /**
   * Every footer key, the keys of the PME columns p's access to which satisfies {@code reads}, and
   * the retired keys whose {@code decrypt} roles p holds.
   */
  private Set<String> keysReadWith(Principal p, java.util.function.Predicate<Access> reads) {
    Set<String> mine = rolesOf(p);
    Set<String> out = new LinkedHashSet<>();
    for (TablePolicy t : allEntries()) {
      out.add(t.footerKeyId());
      for (ColumnPolicy c : t.columns()) {
        if (c.pme() && reads.test(c.accessFor(mine))) {
          out.add(c.keyId());
        }
      }
    }
    retiredKeys.forEach(
        (id, decrypt) -> {
          if (!Collections.disjoint(decrypt, mine)) {
            out.add(id);
          }
        });
    return Collections.unmodifiableSet(out);
  }

  /**
   * Whether p may be given the key of {@code hash} masks under {@code keyId} (the key service's
   * hash-mask derivation): p reads a PME column under that key with a {@code hash} mask, so its
   * cluster computes the mask, and p holds that column's key anyway. Nobody else gets it: hashing
   * every candidate of a small domain (six-digit PINs, birth dates) under the mask key recovers the
   * value behind a hash mask, so the key is as good as clear access to every column it masks. The
   * key server masks tokenized columns under a key of its own that it never releases.
   */
  public boolean mayDeriveHashMaskKey(Principal p, String keyId) {
    Set<String> mine = rolesOf(p);
    for (TablePolicy t : allEntries()) {
      for (ColumnPolicy c : t.columns()) {
        if (!c.tokenized() && c.keyId().equals(keyId)) {
          Access access = c.accessFor(mine);
          if (access.level() == AccessLevel.MASKED && access.mask().kind() == Mask.Kind.HASH) {
            return true;
          }
        }
      }
    }
    return false;
  }

  /**
   * The first tokenized column (in policy order) of the token domain {@code domain}; every column
   * of a domain has the same key and method, which the parser checks.
   */
  public Optional<ColumnPolicy> tokenDomain(String domain) {
    for (TablePolicy t : allEntries()) {
      for (ColumnPolicy c : t.columns()) {
        if (c.tokenized() && c.domain().equals(domain)) {
          return Optional.of(c);
        }
      }
    }
    return Optional.empty();
  }

  /** Every token domain of the policy, in policy order. */
  public Set<String> tokenDomains() {
    Set<String> out = new LinkedHashSet<>();
    for (TablePolicy t : allEntries()) {
      for (ColumnPolicy c : t.columns()) {
        if (c.tokenized()) {
          out.add(c.domain());
        }
      }
    }
    return Collections.unmodifiableSet(out);
  }

  /**
   * Whether the key service may release the token key of ({@code keyId}, {@code domain}) to p: p
   * reads a column of that key and domain in clear. A token key detokenizes every token of its
   * domain, so whoever holds it is a clear reader of the domain: writers who do not read it in
   * clear tokenize through the key server (server token mode), masked readers get the server's
   * mask, and token roles read the stored tokens; none of them gets the key.
   */
  public boolean mayReleaseTokenKey(Principal p, String keyId, String domain) {
    Set<String> mine = rolesOf(p);
    for (TablePolicy t : allEntries()) {
      for (ColumnPolicy c : t.columns()) {
        if (c.tokenized()
            && c.keyId().equals(keyId)
            && c.domain().equals(domain)
            && c.accessFor(mine).level() == AccessLevel.CLEAR) {
          return true;
        }
      }
    }
    return false;
  }

  /**
   * Whether p has any use for the token batches of ({@code keyId}, {@code domain}) on the key
   * server (server token mode): p writes an entry with a column of that key and domain, or reads
   * one in clear or masked. The server decides each batch again: {@code encode} for writers and
   * clear readers, {@code decode} for clear readers, and for masked readers only the mask of a
   * column they name.
   */
  public boolean usesTokenDomain(Principal p, String keyId, String domain) {
    Set<String> mine = rolesOf(p);
    for (TablePolicy t : allEntries()) {
      boolean writer = !Collections.disjoint(t.writers(), mine);
      for (ColumnPolicy c : t.columns()) {
        if (c.tokenized()
            && c.keyId().equals(keyId)
            && c.domain().equals(domain)
            && (writer || c.accessFor(mine).detokenizes())) {
          return true;
        }
      }
    }
    return false;
  }

  /**
   * Whether p may tokenize values of {@code domain} outside a table (the SQL function {@code
   * protect}): p writes an entry with a column of that domain, or reads one in clear.
   */
  public boolean mayProtect(Principal p, String domain) {
    Set<String> mine = rolesOf(p);
    for (TablePolicy t : allEntries()) {
      boolean writer = !Collections.disjoint(t.writers(), mine);
      for (ColumnPolicy c : t.columns()) {
        if (c.tokenized()
            && c.domain().equals(domain)
            && (writer || c.accessFor(mine).level() == AccessLevel.CLEAR)) {
          return true;
        }
      }
    }
    return false;
  }

  /**
   * Whether p may detokenize values of {@code domain} outside a table (the SQL function {@code
   * unprotect}): p reads a column of that domain in clear.
   */
  public boolean mayUnprotect(Principal p, String domain) {
    Set<String> mine = rolesOf(p);
    for (TablePolicy t : allEntries()) {
      for (ColumnPolicy c : t.columns()) {
        if (c.tokenized()
            && c.domain().equals(domain)
            && c.accessFor(mine).level() == AccessLevel.CLEAR) {
          return true;
        }
      }
    }
    return false;
  }

  /**
   * Checks the policy of {@code table} against the table's schema: every protected column must
   * exist, and its method and every mask must fit its column type. A table the policy does not list
   * passes.
   *
   * @param columnTypes dotted column paths (case-insensitive) to types
   * @throws PolicyException pointing at the offending policy line
   */
  public void validateSchema(String table, Map<String, ColumnType> columnTypes) {
    Optional<TablePolicy> maybe = table(table);
    if (maybe.isEmpty()) {
      return;
    }
    TablePolicy t = maybe.get();
    Map<String, ColumnType> types = new LinkedHashMap<>();
    if (columnTypes != null) {
      columnTypes.forEach((k, v) -> types.put(TablePolicy.lower(k), v));
    }
    for (ColumnPolicy c : t.columns()) {
      ColumnType type = types.get(TablePolicy.lower(c.path()));
      if (type == null) {
        throw new PolicyException(
            origin,
            c.line(),
            c.configKey(),
            "column '"
                + c.path()
                + "' is not in the schema of table "
                + t.name()
                + "; schema columns: "
                + preview(columnTypes == null ? Set.of() : columnTypes.keySet()));
      }
      if (!c.method().appliesTo(type)) {
        throw new PolicyException(
            origin,
            c.line(),
            c.configKey() + ".method",
            "method '"
                + c.method().spec()
                + "' does not fit column '"
                + c.path()
                + "' of type "
                + type
                + "; it applies to: "
                + c.method().applicableTypes());
      }
      for (Map.Entry<String, Mask> e : c.maskedRoles().entrySet()) {
        Mask m = e.getValue();
        if (!m.appliesTo(type)) {
          throw new PolicyException(
              origin,
              c.maskLine(e.getKey()),
              c.configKey() + ".masked." + e.getKey(),
              "mask '"
                  + m.spec()
                  + "' does not fit column '"
                  + c.path()
                  + "' of type "
                  + type
                  + "; "
                  + m.kind().name().toLowerCase(Locale.ROOT)
                  + " applies to: "
                  + m.applicableTypes());
        }
      }
    }
  }

  private static String preview(Set<String> names) {
    if (names.isEmpty()) {
      return "(none)";
    }
    String s = names.stream().limit(20).collect(Collectors.joining(", "));
    return names.size() > 20 ? s + ", ... (" + names.size() + " in all)" : s;
  }

  private List<TablePolicy> allEntries() {
    List<TablePolicy> all = new ArrayList<>(tables.values());
    all.addAll(paths.values());
    return all;
  }

  // Travels as its text; parsed (and validated) again where it arrives.
  private Object writeReplace() {
    return new SerializedForm(origin, text);
  }

  private void readObject(java.io.ObjectInputStream in) throws java.io.InvalidObjectException {
    throw new java.io.InvalidObjectException("Policy is serialized as its text");
  }

  private static final class SerializedForm implements Serializable {
    private static final long serialVersionUID = 1L;
    private final String origin;
    private final String text;

    SerializedForm(String origin, String text) {
      this.origin = origin;
      this.text = text;
    }

    private Object readResolve() {
      String key = Digests.sha256Hex(origin + "\u0000" + text);
      Policy cached = PARSED.get(key);
      if (cached == null) {
        cached = parse(text, origin);
        PARSED.put(key, cached);
      }
      return cached;
    }
  }

  /**
   * Value equality over the model, in policy order (roles, keys, tables, paths): two policies that
   * decide the same way for everyone. Origin, lines and warnings are not compared.
   */
  @Override
  public boolean equals(Object o) {
    if (this == o) {
      return true;
    }
    if (!(o instanceof Policy)) {
      return false;
    }
    Policy that = (Policy) o;
    return new ArrayList<>(roles.entrySet()).equals(new ArrayList<>(that.roles.entrySet()))
        && new ArrayList<>(keyIds).equals(new ArrayList<>(that.keyIds))
        && new ArrayList<>(retiredKeys.entrySet())
            .equals(new ArrayList<>(that.retiredKeys.entrySet()))
        && new ArrayList<>(tables.entrySet()).equals(new ArrayList<>(that.tables.entrySet()))
        && new ArrayList<>(paths.entrySet()).equals(new ArrayList<>(that.paths.entrySet()));
  }

  @Override
  public int hashCode() {
    return Objects.hash(roles, keyIds, retiredKeys, tables, paths);
  }

  @Override
  public String toString() {
    return "Policy("
        + origin
        + ": "
        + tables.size()
        + " tables, "
        + paths.size()
        + " paths, "
        + keyIds.size()
        + " keys, "
        + roles.size()
        + " roles)";
  }
}
