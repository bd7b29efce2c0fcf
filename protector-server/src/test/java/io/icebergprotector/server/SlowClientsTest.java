/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.icebergprotector.kms.remote.RemoteKeyService;
import io.icebergprotector.testing.SelfSignedTls;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Slow and stalled clients hold connections, never the server's workers: other callers keep being
 * served, and a stalled connection is closed after the idle timeout.
 */
class SlowClientsTest {
  private static final int HALF_OPEN = 64;

  @TempDir Path dir;

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

  @Test
  void sixtyFourHalfOpenTlsConnectionsDoNotBlockUnwrapsOrHealthProbes() throws Exception {
    // 8 workers (the fixture's limits): far fewer than the stalled connections.
    try (ServerFixture fx = ServerFixture.start(dir)) {
      SSLContext tls = SelfSignedTls.trusting(fx.certificate);
      List<SSLSocket> stalled = new ArrayList<>();
      ExecutorService callers = Executors.newFixedThreadPool(4);
      try {
        for (int i = 0; i < HALF_OPEN; i++) {
          stalled.add(halfOpen(tls, fx.url().getPort()));
        }
        byte[] dek = "0123456789abcdef".getBytes(StandardCharsets.UTF_8);
        String wrapped;
        try (RemoteKeyService etl = fx.client("etl")) {
          wrapped = etl.wrapKey(dek, "pii");
        }
        List<Future<Integer>> work = new ArrayList<>();
        for (int c = 0; c < 3; c++) {
          work.add(
              callers.submit(
                  () -> {
                    int done = 0;
                    try (RemoteKeyService alice =
                        fx.clientBuilder(fx.url(), fx.token("alice"))
                            .cacheTtl(Duration.ZERO)
                            .maxAttempts(1)
                            .build()) {
                      for (int i = 0; i < 50; i++) {
                        assertThat(alice.unwrapKey(wrapped, "pii")).isEqualTo(dek);
                        done++;
                      }
                    }
                    return done;
                  }));
        }
        work.add(
            callers.submit(
                () -> {
                  int done = 0;
                  for (int i = 0; i < 20; i++) {
                    assertThat(fx.get("/health", null).statusCode()).isEqualTo(200);
                    done++;
                  }
                  return done;
                }));
        List<Integer> completed = new ArrayList<>();
        for (Future<Integer> f : work) {
          // A bound only so that a regression fails instead of hanging the build.
          completed.add(f.get(2, TimeUnit.MINUTES));
        }
        assertThat(completed).containsExactly(50, 50, 50, 20);

        // The stalled connections are still open (not dropped to make room): no answer, no EOF.
        for (SSLSocket s : stalled) {
          s.setSoTimeout(1);
          assertThatThrownBy(() -> s.getInputStream().read())
              .isInstanceOf(SocketTimeoutException.class)
              .hasMessageContaining("Read timed out");
        }
        assertThat(fx.audit()).contains("\"op\":\"unwrap\"");
      } finally {
        callers.shutdownNow();
        for (SSLSocket s : stalled) {
          s.close();
        }
      }
    }
  }

  @Test
  void aStalledRequestIsClosedAfterTheIdleTimeout() throws Exception {
    try (ServerFixture fx =
        ServerFixture.start(dir, "protector-server.limits.idle-timeout = 300ms")) {
      try (SSLSocket s = halfOpen(SelfSignedTls.trusting(fx.certificate), fx.url().getPort())) {
        s.setSoTimeout(60_000); // a bound only: the server closes long before
        InputStream in = s.getInputStream();
        // Closed without a request ever being served: end of stream (or a reset).
        int first;
        try {
          first = in.read();
        } catch (IOException reset) {
          first = -1;
        }
        if (first != -1) {
          // Jetty may answer 408 before closing; never a served request.
          byte[] rest = in.readAllBytes();
          String answer = (char) first + new String(rest, StandardCharsets.US_ASCII);
          assertThat(answer).startsWith("HTTP/1.1 408").doesNotContain("plaintext");
        }
      }
      assertThat(Files.exists(fx.auditFile) ? fx.audit() : "").doesNotContain("unwrap");
      assertThat(fx.get("/health", null).statusCode()).isEqualTo(200);
    }
  }
}
