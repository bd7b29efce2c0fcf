/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.spark.flow;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.icebergprotector.kms.KmsSettings;
import io.icebergprotector.kms.SecretRef;
import io.icebergprotector.policy.Policy;
import io.icebergprotector.policy.Principal;
import io.icebergprotector.spark.core.ProtectorException;
import java.io.IOException;
import java.net.ServerSocket;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Which gate decides for a source, by its key service. */
class DeclassificationGateTest {
  private static final Policy POLICY =
      Policy.parse(
          "protector { roles { admin { users = [alice] } }, keys { pii {}, footer {} },"
              + " tables { \"db.people\" { footer-key = footer, declassify = [admin],"
              + " columns { ssn { key = pii, clear = [admin] } } } } }",
          "test policy");

  private static Declassification request(KmsSettings kms) {
    FlowSource source =
        new FlowSource(
            "table",
            "prot.db.people",
            POLICY.table("db.people").orElseThrow(),
            POLICY,
            Principal.of("alice", List.of()),
            kms);
    return new Declassification(
        "req-1", source.principal(), source, List.of("ssn"), "path /tmp/out");
  }

  @Test
  void localKeystoreOnlyLogs() {
    KmsSettings local =
        KmsSettings.builder(KmsSettings.Type.LOCAL)
            .keystore("/k.p12")
            .passphrase(SecretRef.ofFile("/p"))
            .build();
    assertThat(DeclassificationGate.forKeyService(local))
        .isInstanceOf(DeclassificationGate.Logged.class);
  }

  @Test
  void aKeyServerThatCannotBeAskedFailsTheWrite() throws IOException {
    int closedPort;
    try (ServerSocket socket = new ServerSocket(0)) {
      closedPort = socket.getLocalPort();
    }
    KmsSettings remote =
        KmsSettings.builder(KmsSettings.Type.REMOTE)
            .url("http://127.0.0.1:" + closedPort)
            .token(SecretRef.ofValue("token"))
            .allowInsecureHttp(true)
            .build();
    assertThat(DeclassificationGate.forKeyService(remote))
        .isInstanceOf(DeclassificationGate.ServerAuthorized.class);
    assertThatThrownBy(() -> DeclassificationGate.forKeyService(remote).authorize(request(remote)))
        .isInstanceOf(ProtectorException.class)
        .hasMessageContaining("the key server at http://127.0.0.1:" + closedPort)
        .hasMessageContaining("must authorize and audit it, and could not")
        .hasMessageContaining(
            "principal alice declassifies column(s) [ssn] of table prot.db.people"
                + " (policy entry db.people) into path /tmp/out (request req-1)");
  }
}
