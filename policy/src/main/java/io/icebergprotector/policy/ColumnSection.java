/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.policy;

import static io.icebergprotector.policy.PolicySource.append;
import static io.icebergprotector.policy.PolicySource.describe;
import static io.icebergprotector.policy.PolicySource.line;

import com.typesafe.config.ConfigObject;
import com.typesafe.config.ConfigUtil;
import com.typesafe.config.ConfigValue;
import com.typesafe.config.ConfigValueType;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * The {@code columns} of a table or location: columns and structs of columns, each column with its
 * key, who reads it how (clear, masked, token) and its protection method. Remembers across entries
 * which column first uses each key and each token domain: a key that protects a column may not be a
 * footer key or retired, and a token domain has one key and one method in the whole policy.
 */
final class ColumnSection {
  private static final List<String> COLUMN_FIELDS = PolicyFields.names(PolicyFields.Scope.COLUMN);

  private final PolicySource src;
  private final RoleSection roles;
  private final KeySection keys;
  // First column that uses each key, to reject a footer key that also protects a column.
  private final Map<String, String> columnKeyUse = new LinkedHashMap<>();
  // Token domain -> its first column: a domain names one key and one method in the whole policy.
  private final Map<String, DomainUse> domainUses = new LinkedHashMap<>();

  private static final class DomainUse {
    final String keyId;
    final ProtectionMethod method;
    final String where;

    DomainUse(String keyId, ProtectionMethod method, String where) {
      this.keyId = keyId;
      this.method = method;
      this.where = where;
    }
  }

  /** The columns of one entry, in the order written, and by lower-case path. */
  static final class Columns {
    private final List<ColumnPolicy> list = new ArrayList<>();
    private final Map<String, ColumnPolicy> byLower = new LinkedHashMap<>();

    List<ColumnPolicy> list() {
      return list;
    }

    Map<String, ColumnPolicy> byLower() {
      return byLower;
    }
  }

  ColumnSection(PolicySource src, RoleSection roles, KeySection keys) {
    this.src = src;
    this.roles = roles;
    this.keys = keys;
  }

  /** The first column that {@code keyId} protects, for errors; null when it protects none. */
  String keyUse(String keyId) {
    return columnKeyUse.get(keyId);
  }

  /** The columns of {@code table} in its {@code columns} object {@code obj}. */
  Columns parse(ConfigObject obj, List<String> cfgPath, String table) {
    Columns out = new Columns();
    walkColumns(obj, cfgPath, List.of(), table, out);
    return out;
  }

  private void walkColumns(
      ConfigObject obj, List<String> cfgPath, List<String> parent, String table, Columns out) {
    for (Map.Entry<String, ConfigValue> e : src.ordered(obj)) {
      src.collecting(() -> walkColumn(e.getKey(), e.getValue(), cfgPath, parent, table, out));
    }
  }

  private void walkColumn(
      String name,
      ConfigValue v,
      List<String> cfgPath,
      List<String> parent,
      String table,
      Columns out) {
    List<String> path = append(cfgPath, name);
    if (name.isEmpty()) {
      throw src.err(v, path, "empty column name");
    }
    String[] segs = name.split("\\.", -1);
    for (String seg : segs) {
      if (seg.isBlank()) {
        throw src.err(
            v,
            path,
            "empty path segment in column name '"
                + name
                + "'; nested fields are written \"struct.field\"");
      }
    }
    List<String> parts = new ArrayList<>(parent);
    parts.addAll(List.of(segs));
    String colPath = String.join(".", parts);
    ConfigObject o =
        src.object(
            v, path, "a column object { key = ..., clear = [...] } (or a struct of columns)");
    if (isColumn(o)) {
      add(o, path, parseColumn(o, path, name, colPath, table), out);
    } else {
      walkColumns(o, path, parts, table, out);
    }
  }

  /** Adds {@code c} unless it repeats or overlaps a column of the entry. */
  private void add(ConfigObject o, List<String> path, ColumnPolicy c, Columns out) {
    String colPath = c.path();
    String lower = colPath.toLowerCase(Locale.ROOT);
    ColumnPolicy dup = out.byLower.get(lower);
    if (dup != null) {
      throw src.err(
          o,
          path,
          "duplicate column '"
              + colPath
              + "': already defined as '"
              + dup.path()
              + "' at line "
              + dup.line()
              + " (column paths are case-insensitive;"
              + " \"a.b\" and a { b {...} } are the same column)");
    }
    for (ColumnPolicy other : out.byLower.values()) {
      String ol = other.path().toLowerCase(Locale.ROOT);
      if (lower.startsWith(ol + ".") || ol.startsWith(lower + ".")) {
        throw src.err(
            o,
            path,
            "column '"
                + colPath
                + "' overlaps protected column '"
                + other.path()
                + "' (line "
                + other.line()
                + "); protect either a struct or its fields, not both");
      }
    }
    out.byLower.put(lower, c);
    out.list.add(c);
  }

