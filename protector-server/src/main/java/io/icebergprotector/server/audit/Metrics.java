/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.server.audit;

import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.core.metrics.Histogram;
import io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;

/**
 * The server's Prometheus metrics (Prometheus Java client, text format). Labels are route
 * templates, methods, statuses, operations and decisions: bounded sets, never key names or
 * principals (which callers choose). Each server has its own registry.
 */
public final class Metrics {
  private static final PrometheusTextFormatWriter TEXT = PrometheusTextFormatWriter.create();
  public static final String CONTENT_TYPE = TEXT.getContentType();

  private final PrometheusRegistry registry = new PrometheusRegistry();
  private final Counter requests =
      Counter.builder()
          .name("protector_http_requests_total")
          .help("HTTP requests by route template, method and status.")
          .labelNames("route", "method", "status")
          .register(registry);
  private final Histogram latency =
      Histogram.builder()
          .name("protector_http_request_duration_seconds")
          .help("Request latency by route template.")
          .labelNames("route")
          .classicOnly()
          .classicUpperBounds(
              0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5)
          .withoutExemplars()
          .register(registry);
  private final Counter operations =
      Counter.builder()
          .name("protector_key_operations_total")
          .help("Key operations (wrap = encrypt, unwrap = decrypt) by decision.")
          .labelNames("op", "decision")
          .register(registry);
  private final Counter tokenValues =
      Counter.builder()
          .name("protector_token_values_total")
          .help("Values the token batch endpoints tokenized (encode) or detokenized (decode).")
          .labelNames("op", "method")
          .register(registry);
  private final Counter authFailures =
      Counter.builder()
          .name("protector_auth_failures_total")
          .help("Rejected credentials by cause category.")
          .labelNames("reason")
          .register(registry);
  private final Counter rateLimited =
      Counter.builder()
          .name("protector_rate_limited_total")
          .help("Requests refused (429) because their caller exceeded limits.rate.")
          .register(registry);
  private final Counter auditErrors =
      Counter.builder()
          .name("protector_audit_write_errors_total")
          .help("Audit lines that could not be written (request refused).")
          .register(registry);

  public Metrics() {
    auditErrors.inc(0); // present (as 0) from the start
    rateLimited.inc(0);
  }

  public void request(String route, String method, int status, long nanos) {
    requests.labelValues(route, method, Integer.toString(status)).inc();
    latency.labelValues(route).observe(nanos / 1e9);
  }

  /** op: wrap, unwrap, hmac, create, ...; decision: allow, deny, error. */
  public void operation(String op, String decision) {
    operations.labelValues(op, decision).inc();
  }

  /** op: encode or decode; method: deterministic or fpe. */
  public void tokenValues(String op, String method, long count) {
    tokenValues.labelValues(op, method).inc(count);
  }

  public void authFailure(String category) {
    authFailures.labelValues(category).inc();
  }

  public void rateLimited() {
    rateLimited.inc();
  }

  public void auditError() {
    auditErrors.inc();
  }

  /** The text exposition format, {@link #CONTENT_TYPE}. */
  public String render() {
    ByteArrayOutputStream out = new ByteArrayOutputStream(8192);
    try {
      TEXT.write(out, registry.scrape());
    } catch (IOException e) {
      throw new UncheckedIOException(e); // a ByteArrayOutputStream does not fail
    }
    return out.toString(java.nio.charset.StandardCharsets.UTF_8);
  }
}
