/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.spark.core;

import io.icebergprotector.kms.KeyServices;
import io.icebergprotector.kms.KmsSettings;
import io.icebergprotector.kms.remote.PolicyResponse;
import io.icebergprotector.kms.remote.RemoteKeyService;
import io.icebergprotector.policy.Policy;
import java.time.Duration;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The policy a catalog takes from its key server, kept current: once {@code refresh} has passed
 * since the last check, the next use asks the server again with the ETag it holds (a 304 costs no
 * parse), so a policy change reaches every new query of a running session within the refresh
 * interval. One caller checks while others go on with the policy they have. When the server cannot
 * be reached the catalog keeps its last policy and tries again after another interval; the server
 * enforces its own policy on every key request either way.
 */
final class ServerPolicy {
  private static final Logger LOG = LoggerFactory.getLogger(ServerPolicy.class);

  private final String catalogName;
  private final KmsSettings kms;
  private final String origin;
  private final long refreshNanos;
  private final LongSupplier clock;
  private final ReentrantLock checking = new ReentrantLock();
  private volatile State state;

  private record State(Policy policy, String etag, String digest, long checkedAt) {}

  ServerPolicy(
      String catalogName,
      KmsSettings kms,
      String origin,
      PolicyResponse first,
      Duration refresh,
      LongSupplier clock) {
    this.catalogName = catalogName;
    this.kms = kms;
    this.origin = origin;
    this.refreshNanos = refresh.toNanos();
    this.clock = clock;
    this.state =
        new State(
            Policy.parse(first.text(), origin), first.etag(), first.digest(), clock.getAsLong());
  }

  /** The content digest of the server's whole policy as last seen. */
  String serverDigest() {
    return state.digest();
  }

  Policy current() {
    State s = state;
    if (clock.getAsLong() - s.checkedAt() < refreshNanos || !checking.tryLock()) {
      return s.policy();
    }
    try {
      s = state;
      if (clock.getAsLong() - s.checkedAt() >= refreshNanos) {
        state = check(s);
      }
      return state.policy();
    } finally {
      checking.unlock();
    }
  }

  private State check(State s) {
    long now = clock.getAsLong();
    PolicyResponse r;
    try (RemoteKeyService remote = KeyServices.openRemote(kms)) {
      r = remote.fetchPolicy(s.etag());
    } catch (RuntimeException e) {
      LOG.warn(
          "Catalog '{}' could not refresh its policy from {} and keeps policy {}: {}",
          catalogName,
          origin,
          s.digest(),
          e.getMessage());
      return new State(s.policy(), s.etag(), s.digest(), now);
    }
    if (!r.modified()) {
      return new State(s.policy(), s.etag(), s.digest(), now);
    }
    Policy next;
    try {
      next = Policy.parse(r.text(), origin);
    } catch (RuntimeException e) {
      LOG.error(
          "Catalog '{}' refused the policy {} from {} and keeps policy {}: {}",
          catalogName,
          r.digest(),
          origin,
          s.digest(),
          e.getMessage());
      return new State(s.policy(), s.etag(), s.digest(), now);
    }
    LOG.info(
        "Catalog '{}' applies the key server's changed policy: {} -> {}",
        catalogName,
        s.digest(),
        r.digest());
    return new State(next, r.etag(), r.digest(), now);
  }
}