  /**
   * An object is a column when it has a column field with a non-object value or any non-object
   * value at all (so typos like {@code claer} are reported as unknown column fields); an object of
   * objects is a struct whose fields are columns. A struct field literally named "key" must
   * therefore be written as a quoted dotted path, e.g. {@code "meta.key" { key = pii }}.
   */
  private static boolean isColumn(ConfigObject o) {
    if (o.isEmpty()) {
      return true;
    }
    for (Map.Entry<String, ConfigValue> e : o.entrySet()) {
      if (e.getValue().valueType() != ConfigValueType.OBJECT) {
        return true;
      }
    }
    ConfigValue masked = o.get("masked");
    if (masked instanceof ConfigObject) {
      for (ConfigValue m : ((ConfigObject) masked).values()) {
        if (m.valueType() != ConfigValueType.OBJECT) {
          return true;
        }
      }
    }
    return false;
  }

  private ColumnPolicy parseColumn(
      ConfigObject o, List<String> path, String lastKey, String colPath, String table) {
    src.checkNotMerged(o, lastKey, path, "column '" + colPath + "'");
    src.checkFields(o, path, COLUMN_FIELDS, "column");
    src.checkDescription(o, path);
    ConfigValue kv = o.get("key");
    List<String> kPath = append(path, "key");
    if (kv == null) {
      throw src.err(
          o,
          path,
          "column '" + colPath + "' has no key; add key = <one of: " + keys.keyList() + ">");
    }
    String keyId = src.str(kv, kPath, "a key id");
    keys.requireKey(keyId, kv, kPath);
    Set<String> clear = roles.roleList(o, path, "clear", "[admin]");
    Map<String, Mask> masked = new LinkedHashMap<>();
    Map<String, Integer> maskLines = new LinkedHashMap<>();
    parseMasked(o, path, colPath, clear, masked, maskLines);
    OnDenied onDenied = onDenied(o, path);
    ProtectionMethod method = method(o, path);
    String domain = domain(o, path, colPath, method);
    boolean pme = pme(o, path, colPath, method);
    Set<String> token = tokenRoles(o, path, colPath, method, clear, masked);
    if (method.tokenizes()) {
      domain = recordDomain(o, path, colPath, table, keyId, method, domain);
    }
    columnKeyUse.putIfAbsent(
        keyId, "column '" + colPath + "' of " + table + " (line " + line(kv) + ")");
    return new ColumnPolicy(
        colPath,
        keyId,
        clear,
        masked,
        onDenied,
        method,
        domain,
        pme,
        token,
        ConfigUtil.joinPath(path),
        line(o),
        maskLines);
  }

  /** {@code masked { role = mask }} into {@code masked}, with the line of each mask. */
  private void parseMasked(
      ConfigObject o,
      List<String> path,
      String colPath,
      Set<String> clear,
      Map<String, Mask> masked,
      Map<String, Integer> maskLines) {
    ConfigObject mo =
        src.optionalObject(
            o, path, "masked", "an object of role = mask, e.g. masked { analyst = hash }");
    if (mo == null) {
      return;
    }
    List<String> mPath = append(path, "masked");
    for (Map.Entry<String, ConfigValue> e : src.ordered(mo)) {
      String role = e.getKey();
      ConfigValue mv = e.getValue();
      List<String> rPath = append(mPath, role);
      roles.checkRole(new PolicySource.Str(role, mv), rPath, "masked");
      Mask mask = mask(mv, rPath);
      if (clear.contains(role)) {
        throw src.err(
            mv,
            rPath,
            "role '"
                + role
                + "' is both clear and masked for column '"
                + colPath
                + "'; a role gets one access level, remove it from clear or from masked");
      }
      masked.put(role, mask);
      maskLines.put(role, line(mv));
    }
  }

  private Mask mask(ConfigValue mv, List<String> rPath) {
    if (mv.valueType() == ConfigValueType.NULL) {
      return Mask.nullMask();
    }
    if (mv.valueType() == ConfigValueType.STRING) {
      try {
        return Mask.parse((String) mv.unwrapped());
      } catch (IllegalArgumentException ex) {
        throw src.err(mv, rPath, ex.getMessage());
      }
    }
    throw src.err(
        mv,
        rPath,
        "expected a mask ("
            + Mask.VALID_SPECS
            + ") but got "
            + describe(mv)
            + (mv.valueType() == ConfigValueType.OBJECT
                ? "; partial must be quoted: \"partial(keep_last=4)\""
                : ""));
  }

