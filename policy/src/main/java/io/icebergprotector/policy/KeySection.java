/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.policy;

import static io.icebergprotector.policy.PolicySource.append;

import com.typesafe.config.ConfigObject;
import com.typesafe.config.ConfigUtil;
import com.typesafe.config.ConfigValue;
import com.typesafe.config.ConfigValueType;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * {@code protector.keys}: the key ids tables, paths and columns may name, as a list ({@code keys =
 * [pii, footer]}) or an object ({@code keys { pii {}, footer {} }}). {@link #requireKey} is how the
 * other sections name them.
 */
final class KeySection {
  private static final List<String> KEY_FIELDS = PolicyFields.names(PolicyFields.Scope.KEY);

  private final PolicySource src;
  private final Set<String> keyIds = new LinkedHashSet<>();

  KeySection(PolicySource src) {
    this.src = src;
  }

  Set<String> keyIds() {
    return keyIds;
  }

  void parse(ConfigObject prot, List<String> p) {
    ConfigValue v = prot.get("keys");
    if (v == null) {
      return;
    }
    List<String> kp = append(p, "keys");
    if (v.valueType() == ConfigValueType.LIST) {
      for (PolicySource.Str s : src.stringList(v, kp, "key ids", "[pii, fin]")) {
        addKey(s.value, s.at, kp);
      }
      return;
    }
    ConfigObject o = src.object(v, kp, "an object of key ids, e.g. keys { pii {}, footer {} }");
    for (Map.Entry<String, ConfigValue> e : src.ordered(o)) {
      src.collecting(
          () -> {
            List<String> path = append(kp, e.getKey());
            src.entry(
                src.object(
                    e.getValue(),
                    path,
                    "a key object (may be empty: " + ConfigUtil.joinPath(e.getKey()) + " {})"),
                e.getKey(),
                path,
                KEY_FIELDS,
                "key");
            addKey(e.getKey(), e.getValue(), path);
          });
    }
  }

  private void addKey(String id, ConfigValue at, List<String> path) {
    if (!KeyIds.isValid(id)) {
      throw src.err(at, path, "invalid key id '" + id + "': must be " + KeyIds.RULE);
    }
    if (!keyIds.add(id)) {
      throw src.err(at, path, "key '" + id + "' is listed twice");
    }
  }

  /**
   * Checks that {@code keyId}, named at {@code at}, is a key of protector.keys.
   *
   * @throws PolicyException naming the defined keys (and the nearest one) if it is not
   */
  void requireKey(String keyId, ConfigValue at, List<String> path) {
    if (!keyIds.contains(keyId)) {
      throw src.err(
          at,
          path,
          "unknown key '"
              + keyId
              + "'; "
              + (keyIds.isEmpty()
                  ? "no keys are defined in protector.keys"
                  : "keys defined in protector.keys: "
                      + keyList()
                      + Suggestions.suggest(keyId, keyIds)));
    }
  }

  /** The key ids, for errors. */
  String keyList() {
    return keyIds.isEmpty() ? "none defined" : String.join(", ", keyIds);
  }
}
