/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.kms.remote;

import java.time.Instant;
import java.util.List;

/**
 * The key server's answer to an allowed declassification ({@code POST /v1/protector/declassify}):
 * the id and time of the audit line it wrote, who was allowed, and for which policy entry and
 * columns. Keep the audit id with the job's own log line so the two can be matched.
 *
 * @param auditId the id of the server's audit line
 * @param time when the server allowed it
 * @param principal the principal the token authenticated
 * @param entry the policy entry (table name or path prefix) whose {@code declassify} roles allowed
 *     it
 * @param columns the columns as the request named them
 */
public record DeclassifyReceipt(
    String auditId, Instant time, String principal, String entry, List<String> columns) {
  public DeclassifyReceipt {
    columns = List.copyOf(columns);
  }
}
