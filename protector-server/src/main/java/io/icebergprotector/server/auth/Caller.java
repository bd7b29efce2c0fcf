/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.server.auth;

import io.icebergprotector.policy.Principal;

/**
 * An authenticated caller: the policy principal and how it proved itself ("token:<name>" or "jwt").
 */
public record Caller(Principal principal, String method) {}
