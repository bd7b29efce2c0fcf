/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.icebergprotector.kms.remote.RemoteKeyService;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The server as a separate JVM on loopback, as bin/protector would run it. */
class ServerProcessTest {
  @TempDir Path dir;

  @Test
  void separateProcessServesRoundTrip() throws Exception {
    ServerFixture fx = ServerFixture.prepare(dir);
    // the passphrase from an environment variable this time, as in production
    Path conf = fx.configFile;
    Files.writeString(
        conf,
        Files.readString(conf)
            + "\nprotector-server.keys { passphrase-file = null, passphrase-env = PROTECTOR_TEST_PASSPHRASE }\n");

    ProcessBuilder pb = new ProcessBuilder(ServerProcess.command(conf));
    pb.environment().put("PROTECTOR_TEST_PASSPHRASE", ServerFixture.KEYSTORE_PASSPHRASE);
    try (ServerProcess server = ServerProcess.start(pb, dir.resolve("stderr.txt"))) {
      URI url = server.url();
      assertThat(url.getPort()).isPositive();

      byte[] dek = "0123456789abcdef".getBytes(StandardCharsets.UTF_8);
      try (RemoteKeyService etl = fx.clientBuilder(url, fx.token("etl")).build();
          RemoteKeyService alice = fx.clientBuilder(url, fx.token("alice")).build()) {
        String wrapped = etl.wrapKey(dek, "pii");
        assertThat(alice.unwrapKey(wrapped, "pii")).isEqualTo(dek);
      }
    }
    // the shutdown hook flushed and closed the audit log
    assertThat(Files.readString(fx.auditFile))
        .contains("\"principal\":\"alice\"")
        .contains("\"op\":\"unwrap\"");
  }
}
