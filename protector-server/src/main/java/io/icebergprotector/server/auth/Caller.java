package io.icebergprotector.server.auth;

import io.icebergprotector.policy.Principal;

/**
 * An authenticated caller: the policy principal and how it proved itself ("token:<name>" or "jwt").
 */
public record Caller(Principal principal, String method) {}
