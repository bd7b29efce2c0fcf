/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.icebergprotector.it.harness.BucketScan;
import io.icebergprotector.it.harness.BucketScan.Canary;
import io.icebergprotector.it.harness.BucketScan.Kind;
import io.icebergprotector.it.harness.ItPaths;
import io.icebergprotector.it.harness.ProtectorServerProcess;
import io.icebergprotector.it.launch.PrincipalJob;
import io.icebergprotector.testing.ManagedProcess;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.LongStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The supported multi-user deployment (issue 18 item 5): one principal per JVM against the shared
 * key server. Two Spark applications on one machine, each in its own JVM ({@link PrincipalJob})
 * with only its own token file: alice (writer, clear) writes a protected table and reads it, then
 * mallory (no role) reads the same files. Each sees exactly its own view, the key server's audit
 * shows each JVM's key requests in its own principal's name only, and no column key is ever
 * released to mallory; her JVM holds no key scope but her own.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class SeparateJvmPrincipalsTest {
  private static final Duration JOB_TIMEOUT = Duration.ofMinutes(4);

  private Path work;
  private Path warehouse;
  private ProtectorServerProcess keyServer;

  @BeforeAll
  void startKeyServer() {
    this.work = ItPaths.workDir(getClass().getSimpleName());
    this.warehouse = work.resolve("warehouse");
    this.keyServer =
        ProtectorServerProcess.builder(
                getClass().getSimpleName() + ".protector-server", work.resolve("protector-server"))
            .policy(RemotePrincipalBindingTest.POLICY)
            .token("alice", "alice")
            .token("mallory", "mallory")
            .token("ops", "ops")
            .adminRoles("keyadmin")
            .build()
            .start()
            .awaitReady();
    keyServer.createKeys("ops", List.of("pii", "fin", "footer"));
  }

  @AfterAll
  void stopKeyServer() {
    if (keyServer != null) {
      keyServer.close();
    }
  }

  @Test
  void eachPrincipalInItsOwnJvmSeesOnlyItsOwnView() {
    int beforeAlice = keyServer.auditEvents().size();
    String alice = runJob("alice", "write");
    assertThat(alice)
        .isEqualTo(
            "principal=alice wrote="
                + PrincipalJob.ROWS
                + " rows="
                + PrincipalJob.ROWS
                + " ssn=clear salary=clear registered=[alice]");
    List<Map<String, Object>> alicesEvents = auditSince(beforeAlice);
    assertThat(principals(alicesEvents)).as("key requests of alice's JVM").containsExactly("alice");
    assertThat(alicesEvents)
        .as("alice wrapped and unwrapped the column keys")
        .anyMatch(e -> is(e, "wrap", "pii", "allow"))
        .anyMatch(e -> is(e, "wrap", "fin", "allow"))
        .anyMatch(e -> is(e, "unwrap", "pii", "allow"))
        .anyMatch(e -> is(e, "unwrap", "fin", "allow"));

    int beforeMallory = keyServer.auditEvents().size();
    String mallory = runJob("mallory", "read");
    assertThat(mallory)
        .isEqualTo(
            "principal=mallory rows="
                + PrincipalJob.ROWS
                + " ssn=null salary=null registered=[mallory]");
    List<Map<String, Object>> mallorysEvents = auditSince(beforeMallory);
    assertThat(principals(mallorysEvents))
        .as("key requests of mallory's JVM")
        .containsExactly("mallory");
    assertThat(mallorysEvents)
        .as("mallory read the footer with her own token")
        .anyMatch(e -> is(e, "unwrap", "footer", "allow"));
    assertThat(keyServer.auditEvents())
        .as("no column key was ever released to mallory")
        .noneMatch(
            e ->
                "mallory".equals(e.get("principal"))
                    && ("pii".equals(e.get("key")) || "fin".equals(e.get("key")))
                    && "allow".equals(e.get("decision")));

    BucketScan files = BucketScan.ofDirectory(warehouse);
    List<Canary> canaries = new ArrayList<>();
    LongStream.rangeClosed(1, PrincipalJob.ROWS)
        .forEach(
            id -> {
              canaries.add(Canary.text(PrincipalJob.ssn(id)));
              canaries.add(Canary.int64(PrincipalJob.salary(id)));
            });
    assertThat(files.keys("", Kind.DATA)).as("data files under %s", warehouse).isNotEmpty();
    assertThat(files.find(canaries)).as("protected values at rest under %s", warehouse).isEmpty();
    assertThat(files.find(List.of(Canary.text(PrincipalJob.name(1)))))
        .as("positive control: the unprotected name is plaintext in a data file")
        .anyMatch(h -> h.kind() == Kind.DATA);
  }

  /**
   * Runs {@link PrincipalJob} as the holder of {@code tokenName}, in a JVM of its own that is given
   * only that token file; returns its report line.
   */
  private String runJob(String tokenName, String mode) {
    List<String> cmd = new ArrayList<>();
    cmd.add(ManagedProcess.javaExecutable());
    cmd.add("-Xmx768m");
    // the same --add-opens as this JVM (Spark on Java 17)
    ManagementFactory.getRuntimeMXBean().getInputArguments().stream()
        .filter(a -> a.startsWith("--add-opens"))
        .forEach(cmd::add);
    cmd.add("-cp");
    cmd.add(System.getProperty("surefire.test.class.path", System.getProperty("java.class.path")));
    cmd.add(PrincipalJob.class.getName());
    cmd.addAll(
        List.of(
            mode,
            warehouse.toUri().toString(),
            keyServer.url(),
            keyServer.tokenFile(tokenName).toString(),
            keyServer.certificate().toString()));
    String name = getClass().getSimpleName() + "." + tokenName + "-job";
    ManagedProcess job =
        ManagedProcess.builder(name)
            .command(cmd)
            .workDir(work.resolve(tokenName))
            .logFile(ItPaths.logsDir().resolve(name + ".log"))
            .build()
            .start();
    int exit = job.awaitExit(JOB_TIMEOUT);
    String log = readLog(job);
    assertThat(exit)
        .as("%s exit code; log %s ends with:%n%s", name, job.logFile(), job.tail(60))
        .isZero();
    List<String> reports =
        log.lines()
            .filter(l -> l.startsWith("PRINCIPAL-JOB "))
            .map(l -> l.substring("PRINCIPAL-JOB ".length()))
            .collect(Collectors.toList());
    System.out.println("[it] " + name + ": " + reports);
    assertThat(reports).as("report of %s in %s", name, job.logFile()).hasSize(1);
    for (String token : keyServer.tokens()) {
      assertThat(log.contains(token)).as("a token in the log of %s", name).isFalse();
    }
    return reports.get(0);
  }

  private static String readLog(ManagedProcess job) {
    try {
      return Files.readString(job.logFile(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  private List<Map<String, Object>> auditSince(int from) {
    List<Map<String, Object>> events = keyServer.auditEvents();
    return events.subList(from, events.size());
  }

  private static Set<Object> principals(List<Map<String, Object>> events) {
    return events.stream()
        .map(e -> e.get("principal"))
        .collect(Collectors.toCollection(TreeSet::new));
  }

  private static boolean is(Map<String, Object> event, String op, String key, String decision) {
    return op.equals(event.get("op"))
        && key.equals(event.get("key"))
        && decision.equals(event.get("decision"));
  }
}
