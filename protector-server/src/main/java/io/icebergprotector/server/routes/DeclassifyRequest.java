/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.server.routes;

import static io.icebergprotector.policy.Preconditions.checkArgument;

import io.icebergprotector.kms.wire.ProtectorFields;
import io.icebergprotector.policy.ColumnPolicy;
import io.icebergprotector.policy.Policy;
import io.icebergprotector.policy.TablePolicy;
import io.icebergprotector.server.http.Exchange;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * The body of {@code POST /v1/protector/declassify}, checked against the server's policy:
 *
 * <pre>
 * {"source": "db.customers", "columns": ["ssn"], "destination": "db.export", "query-id": "q-17"}
 * </pre>
 *
 * {@code source} is a table name or path prefix of the policy (or a location under a prefix);
 * {@code columns} are protected columns of that entry (or structs holding one); {@code destination}
 * and {@code query-id} are free text for the audit. Every problem is an {@link
 * IllegalArgumentException} naming the field.
 */
public record DeclassifyRequest(
    String source, TablePolicy entry, List<String> columns, String destination, String queryId) {
  public static final int MAX_SOURCE = 1024;
  public static final int MAX_DESTINATION = 1024;
  public static final int MAX_QUERY_ID = 256;
  public static final int MAX_COLUMN = 256;
  public static final int MAX_COLUMNS = 1024;
  private static final List<String> FIELDS =
      List.of(
          ProtectorFields.SOURCE,
          ProtectorFields.COLUMNS,
          ProtectorFields.DESTINATION,
          ProtectorFields.QUERY_ID);

  public DeclassifyRequest {
    columns = List.copyOf(columns);
  }

  static DeclassifyRequest parse(Map<String, Object> body, Policy policy) {
    for (String field : body.keySet()) {
      checkArgument(
          FIELDS.contains(field),
          "Unknown field '%s'; valid fields: %s",
          Exchange.clip(field),
          String.join(", ", FIELDS));
    }
    String source = text(body, ProtectorFields.SOURCE, MAX_SOURCE);
    TablePolicy entry = entryFor(policy, source);
    List<String> columns = columns(body.get(ProtectorFields.COLUMNS), entry);
    String destination = text(body, ProtectorFields.DESTINATION, MAX_DESTINATION);
    String queryId = text(body, ProtectorFields.QUERY_ID, MAX_QUERY_ID);
    return new DeclassifyRequest(source, entry, columns, destination, queryId);
  }

  /** The audit members of this request (no decision, which the audit line carries itself). */
  Map<String, Object> auditDetails() {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("source", source);
    m.put("entry", entry.name());
    m.put("columns", columns);
    m.put("destination", destination);
    m.put("query_id", queryId);
    return m;
  }

  private static TablePolicy entryFor(Policy policy, String source) {
    Optional<TablePolicy> entry = policy.table(source);
    if (entry.isEmpty()) {
      entry = Optional.ofNullable(policy.paths().get(source)).or(() -> policy.pathFor(source));
    }
    return entry.orElseThrow(
        () ->
            new IllegalArgumentException(
                "Field 'source': '"
                    + Exchange.clip(source)
                    + "' is neither a table nor a location protected by the server's policy"));
  }

  private static List<String> columns(Object value, TablePolicy entry) {
    checkArgument(
        value instanceof List, "Field 'columns' is required and must be a list of column names");
    List<?> list = (List<?>) value;
    checkArgument(!list.isEmpty(), "Field 'columns' must name at least one protected column");
    checkArgument(
        list.size() <= MAX_COLUMNS,
        "Field 'columns' lists %s columns; at most %s",
        list.size(),
        MAX_COLUMNS);
    List<String> out = new ArrayList<>();
    Set<String> seen = new LinkedHashSet<>();
    for (int i = 0; i < list.size(); i++) {
      Object c = list.get(i);
      String where = "Field 'columns' element " + (i + 1);
      checkArgument(
          c instanceof String && !((String) c).isBlank(), "%s must be a non-empty string", where);
      String column = checked((String) c, where, MAX_COLUMN);
      if (!protects(entry, column)) {
        throw new IllegalArgumentException(
            "Field 'columns': '"
                + column
                + "' is not a protected column of "
                + entry.name()
                + " (protected: "
                + entry.columns().stream().map(ColumnPolicy::path).collect(Collectors.joining(", "))
                + ")");
      }
      checkArgument(
          seen.add(column.toLowerCase(Locale.ROOT)),
          "Field 'columns': '%s' is listed twice",
          column);
      out.add(column);
    }
    return out;
  }

  /**
   * The column is protected, lies in a protected struct, or is a struct holding a protected field.
   */
  private static boolean protects(TablePolicy entry, String column) {
    if (entry.covering(column).isPresent()) {
      return true;
    }
    String prefix = column.toLowerCase(Locale.ROOT) + ".";
    return entry.columns().stream()
        .anyMatch(c -> c.path().toLowerCase(Locale.ROOT).startsWith(prefix));
  }

  private static String text(Map<String, Object> body, String field, int max) {
    Object value = body.get(field);
    checkArgument(
        value instanceof String && !((String) value).isBlank(),
        "Field '%s' is required and must be a non-empty string",
        field);
    return checked((String) value, "Field '" + field + "'", max);
  }

  private static String checked(String value, String where, int max) {
    checkArgument(
        value.length() <= max, "%s is %s characters long; at most %s", where, value.length(), max);
    for (int i = 0; i < value.length(); i++) {
      checkArgument(
          !Character.isISOControl(value.charAt(i)), "%s contains a control character", where);
    }
    return value;
  }
}
