package io.icebergprotector.server;

import io.icebergprotector.policy.Principal;

/**
 * An authenticated caller: the policy principal and how it proved itself ("token:<name>" or "jwt").
 */
record Caller(Principal principal, String method) {}
