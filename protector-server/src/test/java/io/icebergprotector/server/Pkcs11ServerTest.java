/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.icebergprotector.kms.KeyAccessDeniedException;
import io.icebergprotector.kms.KeyInfo;
import io.icebergprotector.kms.KeyService;
import io.icebergprotector.kms.TokenKeysUnsupportedException;
import io.icebergprotector.kms.pkcs11.SoftHsm;
import io.icebergprotector.kms.remote.RemoteKeyService;
import io.icebergprotector.kms.token.TokenMode;
import io.icebergprotector.kms.token.Tokenizer;
import io.icebergprotector.policy.ProtectionMethod;
import io.icebergprotector.server.config.ServerConfig;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The key server with its master keys in a PKCS#11 token (SoftHSM2): {@code keys.type = pkcs11}.
 * The server runs as its own JVM, whose environment names a private SoftHSM2 token directory.
 */
class Pkcs11ServerTest {
  @TempDir Path dir;

  @Test
  @Timeout(240)
  void serverServesKeysFromASoftHsmToken() throws Exception {
    SoftHsm hsm = SoftHsm.withToken(dir.resolve("hsm"), "protector");
    ServerFixture fx = ServerFixture.prepare(dir);
    Files.writeString(dir.resolve("hsm-pin"), SoftHsm.PIN + "\n");
    // No keystore at all: every key the server uses lives in the token.
    Files.writeString(
        fx.configFile,
        Files.readString(fx.configFile)
            + "\nprotector-server.keys {"
            + " keystore = null, passphrase-file = null, type = pkcs11,"
            + " pkcs11-library = \""
            + hsm.library()
            + "\", token-label = protector, pin-file = hsm-pin }\n");
    assertThat(ServerConfig.load(fx.configFile).keyService().endpoint())
        .isEqualTo("pkcs11:" + hsm.library() + "#token-label=protector");

    byte[] dek = "0123456789abcdef".getBytes(StandardCharsets.UTF_8);
    String wrapped;
    try (ServerProcess server = start(hsm, fx, "first");
        RemoteKeyService ops = fx.clientBuilder(server.url(), fx.token("ops")).build();
        RemoteKeyService etl = fx.clientBuilder(server.url(), fx.token("etl")).build();
        RemoteKeyService alice = fx.clientBuilder(server.url(), fx.token("alice")).build();
        RemoteKeyService carol = fx.clientBuilder(server.url(), fx.token("carol")).build()) {
      // The token starts empty; the key admin creates the policy's keys in it.
      assertThat(ops.listKeys()).isEmpty();
      for (String key : new String[] {"pii", "fin", "footer"}) {
        assertThat(ops.createKey(key).latestVersion()).isEqualTo(1);
      }
      wrapped = etl.wrapKey(dek, "pii");
      assertThat(alice.unwrapKey(wrapped, "pii")).isEqualTo(dek);
      assertThatThrownBy(() -> carol.unwrapKey(wrapped, "pii"))
          .isInstanceOf(KeyAccessDeniedException.class)
          .hasMessageContaining("principal 'carol' is not allowed to unwrap with key 'pii'");
      assertThatThrownBy(() -> etl.createKey("other"))
          .isInstanceOf(KeyAccessDeniedException.class)
          .hasMessageContaining("principal 'etl' is not allowed to create with key 'other'");
      assertThat(ops.rotateKey("pii").latestVersion()).isEqualTo(2);
      assertThat(etl.wrapKey(dek, "pii")).startsWith("vault:v2:");
    }

    // A second server process finds the keys in the token: they never lived in the first one's
    // memory.
    try (ServerProcess server = start(hsm, fx, "second");
        RemoteKeyService ops = fx.clientBuilder(server.url(), fx.token("ops")).build();
        RemoteKeyService alice = fx.clientBuilder(server.url(), fx.token("alice")).build()) {
      assertThat(ops.listKeys())
          .extracting(KeyInfo::id)
          .containsExactlyInAnyOrder("pii", "fin", "footer");
      assertThat(ops.describeKey("pii").versions()).containsExactly(1, 2);
      assertThat(alice.unwrapKey(wrapped, "pii")).isEqualTo(dek);
    }
    assertThat(fx.audit())
        .contains("\"principal\":\"carol\"", "\"decision\":\"deny\"")
        .contains("\"op\":\"rotate\"", "\"key\":\"pii\"");
  }

  @Test
  @Timeout(240)
  void tokenRequestsAreRefusedCleanlyWhenTheTokenKeepsItsKeys() throws Exception {
    SoftHsm hsm = SoftHsm.withToken(dir.resolve("hsm"), "protector");
    ServerFixture fx = ServerFixture.prepareWithPolicy(dir, TokenEndpointsTest.POLICY);
    Files.writeString(dir.resolve("hsm-pin"), SoftHsm.PIN + "\n");
    Files.writeString(
        fx.configFile,
        Files.readString(fx.configFile)
            + "\nprotector-server.keys {"
            + " keystore = null, passphrase-file = null, type = pkcs11,"
            + " pkcs11-library = \""
            + hsm.library()
            + "\", token-label = protector, pin-file = hsm-pin }\n");
    try (ServerProcess server = start(hsm, fx, "tokens");
        RemoteKeyService ops = fx.clientBuilder(server.url(), fx.token("ops")).build();
        RemoteKeyService alice = fx.clientBuilder(server.url(), fx.token("alice")).build();
        Tokenizer remote =
            alice.tokenizer(
                "pii",
                KeyService.LATEST_VERSION,
                "email",
                ProtectionMethod.deterministic(),
                TokenMode.SERVER)) {
      ops.createKey("pii");
      assertThatThrownBy(() -> remote.protect("a@example.com"))
          .isInstanceOf(TokenKeysUnsupportedException.class)
          .hasMessageContaining("encode values of token domain 'email' for key 'pii' refused")
          .hasMessageContaining("cannot derive token keys");
      assertThatThrownBy(
              () ->
                  alice.deriveTokenKey(
                      "pii",
                      KeyService.LATEST_VERSION,
                      "email",
                      ProtectionMethod.Kind.DETERMINISTIC))
          .isInstanceOf(TokenKeysUnsupportedException.class)
          .hasMessageContaining("keys.type = local");
    }
    assertThat(fx.audit()).contains("\"op\":\"encode\"", "\"status\":501");
  }

  private static ServerProcess start(SoftHsm hsm, ServerFixture fx, String name) throws Exception {
    ProcessBuilder pb = new ProcessBuilder(ServerProcess.command(fx.configFile));
    pb.environment().putAll(hsm.environment());
    return ServerProcess.start(pb, fx.dir.resolve(name + "-stderr.txt"));
  }
}
