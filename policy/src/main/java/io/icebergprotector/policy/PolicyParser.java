package io.icebergprotector.policy;

import com.typesafe.config.ConfigException;
import com.typesafe.config.ConfigFactory;
import com.typesafe.config.ConfigList;
import com.typesafe.config.ConfigObject;
import com.typesafe.config.ConfigOrigin;
import com.typesafe.config.ConfigParseOptions;
import com.typesafe.config.ConfigRenderOptions;
import com.typesafe.config.ConfigResolveOptions;
import com.typesafe.config.ConfigSyntax;
import com.typesafe.config.ConfigUtil;
import com.typesafe.config.ConfigValue;
import com.typesafe.config.ConfigValueType;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Turns HOCON text into a validated {@link Policy}. Walks the raw {@link ConfigObject} tree (not
 * the {@code Config} getters) so every error can name the exact value, its line and key path, and
 * so that typos (unknown fields) and silently merged duplicate keys are caught.
 */
final class PolicyParser {
  // The fields each level accepts, in the order errors list them (PolicyFields documents each).
  private static final List<String> TOP_ORDER = PolicyFields.names(PolicyFields.Scope.PROTECTOR);
  private static final List<String> ROLE_FIELDS = PolicyFields.names(PolicyFields.Scope.ROLE);
  private static final List<String> KEY_FIELDS = PolicyFields.names(PolicyFields.Scope.KEY);
  private static final List<String> RETIRED_KEY_FIELDS =
      PolicyFields.names(PolicyFields.Scope.RETIRED_KEY);
  private static final List<String> TABLE_FIELDS = PolicyFields.names(PolicyFields.Scope.TABLE);
  private static final List<String> COLUMN_FIELDS = PolicyFields.names(PolicyFields.Scope.COLUMN);

  private static final Pattern TABLE_NAME = Pattern.compile("[^.\\s\"/]+(\\.[^.\\s\"/]+)+");
  // Typesafe merges repeated object keys silently. A merged origin from one file renders as
  // "name: 4-9" (first-last line); from two sources as "merge of a: 4,b: 9".
  private static final Pattern LINE_RANGE = Pattern.compile(": (\\d+)-(\\d+)$");
  private static final String MERGE_OF = "merge of ";

  private final String origin;
  private final String[] lines;
  private final String text;

  private final Map<String, Role> roles = new LinkedHashMap<>();
  private final Set<String> keyIds = new LinkedHashSet<>();
  // First column that uses each key, to reject a footer key that also protects a column.
  private final Map<String, String> columnKeyUse = new LinkedHashMap<>();
  private final List<FooterRef> footerRefs = new ArrayList<>();
  // Token domain -> its first column: a domain names one key and one method in the whole policy.
  private final Map<String, DomainUse> domainUses = new LinkedHashMap<>();
  private final List<PolicyWarning> warnings = new ArrayList<>();

  /**
   * Errors of independent parts (a role, a key, a table, a column), so one run reports them all.
   */
  private final List<PolicyException> errors = new ArrayList<>();

  private static final class FooterRef {
    final String keyId;
    final ConfigValue at;
    final List<String> path;

    FooterRef(String keyId, ConfigValue at, List<String> path) {
      this.keyId = keyId;
      this.at = at;
      this.path = path;
    }
  }

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

  PolicyParser(String origin, String text) {
    this.origin = origin;
    this.text = text;
    this.lines = text.split("\r\n|\r|\n", -1);
  }

