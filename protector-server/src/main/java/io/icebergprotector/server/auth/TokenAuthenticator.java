/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.server.auth;

import io.icebergprotector.policy.Digests;
import io.icebergprotector.policy.Principal;
import io.icebergprotector.server.config.ServerConfig;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.List;

/**
 * Authenticates a bearer credential: first as a personal access token (only SHA-256 hashes are
 * configured; every entry is compared in constant time, with no early exit), then as a JWT when JWT
 * verification is configured.
 */
public final class TokenAuthenticator {
  static final String TOKEN_PREFIX = "ipt_";
  private static final int MAX_TOKEN_CHARS = 8192;

  private final List<ServerConfig.TokenEntry> tokens;
  private final byte[][] hashes;
  private final JwtAuthenticator jwt;

  public TokenAuthenticator(List<ServerConfig.TokenEntry> tokens, JwtAuthenticator jwt) {
    this.tokens = List.copyOf(tokens);
    this.hashes = new byte[tokens.size()][];
    for (int i = 0; i < tokens.size(); i++) {
      hashes[i] = tokens.get(i).sha256();
    }
    this.jwt = jwt;
  }

  /**
   * @param token the raw credential from X-Vault-Token or Authorization: Bearer; null if none was
   *     sent
   */
  public Caller authenticate(String token) throws AuthenticationException {
    if (token == null || token.isEmpty()) {
      throw new AuthenticationException("missing token");
    }
    if (token.length() > MAX_TOKEN_CHARS) {
      throw new AuthenticationException("malformed token");
    }
    byte[] hash = Digests.sha256(token.getBytes(StandardCharsets.UTF_8));
    int match = -1;
    for (int i = 0; i < hashes.length; i++) {
      // no early exit: the time does not depend on which entry (if any) matched
      if (MessageDigest.isEqual(hash, hashes[i]) && match < 0) {
        match = i;
      }
    }
    if (match >= 0) {
      ServerConfig.TokenEntry entry = tokens.get(match);
      return new Caller(Principal.of(entry.principal(), entry.groups()), "token:" + entry.name());
    }
    if (jwt != null && looksLikeJwt(token)) {
      return jwt.authenticate(token);
    }
    throw new AuthenticationException("unknown token");
  }

  static boolean looksLikeJwt(String token) {
    int first = token.indexOf('.');
    int second = first < 0 ? -1 : token.indexOf('.', first + 1);
    return first > 0 && second > first && token.indexOf('.', second + 1) < 0;
  }

  /** A fresh personal access token: "ipt_" + 32 random bytes, base64url (never contains '.'). */
  public static String newToken() {
    byte[] raw = new byte[32];
    new SecureRandom().nextBytes(raw);
    return TOKEN_PREFIX + Base64.getUrlEncoder().withoutPadding().encodeToString(raw);
  }
}
