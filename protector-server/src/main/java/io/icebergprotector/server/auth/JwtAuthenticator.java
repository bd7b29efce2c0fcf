/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.server.auth;

import static io.icebergprotector.policy.Preconditions.checkArgument;

import com.nimbusds.jose.JOSEObjectType;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.KeySourceException;
import com.nimbusds.jose.jwk.Curve;
import com.nimbusds.jose.jwk.ECKey;
import com.nimbusds.jose.jwk.JWK;
import com.nimbusds.jose.jwk.JWKSet;
import com.nimbusds.jose.jwk.OctetSequenceKey;
import com.nimbusds.jose.jwk.RSAKey;
import com.nimbusds.jose.jwk.source.ImmutableJWKSet;
import com.nimbusds.jose.jwk.source.JWKSource;
import com.nimbusds.jose.jwk.source.JWKSourceBuilder;
import com.nimbusds.jose.proc.BadJOSEException;
import com.nimbusds.jose.proc.BadJWSException;
import com.nimbusds.jose.proc.DefaultJOSEObjectTypeVerifier;
import com.nimbusds.jose.proc.JWSVerificationKeySelector;
import com.nimbusds.jose.proc.SecurityContext;
import com.nimbusds.jose.util.DefaultResourceRetriever;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.proc.BadJWTException;
import com.nimbusds.jwt.proc.DefaultJWTClaimsVerifier;
import com.nimbusds.jwt.proc.DefaultJWTProcessor;
import com.nimbusds.jwt.proc.ExpiredJWTException;
import io.icebergprotector.kms.Passphrase;
import io.icebergprotector.kms.SecretRef;
import io.icebergprotector.policy.Principal;
import io.icebergprotector.server.config.ServerConfig;
import java.io.IOException;
import java.net.MalformedURLException;
import java.net.URL;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.StandardCharsets;
import java.text.ParseException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * Verifies JWTs with nimbus-jose-jwt: HS256 against a configured secret, RS256/ES256 against the
 * public keys of a JWKS file or of an identity provider's JWKS URL. Checks signature, exp, nbf
 * (with clock skew), iss (exact) and aud (one of the accepted). The principal comes from a
 * configurable claim ({@code sub} by default), groups from a string-array (or single string) claim.
 */
public final class JwtAuthenticator {
  private final DefaultJWTProcessor<SecurityContext> processor = new DefaultJWTProcessor<>();
  private final String principalClaim;
  private final String groupsClaim;

  public JwtAuthenticator(ServerConfig.JwtSettings settings) {
    this.principalClaim = settings.principalClaim();
    this.groupsClaim = settings.groupsClaim();
    List<JWK> keys = new ArrayList<>();
    Set<JWSAlgorithm> algorithms = new LinkedHashSet<>();
    if (settings.hs256Secret() != null) {
      byte[] secret = secretBytes(settings.hs256Secret());
      try {
        checkArgument(
            secret.length >= 32,
            "The JWT HS256 secret (%s) must be at least 32 bytes, got %s",
            settings.hs256Secret().describe(),
            secret.length);
        keys.add(new OctetSequenceKey.Builder(secret).build());
        algorithms.add(JWSAlgorithm.HS256);
      } finally {
        Arrays.fill(secret, (byte) 0);
      }
    }
    if (settings.jwksFile() != null) {
      JWKSet set;
      try {
        set = JWKSet.load(settings.jwksFile().toFile());
      } catch (IOException | ParseException e) {
        throw new IllegalArgumentException(
            "Cannot read JWKS file " + settings.jwksFile() + ": " + e.getMessage(), e);
      }
      for (JWK key : set.getKeys()) {
        if (key instanceof RSAKey) {
          algorithms.add(JWSAlgorithm.RS256);
        } else if (key instanceof ECKey && Curve.P_256.equals(((ECKey) key).getCurve())) {
          algorithms.add(JWSAlgorithm.ES256);
        } else {
          throw new IllegalArgumentException(
              "JWKS file "
                  + settings.jwksFile()
                  + ": key '"
                  + key.getKeyID()
                  + "' is neither RSA nor EC P-256 (HS256 secrets belong in hs256-secret-env/-file)");
        }
        keys.add(key.toPublicJWK()); // private parts, if any, are never kept
      }
    }
    JWKSource<SecurityContext> remote = null;
    if (settings.jwksUrl() != null) {
      remote = providerKeys(settings.jwksUrl());
      algorithms.add(JWSAlgorithm.RS256);
      algorithms.add(JWSAlgorithm.ES256);
    }
    checkArgument(
        !keys.isEmpty() || remote != null,
        "JWT authentication is enabled but no verification key is configured");
    processor.setJWSTypeVerifier(new DefaultJOSEObjectTypeVerifier<>(JOSEObjectType.JWT, null));
    processor.setJWSKeySelector(
        new JWSVerificationKeySelector<>(algorithms, configuredThenProvider(keys, remote)));
    DefaultJWTClaimsVerifier<SecurityContext> claims =
        new DefaultJWTClaimsVerifier<>(
            settings.audiences(),
            new JWTClaimsSet.Builder().issuer(settings.issuer()).build(),
            Set.of("exp", principalClaim),
            null);
    claims.setMaxClockSkew(Math.toIntExact(settings.clockSkew().toSeconds()));
    processor.setJWTClaimsSetVerifier(claims);
  }

