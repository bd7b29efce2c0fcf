package io.icebergprotector.server;

import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * Prometheus text-format metrics. Labels are route templates, methods, statuses, operations and
 * decisions: bounded sets, never key names or principals (which callers choose).
 */
final class Metrics {
  static final String CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";
  private static final double[] BUCKETS = {
    0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5
  };

  private record RequestKey(String route, String method, int status) {}

  private record OpKey(String op, String decision) {}

  private static final class Histogram {
    final LongAdder[] counts = new LongAdder[BUCKETS.length];
    final LongAdder count = new LongAdder();
    final LongAdder sumNanos = new LongAdder();

    Histogram() {
      for (int i = 0; i < counts.length; i++) {
        counts[i] = new LongAdder();
      }
    }

    void observe(long nanos) {
      double seconds = nanos / 1e9;
      for (int i = 0; i < BUCKETS.length; i++) {
        if (seconds <= BUCKETS[i]) {
          counts[i].increment(); // non-cumulative here, summed on output
          break;
        }
      }
      count.increment();
      sumNanos.add(nanos);
    }
  }

  private final ConcurrentHashMap<RequestKey, LongAdder> requests = new ConcurrentHashMap<>();
  private final ConcurrentHashMap<String, Histogram> latency = new ConcurrentHashMap<>();
  private final ConcurrentHashMap<OpKey, LongAdder> operations = new ConcurrentHashMap<>();
  private final ConcurrentHashMap<String, LongAdder> authFailures = new ConcurrentHashMap<>();
  private final LongAdder auditErrors = new LongAdder();

  void request(String route, String method, int status, long nanos) {
    requests
        .computeIfAbsent(new RequestKey(route, method, status), k -> new LongAdder())
        .increment();
    latency.computeIfAbsent(route, k -> new Histogram()).observe(nanos);
  }

  /** op: encrypt, decrypt, hmac, create-key, ...; decision: allow, deny, error. */
  void operation(String op, String decision) {
    operations.computeIfAbsent(new OpKey(op, decision), k -> new LongAdder()).increment();
  }

  void authFailure(String category) {
    authFailures.computeIfAbsent(category, k -> new LongAdder()).increment();
  }

  void auditError() {
    auditErrors.increment();
  }

  long requestCount(String route, int status) {
    long n = 0;
    for (Map.Entry<RequestKey, LongAdder> e : requests.entrySet()) {
      if (e.getKey().route().equals(route) && e.getKey().status() == status) {
        n += e.getValue().sum();
      }
    }
    return n;
  }

  String render() {
    StringBuilder out = new StringBuilder(4096);
    out.append(
        "# HELP protector_http_requests_total HTTP requests by route template, method and status.\n");
    out.append("# TYPE protector_http_requests_total counter\n");
    Map<String, Long> byLabels = new TreeMap<>();
    requests.forEach(
        (k, v) ->
            byLabels.put(
                "{route=\""
                    + k.route()
                    + "\",method=\""
                    + k.method()
                    + "\",status=\""
                    + k.status()
                    + "\"}",
                v.sum()));
    byLabels.forEach(
        (labels, v) ->
            out.append("protector_http_requests_total")
                .append(labels)
                .append(' ')
                .append(v)
                .append('\n'));

    out.append(
        "# HELP protector_http_request_duration_seconds Request latency by route template.\n");
    out.append("# TYPE protector_http_request_duration_seconds histogram\n");
    new TreeMap<>(latency)
        .forEach(
            (route, h) -> {
              long cumulative = 0;
              for (int i = 0; i < BUCKETS.length; i++) {
                cumulative += h.counts[i].sum();
                out.append("protector_http_request_duration_seconds_bucket{route=\"")
                    .append(route)
                    .append("\",le=\"")
                    .append(BUCKETS[i])
                    .append("\"} ")
                    .append(cumulative)
                    .append('\n');
              }
              long count = h.count.sum();
              out.append("protector_http_request_duration_seconds_bucket{route=\"")
                  .append(route)
                  .append("\",le=\"+Inf\"} ")
                  .append(count)
                  .append('\n');
              out.append("protector_http_request_duration_seconds_sum{route=\"")
                  .append(route)
                  .append("\"} ")
                  .append(h.sumNanos.sum() / 1e9)
                  .append('\n');
              out.append("protector_http_request_duration_seconds_count{route=\"")
                  .append(route)
                  .append("\"} ")
                  .append(count)
                  .append('\n');
            });

    out.append(
        "# HELP protector_key_operations_total Key operations (wrap = encrypt, unwrap = decrypt) by decision.\n");
    out.append("# TYPE protector_key_operations_total counter\n");
    Map<String, Long> byOp = new TreeMap<>();
    operations.forEach(
        (k, v) -> byOp.put("{op=\"" + k.op() + "\",decision=\"" + k.decision() + "\"}", v.sum()));
    byOp.forEach(
        (labels, v) ->
            out.append("protector_key_operations_total")
                .append(labels)
                .append(' ')
                .append(v)
                .append('\n'));

    out.append("# HELP protector_auth_failures_total Rejected credentials by cause category.\n");
    out.append("# TYPE protector_auth_failures_total counter\n");
    new TreeMap<>(authFailures)
        .forEach(
            (reason, v) ->
                out.append("protector_auth_failures_total{reason=\"")
                    .append(reason)
                    .append("\"} ")
                    .append(v.sum())
                    .append('\n'));

    out.append(
        "# HELP protector_audit_write_errors_total Audit lines that could not be written (request refused).\n");
    out.append("# TYPE protector_audit_write_errors_total counter\n");
    out.append("protector_audit_write_errors_total ").append(auditErrors.sum()).append('\n');
    return out.toString();
  }
}
