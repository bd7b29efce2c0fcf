package io.icebergprotector.policy;

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
      String configKey,
      int line,
      Map<String, Integer> maskLines) {
    this.path = path;
    this.pathParts = List.copyOf(Arrays.asList(path.split("\\.", -1)));
    this.keyId = keyId;
    this.clearRoles = Collections.unmodifiableSet(new LinkedHashSet<>(clearRoles));
    this.maskedRoles = Collections.unmodifiableMap(new LinkedHashMap<>(maskedRoles));
    this.onDenied = onDenied == null ? OnDenied.NULL : onDenied;
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
    return new ColumnPolicy(path, keyId, clearRoles, maskedRoles, onDenied, path, -1, Map.of());
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

  /**
   * CLEAR if any role is clear; else MASKED with the mask of the first masked role (policy order);
   * else DENIED with {@link #onDenied()}.
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
    return Access.denied(onDenied);
  }

  /** This column with only {@code roles} left in its clear and masked lists, in policy order. */
  ColumnPolicy restrictedTo(Set<String> roles) {
    Set<String> clear = new LinkedHashSet<>(clearRoles);
    clear.retainAll(roles);
    Map<String, Mask> masked = new LinkedHashMap<>(maskedRoles);
    masked.keySet().retainAll(roles);
    return new ColumnPolicy(path, keyId, clear, masked, onDenied, configKey, line, maskLines);
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
   * first listed wins) and on-denied. Where the column was written is not compared.
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
        && onDenied == that.onDenied;
  }

  @Override
  public int hashCode() {
    return Objects.hash(path, keyId, clearRoles, maskedRoles, onDenied);
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
        + "}";
  }
}
