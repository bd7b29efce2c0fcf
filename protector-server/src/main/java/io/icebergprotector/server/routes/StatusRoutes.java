/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.server.routes;

import io.icebergprotector.kms.wire.JsonCodec;
import io.icebergprotector.server.audit.Metrics;
import io.icebergprotector.server.http.Exchange;
import java.nio.charset.StandardCharsets;

/**
 * {@code GET /health}, which answers without a token, and {@code GET /metrics} (Prometheus text),
 * which asks for one when {@code metrics.require-auth} is set.
 */
final class StatusRoutes {
  private final Metrics metrics;
  private final boolean metricsRequireAuth;

  StatusRoutes(Metrics metrics, boolean metricsRequireAuth) {
    this.metrics = metrics;
    this.metricsRequireAuth = metricsRequireAuth;
  }

  void health(Exchange x) {
    x.requireMethod("GET");
    x.sendJson(200, JsonCodec.object("status", "ok"));
  }

  void metrics(Exchange x) {
    x.requireMethod("GET");
    if (metricsRequireAuth) {
      x.op("metrics");
      x.authenticate();
    }
    x.send(200, Metrics.CONTENT_TYPE, metrics.render().getBytes(StandardCharsets.UTF_8));
  }
}
