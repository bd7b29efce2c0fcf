/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.icebergprotector.it.harness.ItPaths;
import io.icebergprotector.testing.ManagedProcess;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A server that dies or never answers fails the test class clearly, with its log's tail. */
class HarnessFailureTest {
  @Test
  void processThatExitsEarlyFailsWithItsLog() {
    Path work = ItPaths.workDir("HarnessFailureTest");
    ManagedProcess process =
        ManagedProcess.builder("HarnessFailureTest.exits")
            .command(List.of(ManagedProcess.javaExecutable(), "-cp", work.toString(), "NoSuchMain"))
            .workDir(work)
            .logFile(ItPaths.logsDir().resolve("HarnessFailureTest.exits.log"))
            .build()
            .start();
    assertThatThrownBy(() -> process.awaitHealthy(Duration.ofSeconds(30), () -> false))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("HarnessFailureTest.exits exited with code 1")
        .hasMessageContaining("NoSuchMain");
  }

  @Test
  void processThatNeverBecomesHealthyTimesOutAndIsStopped() {
    Path work = ItPaths.workDir("HarnessFailureTest2");
    ManagedProcess process =
        ManagedProcess.builder("HarnessFailureTest.hangs")
            .command(List.of("sh", "-c", "echo starting up; exec sleep 60"))
            .workDir(work)
            .logFile(ItPaths.logsDir().resolve("HarnessFailureTest.hangs.log"))
            .build()
            .start();
    assertThatThrownBy(() -> process.awaitHealthy(Duration.ofSeconds(1), () -> false))
        .hasMessageContaining("did not become healthy within 1 s")
        .hasMessageContaining("starting up");
    assertThat(process.isAlive()).isFalse();
  }
}
