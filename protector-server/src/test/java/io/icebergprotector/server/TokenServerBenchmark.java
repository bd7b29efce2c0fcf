/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.server;

import io.icebergprotector.kms.KeyService;
import io.icebergprotector.kms.remote.RemoteKeyService;
import io.icebergprotector.kms.token.TokenMode;
import io.icebergprotector.kms.token.Tokenizer;
import io.icebergprotector.policy.ProtectionMethod;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Server token mode under load: values per second through the key server's {@code encode} and
 * {@code decode} batch endpoints, over TLS on loopback, with the server in its own JVM and the
 * project's client ({@link RemoteKeyService} with server-mode tokenizers, N threads sharing one
 * client as an executor's tasks do). Every batch is authenticated, authorized and audited (one line
 * per batch). Prints values/s, batches/s and the server's CPU per value for deterministic and fpe.
 * A benchmark, not a test; {@code bin/keyserver-benchmark tokens} builds the classpath and runs it
 * ({@code -Dserver.jvm.options=...} adds options to the server JVM, e.g. a JFR recording).
 *
 * <pre>
 *   TokenServerBenchmark [seconds=10] [client-threads=4] [batch-values=10000]
 * </pre>
 */
public final class TokenServerBenchmark {
  private TokenServerBenchmark() {}

  public static void main(String[] args) throws Exception {
    int seconds = args.length > 0 ? Integer.parseInt(args[0]) : 10;
    int threads = args.length > 1 ? Integer.parseInt(args[1]) : 4;
    int batch = args.length > 2 ? Integer.parseInt(args[2]) : 10_000;
    Path dir = Files.createTempDirectory("protector-token-load");
    ServerFixture fx = ServerFixture.prepareWithPolicy(dir, TokenEndpointsTest.POLICY);
    Files.writeString(
        fx.configFile,
        Files.readString(fx.configFile)
            + "\nprotector-server.audit.sync = fsync"
            + "\nprotector-server.limits.worker-threads = 16"
            + "\nprotector-server.limits.max-batch-values = "
            + Math.max(batch, 10_000)
            + "\n");
    List<String> command = new ArrayList<>(ServerProcess.command(fx.configFile));
    command.replaceAll(a -> a.equals("-Xmx128m") ? "-Xmx1g" : a);
    // e.g. -Dserver.jvm.options=-XX:StartFlightRecording=filename=/tmp/server.jfr to profile it
    String extra = System.getProperty("server.jvm.options", "").strip();
    if (!extra.isEmpty()) {
      command.addAll(1, List.of(extra.split("\\s+")));
    }
    try (ServerProcess server =
            ServerProcess.start(new ProcessBuilder(command), dir.resolve("stderr"));
        RemoteKeyService alice =
            fx.clientBuilder(server.url(), fx.token("alice"))
                .requestTimeout(Duration.ofSeconds(60))
                .tokenBatchValues(batch)
                .build()) {
      System.out.printf(
          Locale.ROOT,
          "key server token batches: %d cores, TLS on loopback, audit.sync = fsync, %d client"
              + " threads, %d values per batch, %d s per run%n",
          Runtime.getRuntime().availableProcessors(),
          threads,
          batch,
          seconds);
      System.out.printf(
          Locale.ROOT,
          "  %-28s %12s %10s %16s %16s%n",
          "method, direction",
          "values/s",
          "batches/s",
          "server CPU/value",
          "client CPU/value");
      String[] emails = new String[batch];
      String[] ssns = new String[batch];
      for (int i = 0; i < batch; i++) {
        emails[i] = String.format(Locale.ROOT, "user%07d@example.com", i);
        ssns[i] = String.format(Locale.ROOT, "%03d-%02d-%04d", i % 1000, i % 100, i);
      }
      run(server, alice, "email", "deterministic", emails, threads, 2, false); // warm-up
      run(server, alice, "ssn", TokenEndpointsTest.SSN_METHOD, ssns, threads, 2, false);
      run(server, alice, "email", "deterministic", emails, threads, seconds, true);
      run(server, alice, "ssn", TokenEndpointsTest.SSN_METHOD, ssns, threads, seconds, true);
      System.out.printf(Locale.ROOT, "  audit file: %d bytes%n", Files.size(fx.auditFile));
    }
  }

  private static void run(
      ServerProcess server,
      RemoteKeyService client,
      String domain,
      String methodSpec,
      String[] values,
      int threads,
      int seconds,
      boolean print)
      throws Exception {
    ProtectionMethod method = ProtectionMethod.parse(methodSpec);
    String[] tokens = values.clone();
    try (Tokenizer t =
        client.tokenizer("pii", KeyService.LATEST_VERSION, domain, method, TokenMode.SERVER)) {
      t.protectAll(tokens, tokens.length);
    }
    for (boolean encode : new boolean[] {true, false}) {
      String[] input = encode ? values : tokens;
      Duration cpu0 = server.cpuTime();
      Duration own0 = ProcessHandle.current().info().totalCpuDuration().orElseThrow();
      AtomicLong batches = new AtomicLong();
      AtomicLong errors = new AtomicLong();
      CountDownLatch go = new CountDownLatch(1);
      List<Thread> workers = new ArrayList<>();
      long[] window = new long[1];
      for (int i = 0; i < threads; i++) {
        Thread w =
            new Thread(
                () -> {
                  try (Tokenizer t =
                      client.tokenizer(
                          "pii", KeyService.LATEST_VERSION, domain, method, TokenMode.SERVER)) {
                    go.await();
                    long deadline = window[0] + seconds * 1_000_000_000L;
                    String[] buffer = new String[input.length];
                    while (System.nanoTime() < deadline) {
                      System.arraycopy(input, 0, buffer, 0, input.length);
                      try {
                        if (encode) {
                          t.protectAll(buffer, buffer.length);
                        } else {
                          t.unprotectAll(buffer, buffer.length);
                        }
                        batches.incrementAndGet();
                      } catch (RuntimeException e) {
                        errors.incrementAndGet();
                      }
                    }
                  } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                  }
                },
                "token-load-" + i);
        workers.add(w);
        w.start();
      }
      window[0] = System.nanoTime();
      go.countDown();
      for (Thread w : workers) {
        w.join();
      }
      double elapsed = (System.nanoTime() - window[0]) / 1e9;
      Duration cpu = server.cpuTime().minus(cpu0);
      Duration own = ProcessHandle.current().info().totalCpuDuration().orElseThrow().minus(own0);
      long n = Math.max(1, batches.get() * input.length);
      if (print) {
        System.out.printf(
            Locale.ROOT,
            "  %-28s %12.0f %10.1f %13.2f us %13.2f us%s%n",
            method.kind().name().toLowerCase(Locale.ROOT) + ", " + (encode ? "encode" : "decode"),
            n / elapsed,
            batches.get() / elapsed,
            cpu.toNanos() / 1e3 / n,
            own.toNanos() / 1e3 / n,
            errors.get() == 0 ? "" : "  (" + errors.get() + " failed batches)");
      }
    }
  }
}
