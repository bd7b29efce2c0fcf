/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.spark.crypto;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.icebergprotector.kms.KeyServices;
import io.icebergprotector.kms.KmsOptions;
import io.icebergprotector.kms.KmsSettings;
import io.icebergprotector.kms.SecretRef;
import io.icebergprotector.kms.remote.RemoteKeyService;
import io.icebergprotector.spark.core.ProtectorContext;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The catalog option protector.kms.allow-insecure-http reaches the remote client. */
class RemoteKeyServicesTest {
  private static final String TOKEN = "ipt_remote-key-services-test-token";

  @Test
  void plainHttpToAnotherHostNeedsTheOption() {
    Map<String, String> options =
        Map.of(
            KmsOptions.TYPE.key(), "remote",
            KmsOptions.URL.key(), "http://keys.example.com:8200",
            KmsOptions.TOKEN.key(), TOKEN);
    // refused before any connection is tried
    assertThatThrownBy(() -> ProtectorContext.fromOptions("prod", options))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(
            "Refusing plain http:// to key service at http://keys.example.com:8200")
        .hasMessageContaining("protector.kms.allow-insecure-http")
        .hasMessageNotContaining(TOKEN);

    KmsSettings allowed =
        KmsSettings.builder(KmsSettings.Type.REMOTE)
            .url("http://keys.example.com:8200")
            .token(SecretRef.ofValue(TOKEN))
            .allowInsecureHttp(true)
            .build();
    try (RemoteKeyService client = KeyServices.openRemote(allowed)) {
      assertThat(client.url().toString()).isEqualTo("http://keys.example.com:8200/");
    }
  }
}
