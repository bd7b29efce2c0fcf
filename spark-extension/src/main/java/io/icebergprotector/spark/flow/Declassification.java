/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.spark.flow;

import io.icebergprotector.policy.Principal;
import java.util.List;

/**
 * One declassifying write from one source entry: who, which protected columns, into where. It names
 * columns and places only, never values.
 *
 * @param requestId identifies this write in the log and in the key server's audit
 */
public record Declassification(
    String requestId,
    Principal principal,
    FlowSource source,
    List<String> columns,
    String destination) {

  public Declassification {
    columns = List.copyOf(columns);
  }

  /**
   * E.g. {@code principal alice declassifies columns [ssn] of table prot.db.customers into ...}.
   */
  public String describe() {
    return String.format(
        "principal %s declassifies column(s) %s of %s (policy entry %s) into %s (request %s)",
        principal.user(),
        columns,
        source.describe(),
        source.entry().name(),
        destination,
        requestId);
  }
}