  /**
   * The provider's keys, cached by nimbus: a token whose key id the cache lacks forces a refetch
   * (rate-limited), so a rotated signing key is picked up on its first token, and a key the
   * provider withdrew stops verifying when the cache lifetime ends.
   */
  private static JWKSource<SecurityContext> providerKeys(ServerConfig.JwksUrl url) {
    URL location;
    try {
      location = url.uri().toURL();
    } catch (MalformedURLException e) {
      throw new IllegalArgumentException(
          "Invalid auth.jwt.jwks-url " + url.uri() + ": " + e.getMessage(), e);
    }
    long lifetime = url.cacheLifetime().toMillis();
    return JWKSourceBuilder.<SecurityContext>create(
            location, new DefaultResourceRetriever(5_000, 5_000, 512 * 1024))
        .cache(lifetime, 15_000)
        .refreshAheadCache(false)
        .rateLimited(url.minRefreshInterval().toMillis())
        .retrying(true)
        .build();
  }

  /**
   * The configured keys first; the provider is asked only for a token none of them verifies, so
   * HS256 or file-key tokens never cause a JWKS fetch. Only public RSA and EC P-256 keys are taken
   * from the provider.
   */
  private static JWKSource<SecurityContext> configuredThenProvider(
      List<JWK> configured, JWKSource<SecurityContext> provider) {
    ImmutableJWKSet<SecurityContext> local = new ImmutableJWKSet<>(new JWKSet(configured));
    return (selector, context) -> {
      List<JWK> found = local.get(selector, context);
      if (!found.isEmpty() || provider == null) {
        return found;
      }
      List<JWK> fetched = new ArrayList<>();
      for (JWK key : provider.get(selector, context)) {
        if (key instanceof RSAKey
            || (key instanceof ECKey && Curve.P_256.equals(((ECKey) key).getCurve()))) {
          fetched.add(key.toPublicJWK());
        }
      }
      return fetched;
    };
  }

  Caller authenticate(String token) throws AuthenticationException {
    JWTClaimsSet claims;
    try {
      claims = processor.process(token, null);
    } catch (ParseException e) {
      throw new AuthenticationException("malformed token");
    } catch (ExpiredJWTException e) {
      throw new AuthenticationException("token expired");
    } catch (BadJWSException e) {
      throw new AuthenticationException("invalid token signature");
    } catch (KeySourceException e) {
      // the provider's JWKS endpoint failed and no cached key verifies the token
      throw new AuthenticationException("token signing keys unavailable");
    } catch (BadJWTException e) {
      throw new AuthenticationException(category(e.getMessage()));
    } catch (BadJOSEException e) {
      String m = String.valueOf(e.getMessage()).toLowerCase(Locale.ROOT);
      throw new AuthenticationException(
          m.contains("no matching key") || m.contains("another algorithm")
              ? "invalid token signature"
              : "token rejected");
    } catch (Exception e) {
      throw new AuthenticationException("token rejected");
    }
    Object subject = claims.getClaim(principalClaim);
    if (!(subject instanceof String) || ((String) subject).isBlank()) {
      throw new AuthenticationException("token has no principal claim");
    }
    return new Caller(Principal.of((String) subject, groups(claims.getClaim(groupsClaim))), "jwt");
  }

  private static String category(String message) {
    String m = String.valueOf(message).toLowerCase(Locale.ROOT);
    if (m.contains("expired")) {
      return "token expired";
    }
    if (m.contains("before use time")) {
      return "token not yet valid";
    }
    if (m.contains("aud")) {
      return "token audience rejected";
    }
    if (m.contains("missing required")) {
      return "token missing required claims";
    }
    if (m.contains("iss")) {
      return "token issuer rejected";
    }
    return "token rejected";
  }

  private static List<String> groups(Object claim) {
    List<String> groups = new ArrayList<>();
    if (claim instanceof String) {
      groups.add((String) claim);
    } else if (claim instanceof Collection) {
      for (Object o : (Collection<?>) claim) {
        if (o instanceof String) {
          groups.add((String) o);
        }
      }
    }
    return groups;
  }

  private static byte[] secretBytes(SecretRef source) {
    try (Passphrase p = source.readPassphrase()) {
      char[] chars = p.chars();
      try {
        ByteBuffer buf = StandardCharsets.UTF_8.encode(CharBuffer.wrap(chars));
        byte[] bytes = new byte[buf.remaining()];
        buf.get(bytes);
        if (buf.hasArray()) {
          Arrays.fill(buf.array(), (byte) 0);
        }
        return bytes;
      } finally {
        Arrays.fill(chars, '\0');
      }
    }
  }
}
