/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.policy;

import static io.icebergprotector.policy.PolicySource.append;
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
import java.util.regex.Pattern;

/**
 * {@code protector.tables} and {@code protector.paths}: the protected entries, each with a footer
 * key, its settings and its columns ({@link ColumnSection}). Tables and locations share the fields
 * of an entry; they differ in how they are named. Remembers every footer key it reads, since a
 * footer key (released to every reader) must protect no column and must not be retired.
 */
final class TableSection {
  private static final List<String> TABLE_FIELDS = PolicyFields.names(PolicyFields.Scope.TABLE);
  private static final Pattern TABLE_NAME = Pattern.compile("[^.\\s\"/]+(\\.[^.\\s\"/]+)+");

  private final PolicySource src;
  private final RoleSection roles;
  private final KeySection keys;
  private final ColumnSection columns;
  private final List<FooterRef> footerRefs = new ArrayList<>();

  /** Where an entry names its footer key. */
  static final class FooterRef {
    final String keyId;
    final ConfigValue at;
    final List<String> path;

    FooterRef(String keyId, ConfigValue at, List<String> path) {
      this.keyId = keyId;
      this.at = at;
      this.path = path;
    }
  }

  TableSection(PolicySource src, RoleSection roles, KeySection keys) {
    this.src = src;
    this.roles = roles;
    this.keys = keys;
    this.columns = new ColumnSection(src, roles, keys);
  }

  List<FooterRef> footerRefs() {
    return footerRefs;
  }

  /** The first column that {@code keyId} protects, for errors; null when it protects none. */
  String columnKeyUse(String keyId) {
    return columns.keyUse(keyId);
  }

  /** The entries of {@code protector.tables} by lower-case name; empty without that object. */
  Map<String, TablePolicy> parseTables(ConfigObject tablesObj, List<String> p) {
    Map<String, TablePolicy> tables = new LinkedHashMap<>();
    if (tablesObj != null) {
      List<String> tp = append(p, "tables");
      Map<String, Integer> seen = new LinkedHashMap<>();
      for (Map.Entry<String, ConfigValue> e : src.ordered(tablesObj)) {
        src.collecting(() -> parseTableEntry(e.getKey(), e.getValue(), tp, seen, tables));
      }
    }
    return tables;
  }

  private void parseTableEntry(
      String name,
      ConfigValue v,
      List<String> tp,
      Map<String, Integer> seen,
      Map<String, TablePolicy> tables) {
    List<String> path = append(tp, name);
    if (!TABLE_NAME.matcher(name.trim()).matches()) {
      throw src.err(
          v,
          path,
          "table name '" + name + "' is not of the form namespace.table" + tableNameHint(name, v));
    }
    String normalized = name.trim().toLowerCase(Locale.ROOT);
    if (seen.containsKey(normalized)) {
      throw src.err(
          v,
          path,
          "duplicate table '"
              + name
              + "': already defined at line "
              + seen.get(normalized)
              + " (table names are case-insensitive)");
    }
    seen.put(normalized, line(v));
    ConfigObject o = src.object(v, path, "a table object { footer-key = ..., columns { ... } }");
    src.checkNotMerged(o, name, path, "table '" + name + "'");
    tables.put(normalized, parseTable(o, path, normalized, "table " + normalized));
  }

  /** The entries of {@code protector.paths} by prefix as written; empty without that object. */
  Map<String, TablePolicy> parsePaths(ConfigObject pathsObj, List<String> p) {
    Map<String, TablePolicy> paths = new LinkedHashMap<>();
    if (pathsObj != null) {
      List<String> pp = append(p, "paths");
      Map<String, String> normalizedPrefixes = new LinkedHashMap<>();
      for (Map.Entry<String, ConfigValue> e : src.ordered(pathsObj)) {
        src.collecting(
            () -> parsePathEntry(e.getKey(), e.getValue(), pp, normalizedPrefixes, paths));
      }
    }
    return paths;
  }

