/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.policy;

import static io.icebergprotector.policy.Preconditions.checkArgument;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/** Protection of one column: the key that encrypts it and who sees what. Immutable. */
public final class ColumnPolicy {
  private final String path;
  private final List<String> pathParts;
  private final String keyId;
  private final Set<String> clearRoles;
  private final Map<String, Mask> maskedRoles;
  private final OnDenied onDenied;
  private final ProtectionMethod method;
  private final String domain;
  private final boolean pme;
  private final Set<String> tokenRoles;
  // Where the column was defined, so later checks (validateSchema) can point at it.
  private final String configKey;
  private final int line;
  private final Map<String, Integer> maskLines;

  ColumnPolicy(
      String path,
      String keyId,
      Set<String> clearRoles,
      Map<String, Mask> maskedRoles,
      OnDenied onDenied,
      ProtectionMethod method,
      String domain,
      boolean pme,
      Set<String> tokenRoles,
      String configKey,
      int line,
      Map<String, Integer> maskLines) {
    this.path = path;
    this.pathParts = List.copyOf(Arrays.asList(path.split("\\.", -1)));
    this.keyId = keyId;
    this.clearRoles = Collections.unmodifiableSet(new LinkedHashSet<>(clearRoles));
    this.maskedRoles = Collections.unmodifiableMap(new LinkedHashMap<>(maskedRoles));
    this.onDenied = onDenied == null ? OnDenied.NULL : onDenied;
    this.method = method == null ? ProtectionMethod.pme() : method;
    this.domain = this.method.tokenizes() ? domain : null;
    this.pme = pme || !this.method.tokenizes();
    this.tokenRoles = Collections.unmodifiableSet(new LinkedHashSet<>(tokenRoles));
    this.configKey = configKey;
    this.line = line;
    this.maskLines = Map.copyOf(maskLines);
  }

  /** A column policy built in code (tests, tools); no source location. */
  public static ColumnPolicy of(
      String path,
      String keyId,
      Set<String> clearRoles,
      Map<String, Mask> maskedRoles,
      OnDenied onDenied) {
    return new ColumnPolicy(
        path,
        keyId,
        clearRoles,
        maskedRoles,
        onDenied,
        ProtectionMethod.pme(),
        null,
        true,
        Set.of(),
        path,
        -1,
        Map.of());
  }

  /**
   * A tokenized column built in code (tests, tools); no source location. {@code domain} null means
   * the default, {@code table.column}.
   */
  public static ColumnPolicy tokenized(
      String table,
      String path,
      String keyId,
      ProtectionMethod method,
      String domain,
      boolean pme,
      Set<String> clearRoles,
      Set<String> tokenRoles,
      Map<String, Mask> maskedRoles,
      OnDenied onDenied) {
    checkArgument(method.tokenizes(), "Cannot tokenize column %s with method pme", path);
    return new ColumnPolicy(
        path,
        keyId,
        clearRoles,
        maskedRoles,
        onDenied,
        method,
        domain == null ? defaultDomain(table, path) : domain,
        pme,
        tokenRoles,
        path,
        -1,
        Map.of());
  }

  /** The default token domain of a column: {@code <table>.<column path>}, lower case. */
  public static String defaultDomain(String table, String path) {
    return (table + "." + path).toLowerCase(java.util.Locale.ROOT);
  }

  /** Dotted path as written in the policy, e.g. {@code address.zip}. */
  public String path() {
    return path;
  }

  /** {@code ["address", "zip"]}. */
  public List<String> pathParts() {
    return pathParts;
  }

  /** The master key id (in the key service) that protects this column. */
  public String keyId() {
    return keyId;
  }

  /** Roles that read plaintext. */
  public Set<String> clearRoles() {
    return clearRoles;
  }

  /** Roles that read masked values, in policy order. */
  public Map<String, Mask> maskedRoles() {
    return maskedRoles;
  }

  public OnDenied onDenied() {
    return onDenied;
  }