  Policy parse() {
    ConfigObject root;
    try {
      ConfigParseOptions opts =
          ConfigParseOptions.defaults().setOriginDescription(origin).setSyntax(ConfigSyntax.CONF);
      root = ConfigFactory.parseString(text, opts).resolve(ConfigResolveOptions.noSystem()).root();
    } catch (ConfigException e) {
      throw fromConfigException(e);
    }
    List<String> p = List.of("protector");
    ConfigValue pv = root.get("protector");
    if (pv == null) {
      String problem =
          root.isEmpty()
              ? "missing root object 'protector': the policy is empty"
              : "missing root object 'protector'; found top-level keys "
                  + root.keySet()
                  + ", expected protector { roles {...}, keys {...}, tables {...} }";
      throw new PolicyException(origin, 1, "protector", problem);
    }
    ConfigObject prot =
        object(pv, p, "the policy object protector { roles {...}, keys {...}, tables {...} }");
    checkFields(prot, p, TOP_ORDER, "protector");

    ConfigObject tablesObj =
        optionalObject(prot, p, "tables", "an object of tables, e.g. tables { \"db.t\" { ... } }");
    ConfigObject pathsObj =
        optionalObject(
            prot,
            p,
            "paths",
            "an object of locations, e.g. paths { \"s3a://bucket/pii/\" { ... } }");
    if ((tablesObj == null || tablesObj.isEmpty()) && (pathsObj == null || pathsObj.isEmpty())) {
      throw err(
          prot,
          p,
          "policy protects nothing: define at least one table under protector.tables"
              + " or one location under protector.paths");
    }

    parseRoles(prot, p);
    parseKeys(prot, p);

    Map<String, TablePolicy> tables = new LinkedHashMap<>();
    if (tablesObj != null) {
      List<String> tp = append(p, "tables");
      Map<String, Integer> seen = new LinkedHashMap<>();
      for (Map.Entry<String, ConfigValue> e : ordered(tablesObj)) {
        collecting(
            () -> {
              String name = e.getKey();
              ConfigValue v = e.getValue();
              List<String> path = append(tp, name);
              if (!TABLE_NAME.matcher(name.trim()).matches()) {
                throw err(
                    v,
                    path,
                    "table name '"
                        + name
                        + "' is not of the form namespace.table"
                        + tableNameHint(name, v));
              }
              String normalized = name.trim().toLowerCase(Locale.ROOT);
              if (seen.containsKey(normalized)) {
                throw err(
                    v,
                    path,
                    "duplicate table '"
                        + name
                        + "': already defined at line "
                        + seen.get(normalized)
                        + " (table names are case-insensitive)");
              }
              seen.put(normalized, line(v));
              ConfigObject o =
                  object(v, path, "a table object { footer-key = ..., columns { ... } }");
              checkNotMerged(o, name, path, "table '" + name + "'");
              tables.put(normalized, parseTable(o, path, normalized, "table " + normalized));
            });
      }
    }

    Map<String, TablePolicy> paths = new LinkedHashMap<>();
    if (pathsObj != null) {
      List<String> pp = append(p, "paths");
      Map<String, String> normalizedPrefixes = new LinkedHashMap<>();
      for (Map.Entry<String, ConfigValue> e : ordered(pathsObj)) {
        collecting(
            () -> {
              String prefix = e.getKey();
              ConfigValue v = e.getValue();
              List<String> path = append(pp, prefix);
              if (prefix.isBlank()
                  || prefix.chars().anyMatch(Character::isWhitespace)
                  || !(prefix.contains(":/") || prefix.startsWith("/"))) {
                throw err(
                    v,
                    path,
                    "location prefix '"
                        + prefix
                        + "' is not an absolute location;"
                        + " expected e.g. \"s3a://bucket/prefix/\" or \"/data/prefix/\"");
              }
              String same = normalizedPrefixes.putIfAbsent(Locations.normalize(prefix), prefix);
              if (same != null) {
                throw err(
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
                  object(
                      v,
                      path,
                      "a location object with the fields of a table { footer-key = ..., columns { ... } }");
              checkNotMerged(o, prefix, path, "location '" + prefix + "'");
              paths.put(prefix, parseTable(o, path, prefix, "location " + prefix));
            });
      }
    }

    for (FooterRef ref : footerRefs) {
      String use = columnKeyUse.get(ref.keyId);
      if (use != null) {
        errors.add(
            err(
                ref.at,
                ref.path,
                "footer key '"
                    + ref.keyId
                    + "' also protects "
                    + use
                    + "; the footer key is released to every reader, so it must never protect a column"
                    + " (use a dedicated footer key)"));
      }
    }
    Map<String, Set<String>> retiredKeys = new LinkedHashMap<>();
    collecting(() -> retiredKeys.putAll(parseRetiredKeys(prot, p)));
    if (!errors.isEmpty()) {
      // The first error in file order is thrown; the others ride along (PolicyException.all()).
      errors.sort(java.util.Comparator.comparingInt(PolicyException::line));
      PolicyException first = errors.get(0);
      errors.subList(1, errors.size()).forEach(first::addSuppressed);
      throw first;
    }
    return new Policy(origin, text, roles, keyIds, retiredKeys, tables, paths, warnings);
  }

  // ------------------------------------------------------------------------ sections

  private void parseRoles(ConfigObject prot, List<String> p) {
    ConfigObject o =
        optionalObject(
            prot, p, "roles", "an object of roles, e.g. roles { admin { users = [alice] } }");
    if (o == null) {
      return;
    }
    List<String> rp = append(p, "roles");
    Map<String, String> lowerNames = new LinkedHashMap<>();
    for (Map.Entry<String, ConfigValue> e : ordered(o)) {
      collecting(() -> parseRole(e.getKey(), e.getValue(), rp, lowerNames));
    }
  }

  private void parseRole(
      String name, ConfigValue v, List<String> rp, Map<String, String> lowerNames) {
    {
      List<String> path = append(rp, name);
      if (name.isBlank()) {
        throw err(v, path, "empty role name");
      }
      String other = lowerNames.putIfAbsent(name.toLowerCase(Locale.ROOT), name);
      if (other != null) {
        throw err(v, path, "role '" + name + "' differs only in case from role '" + other + "'");
      }
      ConfigObject ro = object(v, path, "a role object { users = [...], groups = [...] }");
      checkNotMerged(ro, name, path, "role '" + name + "'");
      checkFields(ro, path, ROLE_FIELDS, "role");
      checkDescription(ro, path);
      Set<String> users = new LinkedHashSet<>();
      for (Str s :
          stringList(ro.get("users"), append(path, "users"), "user names", "[alice, bob]")) {
        users.add(s.value);
      }
      Set<String> groups = new LinkedHashSet<>();
      for (Str s :
          stringList(ro.get("groups"), append(path, "groups"), "group names", "[secops]")) {
        groups.add(s.value);
      }
      if (users.isEmpty() && groups.isEmpty()) {
        throw err(
            ro,
            path,
            "role '"
                + name
                + "' has no users and no groups, so nobody holds it;"
                + " add users = [...] or groups = [...]");
      }
      roles.put(name, new Role(name, users, groups));
    }
  }

  private void parseKeys(ConfigObject prot, List<String> p) {
    ConfigValue v = prot.get("keys");
    if (v == null) {
      return;
    }
    List<String> kp = append(p, "keys");
    if (v.valueType() == ConfigValueType.LIST) {
      for (Str s : stringList(v, kp, "key ids", "[pii, fin]")) {
        addKey(s.value, s.at, kp);
      }
      return;
    }
    ConfigObject o = object(v, kp, "an object of key ids, e.g. keys { pii {}, footer {} }");
    for (Map.Entry<String, ConfigValue> e : ordered(o)) {
      collecting(
          () -> {
            List<String> path = append(kp, e.getKey());
            ConfigObject ko =
                object(
                    e.getValue(),
                    path,
                    "a key object (may be empty: " + quoteKey(e.getKey()) + " {})");
            checkNotMerged(ko, e.getKey(), path, "key '" + e.getKey() + "'");
            checkFields(ko, path, KEY_FIELDS, "key");
            checkDescription(ko, path);
            addKey(e.getKey(), e.getValue(), path);
          });
    }
  }

  /**
   * {@code retired-keys { pii2 { decrypt = [admin] } }}: keys that protect nothing any more but
   * still protect data written before a policy change, with the roles that may unwrap them to
   * decrypt that data (e.g. with a decrypt-rewrite). Parsed after the tables and paths, since a
   * retired key must protect no column and no footer.
   */
  private Map<String, Set<String>> parseRetiredKeys(ConfigObject prot, List<String> p) {
    Map<String, Set<String>> out = new LinkedHashMap<>();
    ConfigObject o =
        optionalObject(
            prot,
            p,
            "retired-keys",
            "an object of retired key ids, e.g. retired-keys { pii2 { decrypt = [admin] } }");
    if (o == null) {
      return out;
    }
    List<String> rp = append(p, "retired-keys");
    for (Map.Entry<String, ConfigValue> e : ordered(o)) {
      String id = e.getKey();
      List<String> path = append(rp, id);
      ConfigObject ko = object(e.getValue(), path, "a retired key object { decrypt = [roles] }");
      checkNotMerged(ko, id, path, "retired key '" + id + "'");
      checkFields(ko, path, RETIRED_KEY_FIELDS, "retired key");
      checkDescription(ko, path);
      requireKey(id, e.getValue(), path);
      String use = columnKeyUse.get(id);
      if (use != null) {
        throw err(
            ko,
            path,
            "retired key '"
                + id
                + "' still protects "
                + use
                + "; a retired key"
                + " protects no column (remove it from retired-keys, or move the column to another key)");
      }
      for (FooterRef ref : footerRefs) {
        if (ref.keyId.equals(id)) {
          throw err(
              ko,
              path,
              "retired key '"
                  + id
                  + "' is still the footer key at "
                  + ConfigUtil.joinPath(ref.path)
                  + " (line "
                  + line(ref.at)
                  + ")");
        }
      }
      Set<String> decrypt = new LinkedHashSet<>();
      List<String> dPath = append(path, "decrypt");
      for (Str s : stringList(ko.get("decrypt"), dPath, "role names", "[admin]")) {
        decrypt.add(checkRole(s, dPath, "decrypt"));
      }
      out.put(id, decrypt);
    }
    return out;
  }

  private void addKey(String id, ConfigValue at, List<String> path) {
    if (!KeyIds.isValid(id)) {
      throw err(at, path, "invalid key id '" + id + "': must be " + KeyIds.RULE);
    }
    if (!keyIds.add(id)) {
      throw err(at, path, "key '" + id + "' is listed twice");
    }
  }

  private TablePolicy parseTable(ConfigObject o, List<String> path, String name, String entry) {
    checkFields(o, path, TABLE_FIELDS, "table");
    checkDescription(o, path);

    List<String> fkPath = append(path, "footer-key");
    ConfigValue fk = o.get("footer-key");
    if (fk == null) {
      throw err(
          o,
          path,
          "missing footer-key: every table needs a footer key from protector.keys"
              + " ("
              + keyList()
              + ")");
    }
    String footerKey = str(fk, fkPath, "a key id");

    FooterMode mode = FooterMode.ENCRYPTED;
    ConfigValue fm = o.get("footer-mode");
    if (fm != null) {
      List<String> fmPath = append(path, "footer-mode");
      try {
        mode = FooterMode.parse(str(fm, fmPath, "one of encrypted, plaintext"));
      } catch (IllegalArgumentException e) {
        throw err(fm, fmPath, e.getMessage());
      }
    }

    EncryptionAlgorithm algorithm = EncryptionAlgorithm.AES_GCM_V1;
    ConfigValue al = o.get("algorithm");
    if (al != null) {
      List<String> alPath = append(path, "algorithm");
      try {
        algorithm = EncryptionAlgorithm.parse(str(al, alPath, "one of AES_GCM_V1, AES_GCM_CTR_V1"));
      } catch (IllegalArgumentException e) {
        throw err(al, alPath, e.getMessage());
      }
      if (algorithm == EncryptionAlgorithm.AES_GCM_CTR_V1) {
        // PME's CTR mode encrypts data pages without a GCM tag; only a CRC guards them.
        warnings.add(
            new PolicyWarning(
                origin,
                line(al),
                ConfigUtil.joinPath(alPath),
                "AES_GCM_CTR_V1 leaves the data pages of "
                    + entry
                    + " unauthenticated (AES-CTR with"
                    + " only a CRC, no GCM tag): anyone with write access to the storage can change"
                    + " protected values undetectably; use AES_GCM_V1 unless its cost matters"));
      }
    }

    Set<String> writers = new LinkedHashSet<>();
    List<String> wPath = append(path, "writers");
    for (Str s : stringList(o.get("writers"), wPath, "role names", "[etl]")) {
      writers.add(checkRole(s, wPath, "writers"));
    }

    Set<String> declassifiers = new LinkedHashSet<>();
    List<String> dPath = append(path, "declassify");
    for (Str s : stringList(o.get("declassify"), dPath, "role names", "[admin]")) {
      declassifiers.add(checkRole(s, dPath, "declassify"));
    }

    boolean strict = false;
    ConfigValue sv = o.get("strict");
    if (sv != null) {
      if (sv.valueType() != ConfigValueType.BOOLEAN) {
        throw err(sv, append(path, "strict"), "expected true or false but got " + describe(sv));
      }
      strict = (Boolean) sv.unwrapped();
    }

    List<ColumnPolicy> columns = new ArrayList<>();
    Map<String, ColumnPolicy> byLower = new LinkedHashMap<>();
    ConfigObject co =
        optionalObject(
            o,
            path,
            "columns",
            "an object of columns, e.g. columns { ssn { key = pii, clear = [admin] } }");
    if (co != null) {
      walkColumns(co, append(path, "columns"), List.of(), name, columns, byLower);
    }

    Set<String> plainColumns = new LinkedHashSet<>();
    List<String> pcPath = append(path, "plain-columns");
    ConfigValue pcv = o.get("plain-columns");
    if (pcv != null && !strict) {
      throw err(
          pcv,
          pcPath,
          "plain-columns applies only to strict entries; add strict = true or"
              + " remove plain-columns");
    }
    for (Str s : stringList(pcv, pcPath, "column names", "[id, created_at]")) {
      String lower = s.value.toLowerCase(Locale.ROOT);
      for (ColumnPolicy c : byLower.values()) {
        String cl = c.path().toLowerCase(Locale.ROOT);
        if (cl.equals(lower) || lower.startsWith(cl + ".") || cl.startsWith(lower + ".")) {
          throw err(
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
        throw err(s.at, pcPath, "plain column '" + s.value + "' is listed twice");
      }
    }

    if (byLower.containsKey(footerKey.toLowerCase(Locale.ROOT))) {
      throw err(
          fk,
          fkPath,
          "footer-key '"
              + footerKey
              + "' names a column of this table;"
              + " footer-key must name a key id from protector.keys ("
              + keyList()
              + ")");
    }
    requireKey(footerKey, fk, fkPath);
    footerRefs.add(new FooterRef(footerKey, fk, fkPath));
    return new TablePolicy(
        name,
        footerKey,
        mode,
        algorithm,
        writers,
        declassifiers,
        strict,
        plainColumns,
        columns,
        ConfigUtil.joinPath(path),
        line(o));
  }

  private void walkColumns(
      ConfigObject obj,
      List<String> cfgPath,
      List<String> parent,
      String table,
      List<ColumnPolicy> out,
      Map<String, ColumnPolicy> byLower) {
    for (Map.Entry<String, ConfigValue> e : ordered(obj)) {
      collecting(() -> walkColumn(e.getKey(), e.getValue(), cfgPath, parent, table, out, byLower));
    }
  }

  private void walkColumn(
      String name,
      ConfigValue v,
      List<String> cfgPath,
      List<String> parent,
      String table,
      List<ColumnPolicy> out,
      Map<String, ColumnPolicy> byLower) {
    {
      List<String> path = append(cfgPath, name);
      if (name.isEmpty()) {
        throw err(v, path, "empty column name");
      }
      String[] segs = name.split("\\.", -1);
      for (String seg : segs) {
        if (seg.isBlank()) {
          throw err(
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
          object(v, path, "a column object { key = ..., clear = [...] } (or a struct of columns)");
      if (isColumn(o)) {
        ColumnPolicy c = parseColumn(o, path, name, colPath, table);
        String lower = colPath.toLowerCase(Locale.ROOT);
        ColumnPolicy dup = byLower.get(lower);
        if (dup != null) {
          throw err(
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
        for (ColumnPolicy other : byLower.values()) {
          String ol = other.path().toLowerCase(Locale.ROOT);
          if (lower.startsWith(ol + ".") || ol.startsWith(lower + ".")) {
            throw err(
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
        byLower.put(lower, c);
        out.add(c);
      } else {
        walkColumns(o, path, parts, table, out, byLower);
      }
    }
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
    checkNotMerged(o, lastKey, path, "column '" + colPath + "'");
    checkFields(o, path, COLUMN_FIELDS, "column");
    checkDescription(o, path);

    ConfigValue kv = o.get("key");
    List<String> kPath = append(path, "key");
    if (kv == null) {
      throw err(
          o, path, "column '" + colPath + "' has no key; add key = <one of: " + keyList() + ">");
    }
    String keyId = str(kv, kPath, "a key id");
    requireKey(keyId, kv, kPath);

    Set<String> clear = new LinkedHashSet<>();
    List<String> cPath = append(path, "clear");
    for (Str s : stringList(o.get("clear"), cPath, "role names", "[admin]")) {
      clear.add(checkRole(s, cPath, "clear"));
    }

    Map<String, Mask> masked = new LinkedHashMap<>();
    Map<String, Integer> maskLines = new LinkedHashMap<>();
    ConfigObject mo =
        optionalObject(
            o, path, "masked", "an object of role = mask, e.g. masked { analyst = hash }");
    if (mo != null) {
      List<String> mPath = append(path, "masked");
      for (Map.Entry<String, ConfigValue> e : ordered(mo)) {
        String role = e.getKey();
        ConfigValue mv = e.getValue();
        List<String> rPath = append(mPath, role);
        checkRole(new Str(role, mv), rPath, "masked");
        Mask mask;
        if (mv.valueType() == ConfigValueType.NULL) {
          mask = Mask.nullMask();
        } else if (mv.valueType() == ConfigValueType.STRING) {
          try {
            mask = Mask.parse((String) mv.unwrapped());
          } catch (IllegalArgumentException ex) {
            throw err(mv, rPath, ex.getMessage());
          }
        } else {
          throw err(
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
        if (clear.contains(role)) {
          throw err(
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

    OnDenied onDenied = OnDenied.NULL;
    ConfigValue dv = o.get("on-denied");
    if (dv != null && dv.valueType() != ConfigValueType.NULL) {
      List<String> dPath = append(path, "on-denied");
      if (dv.valueType() != ConfigValueType.STRING) {
        throw err(dv, dPath, "expected one of null, fail but got " + describe(dv));
      }
      try {
        onDenied = OnDenied.parse((String) dv.unwrapped());
      } catch (IllegalArgumentException ex) {
        throw err(dv, dPath, ex.getMessage());
      }
    }

    ProtectionMethod method = ProtectionMethod.pme();
    ConfigValue mtv = o.get("method");
    List<String> mtPath = append(path, "method");
    if (mtv != null) {
      try {
        method =
            ProtectionMethod.parse(
                str(mtv, mtPath, "a method (" + ProtectionMethod.VALID_SPECS + ")"));
      } catch (IllegalArgumentException ex) {
        throw err(mtv, mtPath, ex.getMessage());
      }
    }

    ConfigValue dmv = o.get("domain");
    List<String> dmPath = append(path, "domain");
    String domain = null;
    if (dmv != null) {
      if (!method.tokenizes()) {
        throw err(
            dmv,
            dmPath,
            "domain applies to tokenized columns only; column '"
                + colPath
                + "' uses method pme (set method = deterministic or fpe(...), or remove domain)");
      }
      domain = str(dmv, dmPath, "a token domain name, e.g. \"ssn\"");
      if (domain.length() > 200 || domain.chars().anyMatch(Character::isISOControl)) {
        throw err(
            dmv, dmPath, "a token domain is 1-200 printable characters, got " + describe(dmv));
      }
    }

    boolean pme = true;
    ConfigValue pmv = o.get("pme");
    if (pmv != null) {
      if (pmv.valueType() != ConfigValueType.BOOLEAN) {
        throw err(pmv, append(path, "pme"), "expected true or false but got " + describe(pmv));
      }
      pme = (Boolean) pmv.unwrapped();
      if (!pme && !method.tokenizes()) {
        throw err(
            pmv,
            append(path, "pme"),
            "pme = false would store column '"
                + colPath
                + "' in plaintext: it applies to tokenized columns only (method = deterministic or"
                + " fpe(...))");
      }
    }

    Set<String> token = new LinkedHashSet<>();
    List<String> tPath = append(path, "token");
    for (Str s : stringList(o.get("token"), tPath, "role names", "[analyst]")) {
      checkRole(s, tPath, "token");
      if (!method.tokenizes()) {
        throw err(
            s.at,
            tPath,
            "token access applies to tokenized columns only; column '"
                + colPath
                + "' uses method pme (set method = deterministic or fpe(...))");
      }
      if (clear.contains(s.value) || masked.containsKey(s.value)) {
        throw err(
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

    if (method.tokenizes()) {
      if (domain == null) {
        domain = ColumnPolicy.defaultDomain(table, colPath);
      }
      String where = "column '" + colPath + "' of " + table + " (line " + line(o) + ")";
      DomainUse first = domainUses.putIfAbsent(domain, new DomainUse(keyId, method, where));
      if (first != null && (!first.keyId.equals(keyId) || !first.method.equals(method))) {
        throw err(
            dmv != null ? dmv : o,
            dmv != null ? dmPath : path,
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

  // ------------------------------------------------------------------------ checks

  private void requireKey(String keyId, ConfigValue at, List<String> path) {
    if (!keyIds.contains(keyId)) {
      throw err(
          at,
          path,
          "unknown key '"
              + keyId
              + "'; "
              + (keyIds.isEmpty()
                  ? "no keys are defined in protector.keys"
                  : "keys defined in protector.keys: " + keyList() + suggest(keyId, keyIds)));
    }
  }

  private String checkRole(Str s, List<String> path, String where) {
    if (!roles.containsKey(s.value)) {
      throw err(
          s.at,
          path,
          "unknown role '"
              + s.value
              + "' in "
              + where
              + "; "
              + (roles.isEmpty()
                  ? "no roles are defined in protector.roles"
                  : "roles defined in protector.roles: "
                      + String.join(", ", roles.keySet())
                      + suggest(s.value, roles.keySet())));
    }
    return s.value;
  }

  private void checkFields(ConfigObject o, List<String> path, List<String> allowed, String what) {
    for (Map.Entry<String, ConfigValue> e : ordered(o)) {
      if (!allowed.contains(e.getKey())) {
        throw err(
            e.getValue(),
            append(path, e.getKey()),
            "unknown field '"
                + e.getKey()
                + "' in "
                + what
                + "; valid fields: "
                + String.join(", ", allowed)
                + suggest(e.getKey(), allowed));
      }
    }
  }

  private void checkDescription(ConfigObject o, List<String> path) {
    ConfigValue d = o.get("description");
    if (d != null) {
      str(d, append(path, "description"), "a description string");
    }
  }

  /** Rejects an object assembled by Typesafe from a key written twice. */
  private void checkNotMerged(ConfigObject o, String key, List<String> path, String what) {
    ConfigOrigin or = o.origin();
    String desc = or.description();
    if (desc.startsWith(MERGE_OF)) {
      throw err(o, path, what + " is defined more than once (" + desc + "); write each key once");
    }
    Matcher m = LINE_RANGE.matcher(desc);
    if (m.find()) {
      int first = Integer.parseInt(m.group(1));
      int last = Integer.parseInt(m.group(2));
      // Only a repeated key, not ${base} { ... } inheritance: the key must appear on both lines.
      if (first != last
          && column(key, first) != Integer.MAX_VALUE
          && column(key, last) != Integer.MAX_VALUE) {
        throw new PolicyException(
            origin,
            last,
            ConfigUtil.joinPath(path),
            what
                + " is defined more than once (lines "
                + first
                + " and "
                + last
                + "); write each key once");
      }
    }
  }

  // ------------------------------------------------------------------------ value helpers

  private static final class Str {
    final String value;
    final ConfigValue at;

    Str(String value, ConfigValue at) {
      this.value = value;
      this.at = at;
    }
  }

  private ConfigObject optionalObject(
      ConfigObject parent, List<String> path, String field, String expectation) {
    ConfigValue v = parent.get(field);
    return v == null ? null : object(v, append(path, field), expectation);
  }

  private ConfigObject object(ConfigValue v, List<String> path, String expectation) {
    if (v.valueType() != ConfigValueType.OBJECT) {
      throw err(v, path, "expected " + expectation + " but got " + describe(v));
    }
    return (ConfigObject) v;
  }

  private String str(ConfigValue v, List<String> path, String expectation) {
    if (v.valueType() != ConfigValueType.STRING) {
      throw err(v, path, "expected " + expectation + " but got " + describe(v));
    }
    String s = ((String) v.unwrapped()).trim();
    if (s.isEmpty()) {
      throw err(v, path, "expected " + expectation + " but got an empty string");
    }
    return s;
  }

  private List<Str> stringList(ConfigValue v, List<String> path, String what, String example) {
    List<Str> out = new ArrayList<>();
    if (v == null) {
      return out;
    }
    if (v.valueType() != ConfigValueType.LIST) {
      String hint =
          v.valueType() == ConfigValueType.STRING
              ? "; write a list even for one element: [" + v.unwrapped() + "]"
              : "";
      throw err(
          v,
          path,
          "expected a list of " + what + ", e.g. " + example + ", but got " + describe(v) + hint);
    }
    ConfigList list = (ConfigList) v;
    for (int i = 0; i < list.size(); i++) {
      ConfigValue el = list.get(i);
      if (el.valueType() != ConfigValueType.STRING || ((String) el.unwrapped()).isBlank()) {
        throw err(
            el,
            path,
            "expected a list of "
                + what
                + ", but element "
                + (i + 1)
                + " is "
                + (el.valueType() == ConfigValueType.STRING ? "an empty string" : describe(el)));
      }
      out.add(new Str(((String) el.unwrapped()).trim(), el));
    }
    return out;
  }

  private static String describe(ConfigValue v) {
    switch (v.valueType()) {
      case STRING:
        return "string \"" + v.unwrapped() + "\"";
      case NULL:
        return "null";
      case OBJECT:
        return "object " + shorten(v.render(ConfigRenderOptions.concise()));
      case LIST:
        return "list " + shorten(v.render(ConfigRenderOptions.concise()));
      default:
        return v.valueType().name().toLowerCase(Locale.ROOT)
            + " "
            + v.render(ConfigRenderOptions.concise());
    }
  }

  private static String shorten(String s) {
    return s.length() <= 60 ? s : s.substring(0, 57) + "...";
  }

  private String keyList() {
    return keyIds.isEmpty() ? "none defined" : String.join(", ", keyIds);
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

  private static String quoteKey(String k) {
    return ConfigUtil.joinPath(k);
  }

  private static String suggest(String bad, java.util.Collection<String> valid) {
    String best = null;
    int bestD = Integer.MAX_VALUE;
    for (String v : valid) {
      int d = distance(bad.toLowerCase(Locale.ROOT), v.toLowerCase(Locale.ROOT));
      if (d < bestD) {
        bestD = d;
        best = v;
      }
    }
    return best != null && bestD <= (best.length() >= 5 ? 2 : 1)
        ? " (did you mean '" + best + "'?)"
        : "";
  }

  /**
   * Optimal string alignment distance: edits plus adjacent transpositions ("claer" -> "clear" is
   * 1).
   */
  private static int distance(String a, String b) {
    int[][] d = new int[a.length() + 1][b.length() + 1];
    for (int i = 0; i <= a.length(); i++) {
      d[i][0] = i;
    }
    for (int j = 0; j <= b.length(); j++) {
      d[0][j] = j;
    }
    for (int i = 1; i <= a.length(); i++) {
      for (int j = 1; j <= b.length(); j++) {
        int cost = a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1;
        d[i][j] = Math.min(Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1), d[i - 1][j - 1] + cost);
        if (i > 1
            && j > 1
            && a.charAt(i - 1) == b.charAt(j - 2)
            && a.charAt(i - 2) == b.charAt(j - 1)) {
          d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
        }
      }
    }
    return d[a.length()][b.length()];
  }

  // ------------------------------------------------------------------------ order and origins

  /**
   * Entries in the order they were written. Typesafe objects are hash maps, so sort by line and,
   * within a line, by where the key appears in the source text.
   */
  private List<Map.Entry<String, ConfigValue>> ordered(ConfigObject o) {
    List<Map.Entry<String, ConfigValue>> list = new ArrayList<>(o.entrySet());
    Map<String, Integer> cols = new LinkedHashMap<>();
    for (Map.Entry<String, ConfigValue> e : list) {
      cols.put(e.getKey(), column(e.getKey(), line(e.getValue())));
    }
    list.sort(
        Comparator.<Map.Entry<String, ConfigValue>>comparingInt(e -> sortLine(e.getValue()))
            .thenComparingInt(e -> cols.get(e.getKey()))
            .thenComparing(Map.Entry::getKey));
    return list;
  }

  private static int sortLine(ConfigValue v) {
    int l = line(v);
    return l < 0 ? Integer.MAX_VALUE : l;
  }

  /**
   * Offset of {@code key} (quoted or bare) as a whole token on a source line; MAX_VALUE if absent.
   */
  private int column(String key, int line) {
    if (line < 1 || line > lines.length) {
      return Integer.MAX_VALUE;
    }
    String l = lines[line - 1];
    int best = Integer.MAX_VALUE;
    List<String> tokens = key.isEmpty() ? List.of("\"\"") : List.of("\"" + key + "\"", key);
    for (String tok : tokens) {
      int from = 0;
      int idx;
      while ((idx = l.indexOf(tok, from)) >= 0) {
        int end = idx + tok.length();
        boolean startOk = idx == 0 || !isIdent(l.charAt(idx - 1));
        boolean endOk = end >= l.length() || !isIdent(l.charAt(end));
        if (startOk && endOk) {
          best = Math.min(best, idx);
          break;
        }
        from = idx + 1;
      }
    }
    return best;
  }

  private static boolean isIdent(char c) {
    return Character.isLetterOrDigit(c) || c == '_' || c == '-';
  }

  /** Runs one independent part of the parse; its error is recorded and parsing goes on. */
  private void collecting(Runnable part) {
    try {
      part.run();
    } catch (PolicyException e) {
      errors.add(e);
    }
  }

  private static int line(ConfigValue v) {
    return v == null || v.origin() == null ? -1 : v.origin().lineNumber();
  }

  private PolicyException err(ConfigValue at, List<String> path, String problem) {
    return new PolicyException(origin, line(at), ConfigUtil.joinPath(path), problem);
  }

  private PolicyException fromConfigException(ConfigException e) {
    ConfigOrigin or = e.origin();
    int line = or == null ? -1 : or.lineNumber();
    String msg = e.getMessage() == null ? e.toString() : e.getMessage();
    if (or != null && msg.startsWith(or.description() + ": ")) {
      msg = msg.substring(or.description().length() + 2);
    }
    boolean syntax =
        e instanceof ConfigException.Parse
            && !(e instanceof ConfigException.UnresolvedSubstitution);
    if (!syntax) {
      return new PolicyException(origin, line, "", "invalid HOCON: " + msg, e);
    }
    // The parser's words ("expecting a close parentheses ')'") rarely name the fix; unbalanced
    // brackets are the usual cause, and where they are is easy to find.
    String ours = Brackets.problem(text);
    if (ours != null) {
      return new PolicyException(
          origin,
          Brackets.line(text),
          "",
          "HOCON syntax error: " + ours + " (the parser says, at line " + line + ": " + msg + ")",
          e);
    }
    return new PolicyException(
        origin,
        line,
        "",
        "HOCON syntax error: "
            + msg
            + "; check this line and the one before for a missing comma, quote, '=' or bracket",
        e);
  }

  private static List<String> append(List<String> path, String key) {
    List<String> out = new ArrayList<>(path.size() + 1);
    out.addAll(path);
    out.add(key);
    return out;
  }
}
