/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.server;

import io.icebergprotector.kms.remote.RemoteKeyService;
import io.icebergprotector.kms.wire.JsonCodec;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Unwrap load on the key server in its own JVM, over TLS on loopback: driven by {@code wrk} with 8
 * and 32 connections, and by the project's own client ({@link RemoteKeyService}, N threads sharing
 * one instance in this JVM, as an executor's tasks do). Every request is a real unwrap:
 * authenticated, authorized, audited with the configured {@code audit.sync}, decrypted. Prints
 * unwraps/s, p50, p99 and the server's CPU time per request. A benchmark, not a test (CI does not
 * run it); {@code bin/keyserver-benchmark} builds the classpath and runs it. {@code
 * -Dserver.jvm.options=...} adds options to the server JVM (e.g. a JFR recording).
 *
 * <pre>
 *   KeyServerLoadBenchmark [seconds=10] [audit-sync=fsync] [wrk-connections=8,32] [client-threads=8]
 * </pre>
 */
public final class KeyServerLoadBenchmark {
  private KeyServerLoadBenchmark() {}

  private static final int WARM_UP_SECONDS = 60;

  public static void main(String[] args) throws Exception {
    int seconds = args.length > 0 ? Integer.parseInt(args[0]) : 10;
    String sync = args.length > 1 ? args[1] : "fsync";
    int[] connections =
        Arrays.stream((args.length > 2 ? args[2] : "8,32").split(","))
            .mapToInt(Integer::parseInt)
            .toArray();
    int[] threads =
        Arrays.stream((args.length > 3 ? args[3] : "8").split(","))
            .mapToInt(Integer::parseInt)
            .toArray();
    Path dir = Files.createTempDirectory("protector-load");
    ServerFixture fx = ServerFixture.prepare(dir);
    Files.writeString(
        fx.configFile,
        Files.readString(fx.configFile)
            + "\nprotector-server.audit.sync = "
            + sync
            + "\nprotector-server.limits.worker-threads = 16\n");
    try (ServerProcess server =
        ServerProcess.start(
            new ProcessBuilder(serverCommand(fx.configFile)), dir.resolve("stderr"))) {
      byte[] dek = "0123456789abcdef".getBytes(StandardCharsets.UTF_8);
      String wrapped;
      try (RemoteKeyService etl =
          fx.clientBuilder(server.url(), fx.token("etl"))
              .requestTimeout(Duration.ofSeconds(30))
              .build()) {
        wrapped = etl.wrapKey(dek, "pii");
      }
      System.out.printf(
          Locale.ROOT,
          "key server unwrap load: %d cores, TLS on loopback, audit.sync = %s, %d s per run%n",
          Runtime.getRuntime().availableProcessors(),
          sync,
          seconds);
      System.out.printf(
          Locale.ROOT,
          "  %-34s %10s %9s %9s %15s %15s%n",
          "driver",
          "unwraps/s",
          "p50 ms",
          "p99 ms",
          "server CPU/req",
          "driver CPU/req");
      String wrk = wrkPath();
      if (wrk == null) {
        System.out.println("  wrk: not installed (apt-get install wrk), skipped");
      } else {
        Path script = dir.resolve("unwrap.lua");
        Files.writeString(
            script,
            String.join(
                "\n",
                "wrk.method = \"POST\"",
                "wrk.headers[\"Content-Type\"] = \"application/json\"",
                "wrk.headers[\"X-Vault-Token\"] = \"" + fx.token("alice") + "\"",
                "wrk.body = '" + JsonCodec.write(JsonCodec.object("ciphertext", wrapped)) + "'",
                ""));
        String target = server.url() + "/v1/transit/decrypt/pii";
        // warm-up: the JIT of the server (and of our client) needs about a minute of load (after 2
        // s
        // the server gave 3.3k unwraps/s, after a minute 10k/s)
        runWrk(wrk, script, target, connections[0], WARM_UP_SECONDS);
        for (int c : connections) {
          Duration cpu0 = server.cpuTime();
          Duration children0 = childrenCpu();
          Row row = runWrk(wrk, script, target, c, seconds);
          Duration cpu = server.cpuTime().minus(cpu0);
          print("wrk, " + c + " connections", row, cpu, childrenCpu().minus(children0));
        }
      }
      try (RemoteKeyService alice =
          fx.clientBuilder(server.url(), fx.token("alice"))
              .cacheTtl(Duration.ZERO) // every call goes to the server
              .requestTimeout(Duration.ofSeconds(30))
              .build()) {
        runClient(alice, wrapped, threads[0], WARM_UP_SECONDS); // warm-up: the client's JIT too
        for (int t : threads) {
          Duration cpu0 = server.cpuTime();
          Duration own0 = ownCpu();
          Row row = runClient(alice, wrapped, t, seconds);
          Duration cpu = server.cpuTime().minus(cpu0);
          print("RemoteKeyService, " + t + " threads", row, cpu, ownCpu().minus(own0));
        }
      }
      System.out.printf(Locale.ROOT, "  audit file: %d bytes%n", Files.size(fx.auditFile));
    }
  }