  private void parsePathEntry(
      String prefix,
      ConfigValue v,
      List<String> pp,
      Map<String, String> normalizedPrefixes,
      Map<String, TablePolicy> paths) {
    List<String> path = append(pp, prefix);
    if (prefix.isBlank()
        || prefix.chars().anyMatch(Character::isWhitespace)
        || !(prefix.contains(":/") || prefix.startsWith("/"))) {
      throw src.err(
          v,
          path,
          "location prefix '"
              + prefix
              + "' is not an absolute location;"
              + " expected e.g. \"s3a://bucket/prefix/\" or \"/data/prefix/\"");
    }
    String same = normalizedPrefixes.putIfAbsent(Locations.normalize(prefix), prefix);
    if (same != null) {
      throw src.err(
          v,
          path,
          "location prefix '"
              + prefix
              + "' names the same location as '"
              + same
              + "' (prefixes are compared as "
              + Locations.normalize(prefix)
              + ")");
    }
    ConfigObject o =
        src.object(
            v,
            path,
            "a location object with the fields of a table { footer-key = ..., columns { ... } }");
    src.checkNotMerged(o, prefix, path, "location '" + prefix + "'");
    paths.put(prefix, parseTable(o, path, prefix, "location " + prefix));
  }

  /** Records an error for each footer key that also protects a column. */
  void checkFooterKeys() {
    for (FooterRef ref : footerRefs) {
      String use = columns.keyUse(ref.keyId);
      if (use != null) {
        src.addError(
            src.err(
                ref.at,
                ref.path,
                "footer key '"
                    + ref.keyId
                    + "' also protects "
                    + use
                    + "; the footer key is released to every reader, so it must never protect a"
                    + " column (use a dedicated footer key)"));
      }
    }
  }

  private TablePolicy parseTable(ConfigObject o, List<String> path, String name, String entry) {
    src.checkFields(o, path, TABLE_FIELDS, "table");
    src.checkDescription(o, path);
    List<String> fkPath = append(path, "footer-key");
    ConfigValue fk = o.get("footer-key");
    if (fk == null) {
      throw src.err(
          o,
          path,
          "missing footer-key: every table needs a footer key from protector.keys"
              + " ("
              + keys.keyList()
              + ")");
    }
    String footerKey = src.str(fk, fkPath, "a key id");
    FooterMode mode = footerMode(o, path);
    EncryptionAlgorithm algorithm = algorithm(o, path, entry);
    Set<String> writers = roles.roleList(o, path, "writers", "[etl]");
    Set<String> declassifiers = roles.roleList(o, path, "declassify", "[admin]");
    boolean strict = src.bool(o, path, "strict", false);
    ConfigObject co =
        src.optionalObject(
            o,
            path,
            "columns",
            "an object of columns, e.g. columns { ssn { key = pii, clear = [admin] } }");
    ColumnSection.Columns cols =
        co == null ? new ColumnSection.Columns() : columns.parse(co, append(path, "columns"), name);
    Set<String> plainColumns = plainColumns(o, path, strict, cols);
    checkFooterKey(footerKey, fk, fkPath, cols);
    return new TablePolicy(
        name,
        footerKey,
        mode,
        algorithm,
        writers,
        declassifiers,
        strict,
        plainColumns,
        cols.list(),
        ConfigUtil.joinPath(path),
        line(o));
  }

  private FooterMode footerMode(ConfigObject o, List<String> path) {
    ConfigValue fm = o.get("footer-mode");
    if (fm == null) {
      return FooterMode.ENCRYPTED;
    }
    List<String> fmPath = append(path, "footer-mode");
    try {
      return FooterMode.parse(src.str(fm, fmPath, "one of encrypted, plaintext"));
    } catch (IllegalArgumentException e) {
      throw src.err(fm, fmPath, e.getMessage());
    }
  }

