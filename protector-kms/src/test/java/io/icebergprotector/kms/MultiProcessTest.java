/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.kms;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** Several JVMs against one keystore file, and a JVM killed mid-write. */
class MultiProcessTest {
  private static final String PASS = "multi-process passphrase";

  @TempDir Path dir;

  private Process spawn(Path store, String prefix, int count, Path output) throws IOException {
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    ProcessBuilder pb =
        new ProcessBuilder(
            java,
            "-Xmx128m",
            "-cp",
            System.getProperty("java.class.path"),
            KeystoreWorker.class.getName(),
            store.toString(),
            prefix,
            Integer.toString(count));
    pb.environment().put("KMS_TEST_PASS", PASS);
    pb.redirectError(ProcessBuilder.Redirect.INHERIT);
    if (output != null) {
      pb.redirectOutput(output.toFile());
    }
    return pb.start();
  }

  /**
   * Collects a child's output lines on a thread of their own and counts down {@code committed} for
   * each key the child reports as committed, so the test waits on the latch instead of polling.
   */
  private static Thread collect(Process child, List<String> lines, CountDownLatch committed) {
    Thread reader =
        new Thread(
            () -> {
              try (BufferedReader in =
                  new BufferedReader(
                      new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8))) {
                for (String line = in.readLine(); line != null; line = in.readLine()) {
                  lines.add(line);
                  if (!committed(List.of(line)).isEmpty()) {
                    committed.countDown();
                  }
                }
              } catch (IOException e) {
                lines.add("# output ended: " + e);
              }
            },
            "child-output");
    reader.setDaemon(true);
    reader.start();
    return reader;
  }

  private static List<String> committed(List<String> lines) {
    return lines.stream()
        .filter(l -> l.startsWith("committed ") && l.endsWith(" end"))
        .map(l -> l.substring("committed ".length(), l.length() - " end".length()))
        .collect(Collectors.toList());
  }

  private static LocalKeyService open(Path store) {
    try (Passphrase p = Passphrase.of(PASS.toCharArray())) {
      return LocalKeyService.open(store, p, false);
    }
  }

  @Test
  @Timeout(60)
  void concurrentProcessesNeverLoseAKey() throws Exception {
    Path store = dir.resolve("shared.p12");
    int processes = 4;
    int perProcess = 8;
    List<Process> children = new ArrayList<>();
    for (int p = 0; p < processes; p++) {
      children.add(spawn(store, "p" + p, perProcess, dir.resolve("p" + p + ".log")));
    }
    List<String> allCommitted = new ArrayList<>();
    for (int p = 0; p < processes; p++) {
      Process child = children.get(p);
      assertThat(child.waitFor(50, TimeUnit.SECONDS)).isTrue();
      String out = Files.readString(dir.resolve("p" + p + ".log"));
      assertThat(child.exitValue()).as("child output:%n%s", out).isZero();
      allCommitted.addAll(committed(out.lines().toList()));
    }
    assertThat(allCommitted).hasSize(processes * perProcess);
    try (LocalKeyService kms = open(store)) {
      Set<String> expected =
          IntStream.range(0, processes)
              .boxed()
              .flatMap(p -> IntStream.range(0, perProcess).mapToObj(i -> "p" + p + "-" + i))
              .collect(Collectors.toSet());
      assertThat(kms.listKeys())
          .extracting(KeyInfo::id)
          .containsExactlyInAnyOrderElementsOf(expected);
      assertThat(kms.describeKey("p0-0").latestVersion()).isEqualTo(2);
      for (String id : expected) {
        assertThat(kms.unwrapKey(kms.wrapKey(new byte[] {42}, id), id)).containsExactly(42);
      }
    }
  }

  @Test
  @Timeout(60)
  void killedWriterNeverCorruptsTheStore() throws Exception {
    Path store = dir.resolve("crash.p12");
    java.util.Random random = new java.util.Random();
    for (int round = 0; round < 4; round++) {
      Process child = spawn(store, "r" + round, -1, null);
      int killAfter = 4 + round;
      List<String> lines = new CopyOnWriteArrayList<>();
      CountDownLatch enough = new CountDownLatch(killAfter);
      Thread reader = collect(child, lines, enough);
      assertThat(enough.await(40, TimeUnit.SECONDS))
          .as("child committed %d keys in time (alive %s): %s", killAfter, child.isAlive(), lines)
          .isTrue();
      // Fault injection, not a wait: kill at a random point of the next read-modify-write cycle.
      Thread.sleep(random.nextInt(40));
      child.destroyForcibly(); // SIGKILL: no shutdown hooks, no finally blocks, likely mid-write
      assertThat(child.waitFor(30, TimeUnit.SECONDS)).isTrue();
      reader.join(TimeUnit.SECONDS.toMillis(30)); // the pipe still holds what the child flushed
      // Everything printed was committed before it was printed.
      List<String> ids = committed(lines);
      assertThat(ids).hasSizeGreaterThanOrEqualTo(killAfter);
      try (LocalKeyService kms = open(store)) {
        Set<String> stored = kms.listKeys().stream().map(KeyInfo::id).collect(Collectors.toSet());
        assertThat(stored).containsAll(ids);
        for (String id : ids) {
          assertThat(kms.unwrapKey(kms.wrapKey(new byte[] {1}, id), id)).containsExactly(1);
        }
      }
    }
    // Any temp file the killed writer left behind was removed by a later open (under the lock).
    try (var files = Files.list(dir)) {
      assertThat(files.map(p -> p.getFileName().toString()))
          .noneMatch(n -> n.contains(LocalKeyService.TEMP_MARKER));
    }
  }
}
