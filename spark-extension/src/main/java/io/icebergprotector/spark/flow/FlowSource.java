/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.spark.flow;

import io.icebergprotector.kms.KmsSettings;
import io.icebergprotector.policy.ColumnPolicy;
import io.icebergprotector.policy.Policy;
import io.icebergprotector.policy.Principal;
import io.icebergprotector.policy.TablePolicy;
import java.util.Objects;
import java.util.Set;

/**
 * A protected table or path prefix that a query reads, as one principal reads it: the policy entry
 * (its columns, clear roles and declassifiers), the principal, and the key service that decides for
 * the entry.
 *
 * @param kind {@code table}, {@code path}, {@value #ROW_LEVEL_SCAN} (the scan of a DELETE, UPDATE
 *     or MERGE, which reads the table it writes), {@value #RDD_OF_TABLE} or {@value #RDD_OF_PATH}
 * @param name what the query reads, as the user wrote it (e.g. {@code prot.db.customers})
 */
public record FlowSource(
    String kind,
    String name,
    TablePolicy entry,
    Policy policy,
    Principal principal,
    KmsSettings kms) {

  /** The kind of the source a row-level operation reads: the table it writes. */
  public static final String ROW_LEVEL_SCAN = "row-level scan of table";

  /**
   * An RDD's rows that a protected table's scan produced: known per scan, not per column (the RDD
   * may have reshaped them), so each column of the DataFrame made from it carries every protected
   * column the scan read.
   */
  public static final String RDD_OF_TABLE = "RDD read from table";

  /** Like {@link #RDD_OF_TABLE}, for files under a policy path prefix. */
  public static final String RDD_OF_PATH = "RDD read from path prefix";

  /** E.g. {@code table prot.db.customers} or {@code path prefix s3a://bucket/pii/}. */
  public String describe() {
    return kind + " " + name;
  }

  /** Roles that read {@code policyColumn} in clear; empty when the policy no longer lists it. */
  public Set<String> clearRoles(String policyColumn) {
    return entry.column(policyColumn).map(ColumnPolicy::clearRoles).orElse(Set.of());
  }

  /** Whether the principal holds one of the entry's {@code declassify} roles. */
  public boolean principalMayDeclassify() {
    return policy.canDeclassify(entry, principal);
  }

  // The same table read twice in one query (a self-join) is one source.
  @Override
  public boolean equals(Object o) {
    return o instanceof FlowSource
        && ((FlowSource) o).kind.equals(kind)
        && ((FlowSource) o).name.equals(name)
        && ((FlowSource) o).entry.name().equals(entry.name())
        && ((FlowSource) o).principal.equals(principal);
  }

  @Override
  public int hashCode() {
    return Objects.hash(kind, name, entry.name(), principal);
  }
}
