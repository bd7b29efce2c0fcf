/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.cli;

import com.typesafe.config.ConfigException;
import com.typesafe.config.ConfigFactory;
import com.typesafe.config.ConfigObject;
import com.typesafe.config.ConfigParseOptions;
import com.typesafe.config.ConfigSyntax;
import com.typesafe.config.ConfigUtil;
import com.typesafe.config.ConfigValue;
import com.typesafe.config.ConfigValueType;
import io.icebergprotector.policy.ColumnType;
import io.icebergprotector.policy.PolicyException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Reads a table-schema file for {@code policy validate --table-schema}. Format (HOCON):
 *
 * <pre>
 * "db.customers" {
 *   ssn    = string
 *   salary = "decimal(10,2)"
 *   "address.zip" = string          # a struct field as a dotted path...
 *   contact { phone = string }      # ...or nested: contact is a struct, contact.phone a string
 * }
 * </pre>
 *
 * Table names are quoted {@code namespace.table}; types are {@link ColumnType#fromName} names.
 * Errors are {@link PolicyException}s with the schema file as origin.
 */
final class TableSchemas {
  private TableSchemas() {}

  static Map<String, Map<String, ColumnType>> load(Path file) {
    String origin = file.toString();
    String text;
    try {
      text = Files.readString(file, StandardCharsets.UTF_8);
    } catch (NoSuchFileException e) {
      throw new PolicyException(origin, -1, "", "table schema file not found", e);
    } catch (IOException e) {
      throw new PolicyException(origin, -1, "", "cannot read table schema file: " + e, e);
    }
    return parse(text, origin);
  }

  static Map<String, Map<String, ColumnType>> parse(String text, String origin) {
    ConfigObject root;
    try {
      root =
          ConfigFactory.parseString(
                  text,
                  ConfigParseOptions.defaults()
                      .setOriginDescription(origin)
                      .setSyntax(ConfigSyntax.CONF))
              .root();
    } catch (ConfigException e) {
      String msg = e.getMessage();
      if (e.origin() != null && msg.startsWith(e.origin().description() + ": ")) {
        msg = msg.substring(e.origin().description().length() + 2);
      }
      throw new PolicyException(
          origin,
          e.origin() == null ? -1 : e.origin().lineNumber(),
          "",
          "HOCON syntax error: " + msg,
          e);
    }
    Map<String, Map<String, ColumnType>> out = new LinkedHashMap<>();
    for (Map.Entry<String, ConfigValue> t : root.entrySet()) {
      String table = t.getKey();
      ConfigValue v = t.getValue();
      if (!table.contains(".") || v.valueType() != ConfigValueType.OBJECT) {
        throw new PolicyException(
            origin,
            v.origin().lineNumber(),
            ConfigUtil.joinPath(table),
            "expected a table \"namespace.table\" { column = type, ... }; quote table names");
      }
      Map<String, ColumnType> columns = new LinkedHashMap<>();
      walk((ConfigObject) v, new ArrayList<>(List.of(table)), "", columns, origin);
      out.put(table.toLowerCase(Locale.ROOT), columns);
    }
    return out;
  }

  static boolean containsTable(Map<String, Map<String, ColumnType>> schemas, String table) {
    return schemas.containsKey(table.toLowerCase(Locale.ROOT));
  }

  private static void walk(
      ConfigObject obj,
      List<String> cfgPath,
      String prefix,
      Map<String, ColumnType> out,
      String origin) {
    for (Map.Entry<String, ConfigValue> e : obj.entrySet()) {
      String name = prefix.isEmpty() ? e.getKey() : prefix + "." + e.getKey();
      ConfigValue v = e.getValue();
      List<String> path = new ArrayList<>(cfgPath);
      path.add(e.getKey());
      if (v.valueType() == ConfigValueType.OBJECT) {
        out.put(name, ColumnType.STRUCT);
        walk((ConfigObject) v, path, name, out, origin);
      } else if (v.valueType() == ConfigValueType.STRING) {
        try {
          out.put(name, ColumnType.fromName((String) v.unwrapped()));
        } catch (IllegalArgumentException ex) {
          throw new PolicyException(
              origin, v.origin().lineNumber(), ConfigUtil.joinPath(path), ex.getMessage());
        }
      } else {
        throw new PolicyException(
            origin,
            v.origin().lineNumber(),
            ConfigUtil.joinPath(path),
            "expected a column type such as string, long or date, but got "
                + v.valueType().name().toLowerCase(Locale.ROOT));
      }
    }
  }
}
