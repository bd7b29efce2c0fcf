package io.icebergprotector.server;

import io.icebergprotector.kms.remote.RemoteKeyService;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CountDownLatch;

/**
 * Unwrap throughput and latency against an in-process TLS key server over loopback. A benchmark,
 * not a test (not run by CI). Each client has its own {@link RemoteKeyService} (its own HTTP
 * connection pool) with the unwrap cache OFF, so every call is a real TLS round trip,
 * authenticated, authorized, audited (sync = flush unless overridden) and decrypted by the server.
 * The optional 4th argument is extra server HOCON, e.g. {@code "protector-server.audit.sync =
 * fsync"}.
 *
 * <pre>
 *   java -cp "$(test classpath)" io.icebergprotector.server.LoadBenchmark [clients=8] [seconds=5] [maxOpsPerClient=10000000] [extra-hocon]
 * </pre>
 */
public final class LoadBenchmark {
  private LoadBenchmark() {}

  public static void main(String[] args) throws Exception {
    int clients = args.length > 0 ? Integer.parseInt(args[0]) : 8;
    int seconds = args.length > 1 ? Integer.parseInt(args[1]) : 5;
    int maxOps = args.length > 2 ? Integer.parseInt(args[2]) : 10_000_000;
    String extra = args.length > 3 ? args[3] : ""; // e.g. "protector-server.audit.sync = fsync"
    Path dir = Files.createTempDirectory("protector-bench");
    try (ServerFixture fx =
        ServerFixture.start(dir, "protector-server.limits.max-body-size = 64k\n" + extra)) {
      byte[] dek = "0123456789abcdef".getBytes(StandardCharsets.UTF_8);
      String wrapped;
      try (RemoteKeyService etl = fx.client("etl")) {
        wrapped = etl.wrap("pii", dek);
      }
      // warm-up: JIT, TLS sessions, key material cache
      run(fx, wrapped, clients, Duration.ofSeconds(Math.min(2, seconds)), maxOps);
      Result r = run(fx, wrapped, clients, Duration.ofSeconds(seconds), maxOps);
      long[] all = r.latencies;
      Arrays.sort(all);
      System.out.printf(
          "protector-server unwrap benchmark: %d clients, %.1f s, %d cores, %s over loopback%s%n",
          clients,
          r.seconds,
          Runtime.getRuntime().availableProcessors(),
          fx.url().getScheme(),
          extra.isEmpty() ? "" : ", " + extra);
      System.out.printf(
          "  unwraps: %d  errors: %d  throughput: %.0f unwraps/s%n",
          all.length, r.errors, all.length / r.seconds);
      System.out.printf(
          "  latency ms: p50 %.3f  p90 %.3f  p99 %.3f  p99.9 %.3f  max %.3f%n",
          pct(all, 50),
          pct(all, 90),
          pct(all, 99),
          pct(all, 99.9),
          all.length == 0 ? 0 : all[all.length - 1] / 1e6);
      System.out.printf("  audit file: %d bytes%n", Files.size(fx.auditFile));
    }
  }

  private record Result(long[] latencies, long errors, double seconds) {}

  private static Result run(
      ServerFixture fx, String wrapped, int clients, Duration duration, int maxOps)
      throws Exception {
    List<long[]> perClient = new ArrayList<>();
    int[] counts = new int[clients];
    long[] errors = new long[clients];
    CountDownLatch ready = new CountDownLatch(clients);
    CountDownLatch go = new CountDownLatch(1);
    List<Thread> threads = new ArrayList<>();
    long[] window = new long[2];
    for (int c = 0; c < clients; c++) {
      int id = c;
      long[] lat = new long[Math.min(maxOps, 2_000_000)];
      perClient.add(lat);
      Thread t =
          new Thread(
              () -> {
                try (RemoteKeyService alice =
                    fx.clientBuilder(fx.url(), fx.token("alice")).cacheTtl(Duration.ZERO).build()) {
                  alice.unwrap("pii", wrapped); // connect + handshake outside the measurement
                  ready.countDown();
                  go.await();
                  long deadline = System.nanoTime() + duration.toNanos();
                  int n = 0;
                  while (n < lat.length && System.nanoTime() < deadline) {
                    long t0 = System.nanoTime();
                    try {
                      alice.unwrap("pii", wrapped);
                      lat[n++] = System.nanoTime() - t0;
                    } catch (RuntimeException e) {
                      errors[id]++;
                    }
                  }
                  counts[id] = n;
                } catch (InterruptedException e) {
                  Thread.currentThread().interrupt();
                }
              },
              "bench-client-" + c);
      threads.add(t);
      t.start();
    }
    ready.await();
    window[0] = System.nanoTime();
    go.countDown();
    for (Thread t : threads) {
      t.join();
    }
    window[1] = System.nanoTime();
    int total = Arrays.stream(counts).sum();
    long[] all = new long[total];
    int at = 0;
    for (int c = 0; c < clients; c++) {
      System.arraycopy(perClient.get(c), 0, all, at, counts[c]);
      at += counts[c];
    }
    return new Result(all, Arrays.stream(errors).sum(), (window[1] - window[0]) / 1e9);
  }

  private static double pct(long[] sorted, double p) {
    if (sorted.length == 0) {
      return 0;
    }
    int i = (int) Math.min(sorted.length - 1, Math.ceil(p / 100.0 * sorted.length) - 1);
    return sorted[Math.max(0, i)] / 1e6;
  }
}
