/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.kms.wire;

/** The members of the bodies of {@code whoami} and {@code declassify} (not on Vault). */
public final class ProtectorFields {
  // whoami -> {principal, groups, roles, wrappable_keys, unwrappable_keys, admin, auth,
  //   policy_digest}
  public static final String PRINCIPAL = "principal";
  public static final String GROUPS = "groups";
  public static final String ROLES = "roles";
  public static final String WRAPPABLE_KEYS = "wrappable_keys";
  public static final String UNWRAPPABLE_KEYS = "unwrappable_keys";
  public static final String ADMIN = "admin";
  public static final String AUTH = "auth";
  public static final String POLICY_DIGEST = "policy_digest";

  // declassify: {source, columns, destination, query-id} -> {audit_id, time, principal, entry,
  //   columns}
  public static final String SOURCE = "source";
  public static final String COLUMNS = "columns";
  public static final String DESTINATION = "destination";
  public static final String QUERY_ID = "query-id";
  public static final String AUDIT_ID = "audit_id";
  public static final String TIME = "time";
  public static final String ENTRY = "entry";

  private ProtectorFields() {}
}