  /** How the values are protected; {@link ProtectionMethod#pme()} by default. */
  public ProtectionMethod method() {
    return method;
  }

  /** True for deterministic and fpe columns, whose stored values are tokens. */
  public boolean tokenized() {
    return method.tokenizes();
  }

  /**
   * The token domain (the tweak, and part of the token key's derivation) of a tokenized column;
   * null for pme columns. Columns that share key and domain give equal tokens for equal values.
   */
  public String domain() {
    return domain;
  }

  /**
   * Whether the column chunk is PME-encrypted as well: always for pme columns; for tokenized
   * columns unless the policy says {@code pme = false}, when the tokens are stored as a plain
   * column that engines without any key read.
   */
  public boolean pme() {
    return pme;
  }

  /** Roles that read the stored token (tokenized columns only). */
  public Set<String> tokenRoles() {
    return tokenRoles;
  }

  /**
   * CLEAR if any role is clear; else MASKED with the mask of the first masked role (policy order);
   * else TOKEN if any role is a token role; else DENIED with {@link #onDenied()}.
   */
  public Access accessFor(Set<String> roles) {
    if (roles == null || roles.isEmpty()) {
      return Access.denied(onDenied);
    }
    for (String r : clearRoles) {
      if (roles.contains(r)) {
        return Access.clear();
      }
    }
    for (Map.Entry<String, Mask> e : maskedRoles.entrySet()) {
      if (roles.contains(e.getKey())) {
        return Access.masked(e.getValue());
      }
    }
    for (String r : tokenRoles) {
      if (roles.contains(r)) {
        return Access.token();
      }
    }
    return Access.denied(onDenied);
  }

  /** This column with only {@code roles} left in its clear and masked lists, in policy order. */
  ColumnPolicy restrictedTo(Set<String> roles) {
    Set<String> clear = new LinkedHashSet<>(clearRoles);
    clear.retainAll(roles);
    Map<String, Mask> masked = new LinkedHashMap<>(maskedRoles);
    masked.keySet().retainAll(roles);
    Set<String> token = new LinkedHashSet<>(tokenRoles);
    token.retainAll(roles);
    return new ColumnPolicy(
        path, keyId, clear, masked, onDenied, method, domain, pme, token, configKey, line,
        maskLines);
  }

  String configKey() {
    return configKey;
  }

  int line() {
    return line;
  }

  int maskLine(String role) {
    return maskLines.getOrDefault(role, line);
  }

  /**
   * Value equality over what decides access: path, key, clear roles, masked roles in order (the
   * first listed wins), on-denied, method, domain, pme and token roles. Where the column was
   * written is not compared.
   */
  @Override
  public boolean equals(Object o) {
    if (this == o) {
      return true;
    }
    if (!(o instanceof ColumnPolicy)) {
      return false;
    }
    ColumnPolicy that = (ColumnPolicy) o;
    return path.equals(that.path)
        && keyId.equals(that.keyId)
        && clearRoles.equals(that.clearRoles)
        && new ArrayList<>(maskedRoles.entrySet())
            .equals(new ArrayList<>(that.maskedRoles.entrySet()))
        && onDenied == that.onDenied
        && method.equals(that.method)
        && Objects.equals(domain, that.domain)
        && pme == that.pme
        && tokenRoles.equals(that.tokenRoles);
  }

  @Override
  public int hashCode() {
    return Objects.hash(path, keyId, clearRoles, maskedRoles, onDenied, method, domain, pme);
  }

  @Override
  public String toString() {
    return path
        + "{key="
        + keyId
        + ", clear="
        + clearRoles
        + ", masked="
        + maskedRoles
        + ", on-denied="
        + onDenied.spec()
        + (method.tokenizes()
            ? ", method="
                + method.spec()
                + ", domain="
                + domain
                + ", pme="
                + pme
                + ", token="
                + tokenRoles
            : "")
        + "}";
  }
}
