/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.kms;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PassphraseTest {
  @TempDir Path dir;

  @Test
  void fromEnvTrimsOneTrailingNewline() {
    try (Passphrase p = Passphrase.fromEnv("IP_PASS", Map.of("IP_PASS", "s3cret \n"))) {
      assertThat(p.chars()).containsExactly('s', '3', 'c', 'r', 'e', 't', ' ');
    }
  }

  @Test
  void fromEnvRefusesMissingOrEmpty() {
    assertThatThrownBy(() -> Passphrase.fromEnv("IP_PASS", Map.of()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("IP_PASS")
        .hasMessageContaining("not set");
    assertThatThrownBy(() -> Passphrase.fromEnv("IP_PASS", Map.of("IP_PASS", "\n")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("IP_PASS")
        .hasMessageContaining("is empty");
  }

  @Test
  void fromRealEnvironment() {
    // PATH exists in every test environment.
    try (Passphrase p = Passphrase.fromEnv("PATH")) {
      assertThat(new String(p.chars())).isEqualTo(System.getenv("PATH"));
    }
  }

  @Test
  void fromFileTrimsCrLfAndReadsUtf8() throws Exception {
    Path f = dir.resolve("pass");
    Files.write(f, "pässwörd\r\n".getBytes(StandardCharsets.UTF_8));
    try (Passphrase p = Passphrase.fromFile(f)) {
      assertThat(new String(p.chars())).isEqualTo("pässwörd");
    }
  }

  @Test
  void fromFileRefusesMissingOrEmpty() throws Exception {
    Path missing = dir.resolve("nope");
    assertThatThrownBy(() -> Passphrase.fromFile(missing))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(missing.toString())
        .hasMessageContaining("does not exist");
    Path empty = Files.writeString(dir.resolve("empty"), "\n");
    assertThatThrownBy(() -> Passphrase.fromFile(empty))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(empty + " is empty");
  }

  @Test
  void closeWipesAndChars() {
    char[] source = "abc".toCharArray();
    Passphrase p = Passphrase.of(source);
    source[0] = 'x'; // the passphrase kept its own copy
    assertThat(p.chars()).containsExactly('a', 'b', 'c');
    assertThat(p.toString()).doesNotContain("abc");
    p.close();
    assertThatThrownBy(p::chars)
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("Passphrase was closed");
  }
}