  /** The test's server command with a production-sized heap. */
  private static List<String> serverCommand(Path config) {
    List<String> command = new ArrayList<>(ServerProcess.command(config));
    command.replaceAll(a -> a.equals("-Xmx128m") ? "-Xmx1g" : a);
    // e.g. -Dserver.jvm.options=-XX:StartFlightRecording=filename=/tmp/server.jfr to profile it
    String extra = System.getProperty("server.jvm.options", "").strip();
    if (!extra.isEmpty()) {
      command.addAll(1, List.of(extra.split("\\s+")));
    }
    return command;
  }

  private record Row(long requests, long errors, double seconds, double p50Ms, double p99Ms) {}

  private static void print(String driver, Row r, Duration serverCpu, Duration driverCpu) {
    double perSecond = r.requests() / r.seconds();
    long n = Math.max(1, r.requests());
    System.out.printf(
        Locale.ROOT,
        "  %-34s %10.0f %9.3f %9.3f %12.1f us %12.1f us%s%n",
        driver,
        perSecond,
        r.p50Ms(),
        r.p99Ms(),
        serverCpu.toNanos() / 1e3 / n,
        driverCpu.toNanos() / 1e3 / n,
        r.errors() == 0 ? "" : "  (" + r.errors() + " errors)");
  }

  /** This JVM's CPU time (the own client's threads, and the JDK HttpClient's). */
  private static Duration ownCpu() {
    return ProcessHandle.current().info().totalCpuDuration().orElseThrow();
  }

  /**
   * CPU time of this JVM's ended, waited-for children (wrk): cutime + cstime of /proc/self/stat.
   */
  private static Duration childrenCpu() throws java.io.IOException {
    String stat = Files.readString(Path.of("/proc/self/stat"));
    String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
    // fields 16 and 17 of stat(5), counted from 3 after the command name; clock ticks of 10 ms
    long ticks = Long.parseLong(f[13]) + Long.parseLong(f[14]);
    return Duration.ofMillis(ticks * 10);
  }

  private static String wrkPath() {
    for (String d : System.getenv().getOrDefault("PATH", "/usr/bin").split(":")) {
      if (Files.isExecutable(Path.of(d, "wrk"))) {
        return Path.of(d, "wrk").toString();
      }
    }
    return null;
  }

  private static final Pattern RATE = Pattern.compile("Requests/sec:\\s+([0-9.]+)");
  private static final Pattern TOTAL = Pattern.compile("(\\d+) requests in ([0-9.]+)(ms|s|m)\\b");
  private static final Pattern NON_2XX = Pattern.compile("Non-2xx or 3xx responses: (\\d+)");
  private static final Pattern SOCKET_ERRORS =
      Pattern.compile("Socket errors: connect (\\d+), read (\\d+), write (\\d+), timeout (\\d+)");

