/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.spark.core;

import io.icebergprotector.policy.ColumnPolicy;
import io.icebergprotector.policy.TablePolicy;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.function.Predicate;
import org.apache.spark.sql.types.ArrayType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.MapType;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

/**
 * The write check of a {@code strict} policy entry: every column written must be protected by the
 * entry or listed in its {@code plain-columns}, so a column nobody decided about is never stored in
 * plaintext by mistake. A field named like one of the entry's protected columns but nested where no
 * policy column covers it (a struct field {@code person.ssn}, a field of a map's value struct
 * {@code m.value.ssn}) is refused even inside a plain column: exact-name matching would store it
 * under the footer key only. Map keys are data and cannot be checked here; names that differ in
 * more than case ({@code SSN_}) are other columns, which strictness refuses unless listed.
 *
 * <p>Paths are the policy's: struct fields joined with dots, list elements left out, a map's key
 * and value as {@code key} and {@code value}.
 */
public final class StrictSchema {
  private StrictSchema() {}

  /**
   * Refuses {@code schema} under a strict {@code entry} (nothing to check if it is not strict).
   *
   * @param isProtected whether a (lower-case, dotted) path is a protected column of the entry
   * @param target what is written, for messages (a location or table)
   */
  public static void check(
      TablePolicy entry,
      StructType schema,
      Predicate<String> isProtected,
      String target,
      String policyOrigin) {
    if (!entry.strict()) {
      return;
    }
    Set<String> protectedNames = new LinkedHashSet<>();
    for (ColumnPolicy c : entry.columns()) {
      List<String> parts = c.pathParts();
      protectedNames.add(lower(parts.get(parts.size() - 1)));
    }
    List<Leaf> leaves = new ArrayList<>();
    walk(schema, new ArrayList<>(), new ArrayList<>(), leaves);
    // Protected names out of place first: they are the likelier leak.
    for (Leaf leaf : leaves) {
      checkNames(leaf, entry, isProtected, protectedNames, target, policyOrigin);
    }
    for (Leaf leaf : leaves) {
      checkDecided(leaf, entry, isProtected, target, policyOrigin);
    }
  }

  /** The check with the entry's own columns (matched by name, as plain Parquet paths are). */
  public static void check(
      TablePolicy entry, StructType schema, String target, String policyOrigin) {
    check(entry, schema, path -> entry.covering(path).isPresent(), target, policyOrigin);
  }

  private static void checkNames(
      Leaf leaf,
      TablePolicy entry,
      Predicate<String> isProtected,
      Set<String> protectedNames,
      String target,
      String policyOrigin) {
    for (int i = 0; i < leaf.parts.size(); i++) {
      String path = leaf.path(i);
      if (isProtected.test(lower(path))) {
        return;
      }
      if (!leaf.mapEntry.get(i) && protectedNames.contains(lower(leaf.parts.get(i)))) {
        throw new ProtectorException(
            String.format(
                "Cannot write %s: column '%s' is named like a protected column of strict entry %s"
                    + " (policy %s) but no policy column covers it, so it would be stored under the"
                    + " footer key only; write the value to the protected column, or protect '%s'"
                    + " in the policy",
                target, path, entry.name(), policyOrigin, path));
      }
    }
  }

  private static void checkDecided(
      Leaf leaf,
      TablePolicy entry,
      Predicate<String> isProtected,
      String target,
      String policyOrigin) {
    for (int i = 0; i < leaf.parts.size(); i++) {
      if (isProtected.test(lower(leaf.path(i)))) {
        return;
      }
    }
    String path = leaf.path(leaf.parts.size() - 1);
    if (!entry.isPlain(path)) {
      throw new ProtectorException(
          String.format(
              "Cannot write %s: column '%s' is neither protected nor listed in plain-columns of"
                  + " strict entry %s (policy %s); protect it in the policy, add it to"
                  + " plain-columns, or leave it out of the write",
              target, path, entry.name(), policyOrigin));
    }
  }

  private static void walk(
      DataType type, List<String> parts, List<Boolean> mapEntry, List<Leaf> out) {
    if (type instanceof StructType && ((StructType) type).fields().length > 0) {
      for (StructField field : ((StructType) type).fields()) {
        walk(field.dataType(), append(parts, field.name()), append(mapEntry, false), out);
      }
    } else if (type instanceof ArrayType) {
      walk(((ArrayType) type).elementType(), parts, mapEntry, out);
    } else if (type instanceof MapType) {
      walk(((MapType) type).keyType(), append(parts, "key"), append(mapEntry, true), out);
      walk(((MapType) type).valueType(), append(parts, "value"), append(mapEntry, true), out);
    } else if (!parts.isEmpty()) {
      out.add(new Leaf(parts, mapEntry));
    }
  }

  private static <T> List<T> append(List<T> list, T item) {
    List<T> out = new ArrayList<>(list);
    out.add(item);
    return out;
  }

  private static String lower(String s) {
    return s.toLowerCase(Locale.ROOT);
  }

  /** A leaf column: its path parts, and which of them are a map's {@code key} or {@code value}. */
  private static final class Leaf {
    final List<String> parts;
    final List<Boolean> mapEntry;

    Leaf(List<String> parts, List<Boolean> mapEntry) {
      this.parts = parts;
      this.mapEntry = mapEntry;
    }

    /** The dotted path of the first {@code last + 1} parts. */
    String path(int last) {
      return String.join(".", parts.subList(0, last + 1));
    }
  }
}
