/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.server.http;

import io.icebergprotector.server.audit.AuditLog;
import io.icebergprotector.server.audit.Metrics;
import io.icebergprotector.server.auth.CallerRateLimits;
import io.icebergprotector.server.auth.RuntimeAttestation;
import io.icebergprotector.server.auth.TokenAuthenticator;
import io.icebergprotector.server.policy.ServedPolicy;

/**
 * What every {@link Exchange} shares: the authenticator, the callers' rate limits, the audit log,
 * the metrics, the body limits, and the policy that requests starting now are decided under.
 */
public final class Exchanges {
  final TokenAuthenticator authenticator;
  final RuntimeAttestation runtimes;
  final CallerRateLimits rateLimits;
  final AuditLog audit;
  final Metrics metrics;
  final long maxBodyBytes;
  final long maxBatchBodyBytes;
  private volatile ServedPolicy served;

  /**
   * @param maxBodyBytes {@code limits.max-body-size}, the body limit of every route but the token
   *     batches
   * @param maxBatchBodyBytes {@code limits.max-batch-body-size}, the body limit of token batches
   */
  public Exchanges(
      ServedPolicy policy,
      TokenAuthenticator authenticator,
      RuntimeAttestation runtimes,
      CallerRateLimits rateLimits,
      AuditLog audit,
      Metrics metrics,
      long maxBodyBytes,
      long maxBatchBodyBytes) {
    this.served = policy;
    this.authenticator = authenticator;
    this.runtimes = runtimes;
    this.rateLimits = rateLimits;
    this.audit = audit;
    this.metrics = metrics;
    this.maxBodyBytes = maxBodyBytes;
    this.maxBatchBodyBytes = maxBatchBodyBytes;
  }

  /** The policy that requests starting now are decided under. */
  public ServedPolicy served() {
    return served;
  }

  /** Serves {@code policy} to every request that starts from now on. */
  public void install(ServedPolicy policy) {
    this.served = policy;
  }

  /** The exchange of one request, decided from start to end under the policy served now. */
  Exchange open(HttpCall call) {
    return new Exchange(call, this, served);
  }
}
