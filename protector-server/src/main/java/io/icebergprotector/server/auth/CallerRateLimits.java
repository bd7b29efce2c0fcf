/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.server.auth;

import io.github.resilience4j.ratelimiter.RateLimiter;
import io.github.resilience4j.ratelimiter.RateLimiterConfig;
import io.github.resilience4j.ratelimiter.RateLimiterRegistry;
import io.icebergprotector.policy.Principal;
import io.icebergprotector.server.config.ServerConfig;
import java.time.Duration;

/**
 * Per-caller request limits ({@code limits.rate}), one resilience4j rate limiter per principal.
 * Only authenticated callers are counted, so the set of limiters is bounded by the principals the
 * tokens and the identity provider vouch for; a request beyond the limit never waits for a permit.
 */
public final class CallerRateLimits {
  private final ServerConfig.RateLimit limit;
  private final RateLimiterRegistry registry;

  public CallerRateLimits(ServerConfig.RateLimit limit) {
    this.limit = limit;
    this.registry =
        limit.enabled()
            ? RateLimiterRegistry.of(
                RateLimiterConfig.custom()
                    .limitForPeriod(limit.requests())
                    .limitRefreshPeriod(limit.period())
                    .timeoutDuration(Duration.ZERO)
                    .build())
            : null;
  }

  /** Whether {@code principal} may make one more request now (always, with no limit set). */
  public boolean tryAcquire(Principal principal) {
    if (registry == null) {
      return true;
    }
    RateLimiter limiter = registry.rateLimiter(principal.user());
    return limiter.acquirePermission();
  }

  /** Whole seconds a refused caller should wait (the Retry-After header): one period. */
  public long retryAfterSeconds() {
    return Math.max(1, (limit.period().toMillis() + 999) / 1000);
  }

  /** What the 429 says: the limit, never another caller's state. */
  public String refusal(Principal principal) {
    return String.format(
        "rate limit exceeded for principal '%s': at most %d requests per %s",
        principal.user(), limit.requests(), human(limit.period()));
  }

  private static String human(Duration period) {
    long ms = period.toMillis();
    return ms % 1000 == 0 ? (ms / 1000) + "s" : ms + "ms";
  }
}
