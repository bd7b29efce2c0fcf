/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.icebergprotector.it.harness.KeyServerStackTestBase;
import io.icebergprotector.testing.TestPolicy;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Slow clients do not stall a job: 64 TLS connections that finished their handshake and never
 * finish their request headers are held open against the key server (8 workers) while Spark jobs
 * read a protected table through it. Every job finishes with its rows in clear, the stalled
 * connections are still open afterwards, and the server's own latency histogram of unwraps during
 * those jobs is compared with the same jobs before (printed; a stalled worker would put unwraps in
 * the 30-second idle timeout).
 */
class HalfOpenConnectionsDuringJobTest extends KeyServerStackTestBase {
  private static final int HALF_OPEN = 64;
  private static final int JOBS = 4;
  private static final String POLICY =
      TestPolicy.resource(
          HalfOpenConnectionsDuringJobTest.class, "policies/HalfOpenConnectionsDuringJobTest.conf");
  private static final Pattern BUCKET =
      Pattern.compile(
          "protector_http_request_duration_seconds_bucket\\{[^}]*le=\"([^\"]+)\"[^}]*route=\""
              + "(/v1/transit/decrypt[^\"]*)\"[^}]*}\\s+([0-9.eE+]+)|"
              + "protector_http_request_duration_seconds_bucket\\{[^}]*route=\""
              + "(/v1/transit/decrypt[^\"]*)\"[^}]*le=\"([^\"]+)\"[^}]*}\\s+([0-9.eE+]+)");

  HalfOpenConnectionsDuringJobTest() {
    super(POLICY, List.of("etl", "alice"), List.of("pii", "footer"));
  }

  @BeforeAll
  void setUp() {
    configureProt(spark, "etl", Map.of());
    spark.sql("CREATE NAMESPACE IF NOT EXISTS prot.db");
    spark.sql("CREATE TABLE prot.db.people (id BIGINT, ssn STRING) USING iceberg");
    for (int i = 0; i < 4; i++) {
      spark.sql(String.format("INSERT INTO prot.db.people VALUES (%d, 'SSN-HALF-%d')", i, i));
    }
  }

  /** One read job in a new session: a new key scope, so its unwraps go to the server. */
  private void readJob() {
    SparkSession alice = spark.newSession();
    configureProt(alice, "alice", Map.of());
    List<Row> rows = alice.sql("SELECT id, ssn FROM prot.db.people ORDER BY id").collectAsList();
    assertThat(rows).hasSize(4);
    for (Row r : rows) {
      assertThat(r.getString(1)).isEqualTo("SSN-HALF-" + r.getLong(0));
    }
  }

  @Test
  void sixtyFourHalfOpenTlsConnectionsDoNotStallAJob() throws Exception {
    readJob(); // warm-up
    Map<Double, Double> start = unwrapBuckets();
    for (int i = 0; i < JOBS; i++) {
      readJob();
    }
    Map<Double, Double> normal = minus(unwrapBuckets(), start);

    URI url = URI.create(keyServer.url());
    SSLContext tls = keyServer.sslContext();
    List<SSLSocket> stalled = new ArrayList<>();
    try {
      for (int i = 0; i < HALF_OPEN; i++) {
        stalled.add(halfOpen(tls, url.getPort()));
      }
      Map<Double, Double> before = unwrapBuckets();
      for (int i = 0; i < JOBS; i++) {
        readJob();
      }
      Map<Double, Double> held = minus(unwrapBuckets(), before);
      for (SSLSocket s : stalled) {
        assertThat(stillOpen(s)).as("a stalled connection outlived the jobs").isTrue();
      }
      double normalP99 = p99(normal);
      double heldP99 = p99(held);
      System.out.printf(
          "[half-open] %d jobs each way; unwraps %.0f without and %.0f with %d stalled"
              + " connections; server-side p99 bucket <= %s s without, <= %s s with%n",
          JOBS, total(normal), total(held), HALF_OPEN, normalP99, heldP99);
      assertThat(total(held)).as("the jobs' unwraps reached the server").isPositive();
      // a worker stalled by a slow client would keep an unwrap waiting for the 30 s idle timeout
      assertThat(heldP99).as("unwrap latency with stalled connections").isLessThanOrEqualTo(2.5);
    } finally {
      for (SSLSocket s : stalled) {
        s.close();
      }
    }
  }

  /** TLS handshake done, request headers begun and never finished. */
  private static SSLSocket halfOpen(SSLContext tls, int port) throws IOException {
    SSLSocket s = (SSLSocket) tls.getSocketFactory().createSocket("127.0.0.1", port);
    s.startHandshake();
    OutputStream out = s.getOutputStream();
    out.write(
        "POST /v1/transit/decrypt/pii HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Vault-To"
            .getBytes(StandardCharsets.US_ASCII));
    out.flush();
    return s;
  }

  /** Whether the server still holds the connection: a read times out instead of ending. */
  private static boolean stillOpen(SSLSocket s) throws IOException {
    s.setSoTimeout(50);
    InputStream in = s.getInputStream();
    try {
      return in.read() >= 0; // an answer (it should not send one) still means open
    } catch (SocketTimeoutException e) {
      return true;
    } catch (IOException e) {
      return false;
    }
  }

  /** The server's cumulative unwrap latency buckets (upper bound in seconds to count). */
  private Map<Double, Double> unwrapBuckets() throws Exception {
    HttpResponse<String> r =
        keyServer
            .httpClient()
            .send(
                HttpRequest.newBuilder(URI.create(keyServer.url() + "/metrics")).build(),
                HttpResponse.BodyHandlers.ofString());
    assertThat(r.statusCode()).as("GET /metrics").isEqualTo(200);
    Map<Double, Double> buckets = new TreeMap<>();
    Matcher m = BUCKET.matcher(r.body());
    while (m.find()) {
      String le = m.group(1) != null ? m.group(1) : m.group(5);
      String count = m.group(1) != null ? m.group(3) : m.group(6);
      double bound = le.equals("+Inf") ? Double.POSITIVE_INFINITY : Double.parseDouble(le);
      buckets.merge(bound, Double.parseDouble(count), Double::sum);
    }
    return buckets;
  }

  private static Map<Double, Double> minus(Map<Double, Double> after, Map<Double, Double> before) {
    Map<Double, Double> out = new TreeMap<>();
    after.forEach((le, n) -> out.put(le, n - before.getOrDefault(le, 0.0)));
    return out;
  }

  private static double total(Map<Double, Double> cumulative) {
    return cumulative.getOrDefault(Double.POSITIVE_INFINITY, 0.0);
  }

  /** The smallest bucket bound that holds 99% of the requests. */
  private static double p99(Map<Double, Double> cumulative) {
    double all = total(cumulative);
    for (Map.Entry<Double, Double> e : cumulative.entrySet()) {
      if (e.getValue() >= 0.99 * all) {
        return e.getKey();
      }
    }
    return Double.POSITIVE_INFINITY;
  }
}
