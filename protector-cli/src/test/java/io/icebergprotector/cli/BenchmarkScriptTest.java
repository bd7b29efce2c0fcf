/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** bin/benchmark as a process: --help builds nothing and prints no colour codes. */
class BenchmarkScriptTest {
  @TempDir Path dir;

  @Test
  void helpNeedsNoBuild() throws Exception {
    // a "mvn" first on the PATH that only leaves a trace: the script must not call it
    Path bin = Files.createDirectories(dir.resolve("bin"));
    Path marker = dir.resolve("mvn-was-called");
    Path mvn = Files.writeString(bin.resolve("mvn"), "#!/bin/sh\ntouch '" + marker + "'\nexit 1\n");
    Files.setPosixFilePermissions(mvn, PosixFilePermissions.fromString("rwxr-xr-x"));

    ProcessBuilder pb =
        new ProcessBuilder(
                "bash", Path.of("../bin/benchmark").toAbsolutePath().toString(), "--help")
            .redirectErrorStream(true);
    pb.environment().put("PATH", bin + ":" + System.getenv("PATH"));
    Process p = pb.start();
    String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(120, TimeUnit.SECONDS)).isTrue();
    assertThat(p.exitValue()).as(output).isZero();
    assertThat(marker).as("bin/benchmark --help ran Maven").doesNotExist();
    assertThat(output).contains("--rows").doesNotContain("building").doesNotContain("\u001b[");
  }
}