  private OnDenied onDenied(ConfigObject o, List<String> path) {
    ConfigValue dv = o.get("on-denied");
    if (dv == null || dv.valueType() == ConfigValueType.NULL) {
      return OnDenied.NULL;
    }
    List<String> dPath = append(path, "on-denied");
    if (dv.valueType() != ConfigValueType.STRING) {
      throw src.err(dv, dPath, "expected one of null, fail but got " + describe(dv));
    }
    try {
      return OnDenied.parse((String) dv.unwrapped());
    } catch (IllegalArgumentException ex) {
      throw src.err(dv, dPath, ex.getMessage());
    }
  }

  private ProtectionMethod method(ConfigObject o, List<String> path) {
    ConfigValue mtv = o.get("method");
    if (mtv == null) {
      return ProtectionMethod.pme();
    }
    List<String> mtPath = append(path, "method");
    try {
      return ProtectionMethod.parse(
          src.str(mtv, mtPath, "a method (" + ProtectionMethod.VALID_SPECS + ")"));
    } catch (IllegalArgumentException ex) {
      throw src.err(mtv, mtPath, ex.getMessage());
    }
  }

  /** The token domain as written; null when not written. */
  private String domain(
      ConfigObject o, List<String> path, String colPath, ProtectionMethod method) {
    ConfigValue dmv = o.get("domain");
    if (dmv == null) {
      return null;
    }
    List<String> dmPath = append(path, "domain");
    if (!method.tokenizes()) {
      throw src.err(
          dmv,
          dmPath,
          "domain applies to tokenized columns only; column '"
              + colPath
              + "' uses method pme (set method = deterministic or fpe(...), or remove domain)");
    }
    String domain = src.str(dmv, dmPath, "a token domain name, e.g. \"ssn\"");
    if (domain.length() > 200 || domain.chars().anyMatch(Character::isISOControl)) {
      throw src.err(
          dmv, dmPath, "a token domain is 1-200 printable characters, got " + describe(dmv));
    }
    return domain;
  }

  private boolean pme(ConfigObject o, List<String> path, String colPath, ProtectionMethod method) {
    boolean pme = src.bool(o, path, "pme", true);
    if (!pme && !method.tokenizes()) {
      throw src.err(
          o.get("pme"),
          append(path, "pme"),
          "pme = false would store column '"
              + colPath
              + "' in plaintext: it applies to tokenized columns only (method = deterministic or"
              + " fpe(...))");
    }
    return pme;
  }

  /** {@code token = [roles]}: roles that read tokens, none of them also clear or masked. */
  private Set<String> tokenRoles(
      ConfigObject o,
      List<String> path,
      String colPath,
      ProtectionMethod method,
      Set<String> clear,
      Map<String, Mask> masked) {
    Set<String> token = new LinkedHashSet<>();
    List<String> tPath = append(path, "token");
    for (PolicySource.Str s : src.stringList(o.get("token"), tPath, "role names", "[analyst]")) {
      roles.checkRole(s, tPath, "token");
      if (!method.tokenizes()) {
        throw src.err(
            s.at,
            tPath,
            "token access applies to tokenized columns only; column '"
                + colPath
                + "' uses method pme (set method = deterministic or fpe(...))");
      }
      if (clear.contains(s.value) || masked.containsKey(s.value)) {
        throw src.err(
            s.at,
            tPath,
            "role '"
                + s.value
                + "' is both "
                + (clear.contains(s.value) ? "clear" : "masked")
                + " and token for column '"
                + colPath
                + "'; a role gets one access level, remove it from one list");
      }
      token.add(s.value);
    }
    return token;
  }

  /**
   * The token domain of a tokenized column (the default one when none is written), checked against
   * the first column of the policy that uses it: one domain, one key and one method.
   */
  private String recordDomain(
      ConfigObject o,
      List<String> path,
      String colPath,
      String table,
      String keyId,
      ProtectionMethod method,
      String written) {
    String domain = written == null ? ColumnPolicy.defaultDomain(table, colPath) : written;
    String where = "column '" + colPath + "' of " + table + " (line " + line(o) + ")";
    DomainUse first = domainUses.putIfAbsent(domain, new DomainUse(keyId, method, where));
    if (first != null && (!first.keyId.equals(keyId) || !first.method.equals(method))) {
      ConfigValue dmv = o.get("domain");
      throw src.err(
          dmv != null ? dmv : o,
          dmv != null ? append(path, "domain") : path,
          "token domain '"
              + domain
              + "' of column '"
              + colPath
              + "' is already used by "
              + first.where
              + " with key "
              + first.keyId
              + " and method "
              + first.method.spec()
              + "; columns of one domain share key and method (here key "
              + keyId
              + ", method "
              + method.spec()
              + "), so that equal values give equal tokens");
    }
    return domain;
  }
}
