/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.server.auth;

import io.icebergprotector.policy.Digests;
import io.icebergprotector.server.config.ServerConfig;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.List;

/**
 * Which callers are trusted runtimes: the clusters (a Spark Connect server and its executors) that
 * apply masks for the principals they act for, authenticated by a credential that users never hold
 * ({@code auth.runtimes}). A request of a runtime carries the principal's own token as usual and
 * the runtime's credential in {@code X-Protector-Runtime-Token}; both are checked and both are
 * audited. Keys a principal uses only to mask are released only to such requests, unless {@code
 * auth.release-mask-keys-to-principals} says the server serves single-user clusters, where the
 * principal and the runtime are one.
 */
public final class RuntimeAttestation {
  private static final int MAX_TOKEN_CHARS = 8192;

  private final List<ServerConfig.RuntimeEntry> tokens;
  private final JwtAuthenticator jwt;
  private final boolean releaseMaskKeysToPrincipals;

  /**
   * @param jwt verifies runtime JWTs (the server's issuer and keys, the runtime audience); null
   *     when runtimes authenticate by token only
   */
  public RuntimeAttestation(
      List<ServerConfig.RuntimeEntry> tokens,
      JwtAuthenticator jwt,
      boolean releaseMaskKeysToPrincipals) {
    this.tokens = List.copyOf(tokens);
    this.jwt = jwt;
    this.releaseMaskKeysToPrincipals = releaseMaskKeysToPrincipals;
  }

  /** No trusted runtime; mask-only keys go to the principals themselves (single-user clusters). */
  public static RuntimeAttestation none() {
    return new RuntimeAttestation(List.of(), null, true);
  }

  /** Whether a principal's own token also gets the keys it uses only to mask. */
  public boolean releasesMaskKeysToPrincipals() {
    return releaseMaskKeysToPrincipals;
  }

  /**
   * The name of the runtime {@code token} authenticates, for the audit ({@code token:<name>} or
   * {@code jwt:<subject>}).
   */
  public String authenticate(String token) throws AuthenticationException {
    if (token == null || token.isBlank()) {
      throw new AuthenticationException("empty runtime credential");
    }
    if (token.length() > MAX_TOKEN_CHARS) {
      throw new AuthenticationException("malformed runtime credential");
    }
    byte[] hash = Digests.sha256(token.strip().getBytes(StandardCharsets.UTF_8));
    int match = -1;
    for (int i = 0; i < tokens.size(); i++) {
      // no early exit: the time does not depend on which entry (if any) matched
      if (MessageDigest.isEqual(hash, tokens.get(i).sha256()) && match < 0) {
        match = i;
      }
    }
    if (match >= 0) {
      return "token:" + tokens.get(match).name();
    }
    if (jwt != null && TokenAuthenticator.looksLikeJwt(token.strip())) {
      return "jwt:" + jwt.authenticate(token.strip()).principal().user();
    }
    throw new AuthenticationException("unknown runtime credential");
  }
}