  private static Row runWrk(String wrk, Path script, String target, int connections, int seconds)
      throws Exception {
    Process p =
        new ProcessBuilder(
                wrk,
                "-t",
                "2",
                "-c",
                Integer.toString(connections),
                "-d",
                seconds + "s",
                "--latency",
                "-s",
                script.toString(),
                target)
            .redirectErrorStream(true)
            .start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (p.waitFor() != 0) {
      throw new IllegalStateException("wrk failed:\n" + out);
    }
    Matcher total = TOTAL.matcher(out);
    if (!total.find() || !RATE.matcher(out).find()) {
      throw new IllegalStateException("cannot read wrk's output:\n" + out);
    }
    long requests = Long.parseLong(total.group(1));
    double secs =
        Double.parseDouble(total.group(2))
            * switch (total.group(3)) {
              case "ms" -> 0.001;
              case "m" -> 60; // wrk prints runs of a minute or more in minutes
              default -> 1;
            };
    long errors = 0;
    Matcher non2xx = NON_2XX.matcher(out);
    if (non2xx.find()) {
      errors += Long.parseLong(non2xx.group(1));
    }
    Matcher socket = SOCKET_ERRORS.matcher(out);
    if (socket.find()) {
      for (int i = 1; i <= 4; i++) {
        errors += Long.parseLong(socket.group(i));
      }
    }
    return new Row(
        requests - errors, errors, secs, wrkPercentile(out, "50%"), wrkPercentile(out, "99%"));
  }

  /** A line of wrk's latency distribution, e.g. {@code " 99% 5.90ms"}, in ms. */
  private static double wrkPercentile(String out, String label) {
    Matcher m =
        Pattern.compile("^\\s+" + Pattern.quote(label) + "\\s+([0-9.]+)(us|ms|s)\\s*$", 8)
            .matcher(out);
    if (!m.find()) {
      throw new IllegalStateException("no " + label + " latency in wrk's output:\n" + out);
    }
    double v = Double.parseDouble(m.group(1));
    return m.group(2).equals("us") ? v / 1000 : m.group(2).equals("s") ? v * 1000 : v;
  }

  private static Row runClient(RemoteKeyService client, String wrapped, int threads, int seconds)
      throws InterruptedException {
    List<long[]> latencies = new ArrayList<>();
    int[] counts = new int[threads];
    long[] errors = new long[threads];
    CountDownLatch go = new CountDownLatch(1);
    List<Thread> workers = new ArrayList<>();
    long[] window = new long[2];
    for (int i = 0; i < threads; i++) {
      int id = i;
      long[] lat = new long[2_000_000];
      latencies.add(lat);
      Thread t =
          new Thread(
              () -> {
                try {
                  go.await();
                } catch (InterruptedException e) {
                  return;
                }
                long deadline = window[0] + seconds * 1_000_000_000L;
                int n = 0;
                while (n < lat.length && System.nanoTime() < deadline) {
                  long t0 = System.nanoTime();
                  try {
                    client.unwrapKey(wrapped, "pii");
                    lat[n++] = System.nanoTime() - t0;
                  } catch (RuntimeException e) {
                    errors[id]++;
                  }
                }
                counts[id] = n;
              },
              "load-" + i);
      workers.add(t);
      t.start();
    }
    window[0] = System.nanoTime();
    go.countDown();
    for (Thread t : workers) {
      t.join();
    }
    window[1] = System.nanoTime();
    int total = Arrays.stream(counts).sum();
    long[] all = new long[total];
    int at = 0;
    for (int i = 0; i < threads; i++) {
      System.arraycopy(latencies.get(i), 0, all, at, counts[i]);
      at += counts[i];
    }
    Arrays.sort(all);
    return new Row(
        total,
        Arrays.stream(errors).sum(),
        (window[1] - window[0]) / 1e9,
        percentile(all, 50),
        percentile(all, 99));
  }

  private static double percentile(long[] sorted, double p) {
    if (sorted.length == 0) {
      return 0;
    }
    int i = (int) Math.min(sorted.length - 1, Math.ceil(p / 100.0 * sorted.length) - 1);
    return sorted[Math.max(0, i)] / 1e6;
  }
}
