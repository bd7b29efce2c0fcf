/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.icebergprotector.kms.KeyServiceUnavailableException;
import io.icebergprotector.kms.remote.RemoteKeyService;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two servers on one keystore (the replica design: the keystore file is shared, mutations take its
 * file lock, each server reloads it when it changed) and a client given both URLs.
 */
class ReplicaFailoverTest {
  @TempDir Path dir;

  @Test
  void clientsFailOverToTheReplicaAndBothAuditLogsAccountForEveryUnwrap() throws Exception {
    try (ServerFixture fx = ServerFixture.start(dir)) {
      Path replicaConfig = dir.resolve("replica.conf");
      Files.writeString(
          replicaConfig,
          "include \"server.conf\"\nprotector-server.audit.file = \"audit/replica.log\"\n");
      ProtectorServer primary = fx.server;
      try (ProtectorServer replica = ProtectorServer.start(replicaConfig)) {
        List<URI> both = List.of(primary.url(), replica.url());
        byte[] dek = "0123456789abcdef".getBytes(StandardCharsets.UTF_8);
        try (RemoteKeyService etl =
                fx.clientBuilder(primary.url(), fx.token("etl")).urls(both).build();
            RemoteKeyService alice =
                fx.clientBuilder(primary.url(), fx.token("alice")).urls(both).build();
            RemoteKeyService ops =
                fx.clientBuilder(primary.url(), fx.token("ops")).urls(both).build()) {
          String beforeFailure = etl.wrapKey(dek, "fin");
          assertThat(alice.unwrapKey(beforeFailure, "fin")).isEqualTo(dek);
          assertThat(alice.url().getRawAuthority()).isEqualTo(primary.url().getRawAuthority());

          primary.close();
          // the same key, served by the replica from the shared keystore
          String afterFailure = etl.wrapKey(dek, "fin");
          assertThat(alice.unwrapKey(afterFailure, "fin")).isEqualTo(dek);
          assertThat(alice.url().getRawAuthority()).isEqualTo(replica.url().getRawAuthority());
          // key administration on the replica reaches the shared keystore too
          assertThat(ops.rotateKey("fin").latestVersion()).isEqualTo(2);
          assertThat(etl.wrapKey(dek, "fin")).startsWith("vault:v2:");

          long primaryUnwraps = count(fx.auditFile, "alice", "unwrap");
          long replicaUnwraps = count(dir.resolve("audit/replica.log"), "alice", "unwrap");
          assertThat(primaryUnwraps).isEqualTo(1);
          assertThat(replicaUnwraps).isEqualTo(1);

          replica.close();
          assertThatThrownBy(() -> alice.unwrapKey(etl.wrapKey(dek, "fin"), "fin"))
              .isInstanceOf(KeyServiceUnavailableException.class)
              .hasMessageContaining(primary.url().getRawAuthority())
              .hasMessageContaining(replica.url().getRawAuthority())
              .hasMessageContaining("is unavailable (wrap key 'fin')");
        }
      }
    }
  }

  @Test
  void aUrlListedTwiceOrAnEmptyEntryIsRefused() {
    assertThatThrownBy(
            () -> RemoteKeyService.builder().url("https://a.example:8200,https://a.example:8200"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("a url is listed twice");
    assertThatThrownBy(() -> RemoteKeyService.builder().url("https://a.example:8200,"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("Empty key service url in 'https://a.example:8200,'");
  }

  private static long count(Path audit, String principal, String op) throws Exception {
    return Files.readAllLines(audit).stream()
        .filter(l -> l.contains("\"principal\":\"" + principal + "\""))
        .filter(l -> l.contains("\"op\":\"" + op + "\""))
        .filter(l -> l.contains("\"decision\":\"allow\""))
        .count();
  }
}
