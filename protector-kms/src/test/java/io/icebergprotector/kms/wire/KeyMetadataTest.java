/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.kms.wire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.icebergprotector.kms.KeyInfo;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The key metadata the server writes is the key the client reads back, through real JSON. */
class KeyMetadataTest {
  private static KeyInfo roundTrip(KeyInfo info) {
    String json = JsonCodec.write(Envelope.data(KeyMetadata.of(info)));
    Map<String, Object> data = JsonCodec.object(JsonCodec.parseObject(json), Envelope.DATA);
    return KeyMetadata.read("other-name", data);
  }

  @Test
  void serverMetadataReadsBackAsTheSameKey() {
    KeyInfo rotated =
        new KeyInfo(
            "pii", 11, List.of(2, 10, 11, 3), Instant.ofEpochSecond(1_700_000_000), false, 3);
    assertThat(roundTrip(rotated))
        .isEqualTo(
            new KeyInfo(
                "pii", 11, List.of(2, 3, 10, 11), Instant.ofEpochSecond(1_700_000_000), false, 3));
    KeyInfo destroyed = new KeyInfo("old", 1, List.of(1), Instant.ofEpochSecond(5), true);
    assertThat(roundTrip(destroyed)).isEqualTo(destroyed);
  }

  @Test
  void versionsAreWrittenInNumericOrderInVaultsShape() {
    KeyInfo info = new KeyInfo("k", 10, List.of(10, 9, 2), Instant.ofEpochSecond(7), false);
    assertThat(JsonCodec.write(KeyMetadata.of(info)))
        .startsWith(
            "{\"name\":\"k\",\"type\":\"aes256-gcm96\",\"latest_version\":10,"
                + "\"min_decryption_version\":1,\"min_encryption_version\":0,"
                + "\"keys\":{\"2\":7,\"9\":7,\"10\":7},")
        .endsWith("\"destroyed\":false}");
  }

  @Test
  void vaultAnswersWithoutNameOrVersionsReadAsTheAskedKey() {
    KeyInfo info = KeyMetadata.read("asked", JsonCodec.parseObject("{}"));
    assertThat(info).isEqualTo(new KeyInfo("asked", 0, List.of(), Instant.EPOCH, false, 1));
    assertThatThrownBy(
            () -> KeyMetadata.read("k", JsonCodec.parseObject("{\"latest_version\":\"x\"}")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("latest_version");
  }
}