  private EncryptionAlgorithm algorithm(ConfigObject o, List<String> path, String entry) {
    ConfigValue al = o.get("algorithm");
    if (al == null) {
      return EncryptionAlgorithm.AES_GCM_V1;
    }
    List<String> alPath = append(path, "algorithm");
    EncryptionAlgorithm algorithm;
    try {
      algorithm =
          EncryptionAlgorithm.parse(src.str(al, alPath, "one of AES_GCM_V1, AES_GCM_CTR_V1"));
    } catch (IllegalArgumentException e) {
      throw src.err(al, alPath, e.getMessage());
    }
    if (algorithm == EncryptionAlgorithm.AES_GCM_CTR_V1) {
      // PME's CTR mode encrypts data pages without a GCM tag; only a CRC guards them.
      src.warn(
          al,
          alPath,
          "AES_GCM_CTR_V1 leaves the data pages of "
              + entry
              + " unauthenticated (AES-CTR with"
              + " only a CRC, no GCM tag): anyone with write access to the storage can change"
              + " protected values undetectably; use AES_GCM_V1 unless its cost matters");
    }
    return algorithm;
  }

  /** {@code plain-columns} of a strict entry: lower-case names, none of them protected. */
  private Set<String> plainColumns(
      ConfigObject o, List<String> path, boolean strict, ColumnSection.Columns cols) {
    Set<String> plainColumns = new LinkedHashSet<>();
    List<String> pcPath = append(path, "plain-columns");
    ConfigValue pcv = o.get("plain-columns");
    if (pcv != null && !strict) {
      throw src.err(
          pcv,
          pcPath,
          "plain-columns applies only to strict entries; add strict = true or"
              + " remove plain-columns");
    }
    for (PolicySource.Str s : src.stringList(pcv, pcPath, "column names", "[id, created_at]")) {
      String lower = s.value.toLowerCase(Locale.ROOT);
      for (ColumnPolicy c : cols.byLower().values()) {
        String cl = c.path().toLowerCase(Locale.ROOT);
        if (cl.equals(lower) || lower.startsWith(cl + ".") || cl.startsWith(lower + ".")) {
          throw src.err(
              s.at,
              pcPath,
              "plain column '"
                  + s.value
                  + "' overlaps protected column '"
                  + c.path()
                  + "' (line "
                  + c.line()
                  + "); a column is either protected or plain");
        }
      }
      if (!plainColumns.add(lower)) {
        throw src.err(s.at, pcPath, "plain column '" + s.value + "' is listed twice");
      }
    }
    return plainColumns;
  }

  /** The footer key names a key, not a column of the entry; remembered for the later checks. */
  private void checkFooterKey(
      String footerKey, ConfigValue fk, List<String> fkPath, ColumnSection.Columns cols) {
    if (cols.byLower().containsKey(footerKey.toLowerCase(Locale.ROOT))) {
      throw src.err(
          fk,
          fkPath,
          "footer-key '"
              + footerKey
              + "' names a column of this table;"
              + " footer-key must name a key id from protector.keys ("
              + keys.keyList()
              + ")");
    }
    keys.requireKey(footerKey, fk, fkPath);
    footerRefs.add(new FooterRef(footerKey, fk, fkPath));
  }

  private static String tableNameHint(String name, ConfigValue v) {
    if (name.contains("/") || name.contains(":")) {
      return "; storage locations belong under protector.paths";
    }
    if (v instanceof ConfigObject
        && !((ConfigObject) v).isEmpty()
        && ((ConfigObject) v)
            .values().stream().allMatch(x -> x.valueType() == ConfigValueType.OBJECT)
        && !((ConfigObject) v).containsKey("columns")) {
      String inner = ((ConfigObject) v).keySet().iterator().next();
      return "; quote table names: \""
          + name
          + "."
          + inner
          + "\" { ... } (unquoted dots nest objects in HOCON)";
    }
    return "; write it as \"namespace.table\", e.g. \"db.customers\"";
  }
}
