/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.kms.remote;

import java.util.List;

/**
 * What the key server knows about the caller: from {@code GET /v1/protector/whoami}. {@code
 * policyDigest} is the content digest of the policy the server enforces (null from a server that
 * does not send it).
 */
public record WhoAmI(
    String principal,
    List<String> groups,
    List<String> roles,
    List<String> wrappableKeys,
    List<String> unwrappableKeys,
    boolean admin,
    String policyDigest) {
  public WhoAmI {
    groups = List.copyOf(groups);
    roles = List.copyOf(roles);
    wrappableKeys = List.copyOf(wrappableKeys);
    unwrappableKeys = List.copyOf(unwrappableKeys);
  }
}
