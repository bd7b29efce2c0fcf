/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.kms;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class WrappedKeyTest {

  @Test
  void formatAndParseRoundTrip() {
    byte[] blob = {1, 2, 3, 4, 5};
    String text = WrappedKey.format(7, blob);
    assertThat(text).isEqualTo("vault:v7:AQIDBAU=");
    WrappedKey parsed = WrappedKey.parse(text);
    assertThat(parsed.version()).isEqualTo(7);
    assertThat(parsed.blob()).containsExactly(blob);
    assertThat(parsed.toString()).isEqualTo(text);
    assertThat(parsed).isEqualTo(WrappedKey.of(7, blob));
  }

  @Test
  void blobIsDefensivelyCopied() {
    WrappedKey parsed = WrappedKey.parse("vault:v1:AQID");
    parsed.blob()[0] = 9;
    assertThat(parsed.blob()[0]).isEqualTo((byte) 1);
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        "AQID|expected prefix 'vault:v'",
        "vault:AQID|expected prefix 'vault:v'",
        "Vault:v1:AQID|expected prefix 'vault:v'",
        "vault:v1AQID|missing ':'",
        "vault:v:AQID|missing version",
        "vault:vx:AQID|positive integer",
        "vault:v-1:AQID|positive integer",
        "vault:v0:AQID|positive integer",
        "vault:v01:AQID|leading zeros",
        "vault:v99999999999:AQID|positive integer",
        "vault:v1:AQ*D|bad base64",
        "vault:v1:AQI|canonical padded form",
        "vault:v1:A Q I D|bad base64",
        "vault:v1:|empty payload",
      })
  void rejectsMalformedText(String text, String expected) {
    assertThatThrownBy(() -> WrappedKey.parse(text))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("Invalid wrapped key")
        .hasMessageContaining(expected);
  }

  @Test
  void rejectsNullAndBadArguments() {
    assertThatThrownBy(() -> WrappedKey.parse(null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("Invalid wrapped key: null");
    assertThatThrownBy(() -> WrappedKey.format(0, new byte[] {1}))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("0");
    assertThatThrownBy(() -> WrappedKey.format(1, new byte[0]))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("Invalid wrapped key blob: null or empty");
  }
}
