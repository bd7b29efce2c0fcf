/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ServerCommandTest {
  @TempDir Path dir;

  @Test
  void missingServerJarIsOneLineError() {
    Path jar = dir.resolve("missing.jar");
    Cli.Result r = Cli.run("server", "--jar", jar.toString(), "--config", "conf/server.conf");
    assertThat(r.code()).isEqualTo(1);
    assertThat(r.err())
        .isEqualTo(
            "error: Key server jar "
                + jar
                + " not found; build it with"
                + " 'mvn -pl protector-server -am package -DskipTests' (bin/protector server builds it for you)\n");
  }

  @Test
  void helpListsEveryCommand() {
    Cli.Result r = Cli.run("--help");
    assertThat(r.code()).isZero();
    assertThat(r.out()).contains("demo", "sql", "inspect", "policy", "keys", "server");
  }
}
