/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.kms;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The one way to choose and read a secret, and the one rule for token files. */
class SecretRefTest {
  private static final String TOKEN = "ipt_secret-ref-test-token-0123456789";

  @TempDir Path dir;

  @Test
  void tokenFileIsTheWholeFileTrimmedOnOneLine() throws Exception {
    Path file = dir.resolve("token");
    for (String content :
        new String[] {TOKEN, TOKEN + "\n", "  " + TOKEN + "\r\n", "\n" + TOKEN + "\n\n"}) {
      Files.writeString(file, content);
      assertThat(SecretRef.ofFile(file.toString()).read()).as(content).isEqualTo(TOKEN);
    }
  }

  @Test
  void tokenFileWithMoreThanOneLineIsRefusedNamingTheFile() throws Exception {
    // A first-line-only reader would take the first line; the rule refuses the file instead.
    Path file = Files.writeString(dir.resolve("token"), TOKEN + "\nsecond line\n");
    assertThatThrownBy(() -> SecretRef.ofFile(file.toString()).read())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("file " + file)
        .hasMessageContaining("more than one line")
        .hasMessageNotContaining(TOKEN);
  }

  @Test
  void emptyOrMissingSourcesNameTheirCause() throws Exception {
    Path empty = Files.writeString(dir.resolve("empty"), " \n");
    assertThatThrownBy(() -> SecretRef.ofFile(empty.toString()).read())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("file " + empty + " is empty");
    Path missing = dir.resolve("missing");
    assertThatThrownBy(() -> SecretRef.ofFile(missing.toString()).read())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("file " + missing + " does not exist");
    assertThatThrownBy(() -> SecretRef.ofEnv("IP_TOKEN").read(Map.<String, String>of()::get))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("environment variable IP_TOKEN is not set");
  }

  @Test
  void environmentVariablesFollowTheSameRule() {
    assertThat(SecretRef.ofEnv("IP_TOKEN").read(Map.of("IP_TOKEN", TOKEN + "\n")::get))
        .isEqualTo(TOKEN);
    assertThatThrownBy(
            () -> SecretRef.ofEnv("IP_TOKEN").read(Map.of("IP_TOKEN", TOKEN + "\nx")::get))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("environment variable IP_TOKEN holds more than one line")
        .hasMessageNotContaining(TOKEN);
    assertThatThrownBy(() -> SecretRef.ofEnv("IP_TOKEN").read(Map.of("IP_TOKEN", "  ")::get))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("environment variable IP_TOKEN is empty");
  }

  @Test
  void passphrasesKeepInnerAndTrailingSpaces() throws Exception {
    Path file = dir.resolve("passphrase");
    Files.write(file, "two words \n".getBytes(StandardCharsets.UTF_8));
    try (Passphrase p = SecretRef.ofFile(file.toString()).readPassphrase()) {
      assertThat(new String(p.chars())).isEqualTo("two words ");
    }
    Path missing = dir.resolve("missing");
    assertThatThrownBy(() -> SecretRef.ofFile(missing.toString()).readPassphrase())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("file " + missing + " does not exist");
  }

  @Test
  void chooseTakesAtMostOneSourceAndNamesTheOptions() {
    Map<String, String> both = Map.of("x.token-file", "/t", "x.token-env", "T");
    assertThatThrownBy(() -> SecretRef.choose(both, "x.token", "x.token-file", "x.token-env", null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("set only one of x.token-file, x.token-env");
    assertThat(
            SecretRef.choose(
                Map.of("x.token-env", "T"), "x.token", "x.token-file", "x.token-env", null))
        .isEqualTo(SecretRef.ofEnv("T"));
    assertThat(SecretRef.choose(Map.of(), "x.token", "x.token-file", "x.token-env", "DEFAULT"))
        .isEqualTo(SecretRef.ofEnv("DEFAULT"));
    assertThat(
            SecretRef.choose(
                Map.of("x.token-file", " "), null, "x.token-file", "x.token-env", null))
        .as("blank options count as unset")
        .isNull();
  }

  @Test
  void referencesNeverShowAnInlineSecret() throws Exception {
    SecretRef inline = SecretRef.ofValue(TOKEN);
    assertThat(inline.toString()).doesNotContain(TOKEN);
    assertThat(inline.describe()).isEqualTo("an inline value");
    assertThat(inline.fingerprint()).startsWith("value:").doesNotContain(TOKEN);
    assertThat(SecretRef.ofFile("/etc/token").describe()).isEqualTo("file /etc/token");
    assertThat(SecretRef.ofEnv("T").fingerprint()).isEqualTo("env:T");

    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
      out.writeObject(SecretRef.ofFile("/etc/token"));
    }
    try (ObjectInputStream in =
        new ObjectInputStream(new ByteArrayInputStream(bytes.toByteArray()))) {
      assertThat(in.readObject()).isEqualTo(SecretRef.ofFile("/etc/token"));
    }
  }

  private static final byte[] KEY =
      "a key of thirty-two bytes, ok!!!".getBytes(StandardCharsets.UTF_8);
  private static final byte[] OTHER_KEY =
      "another key of thirty-two bytes.".getBytes(StandardCharsets.UTF_8);

  @Test
  void keyedDigestDependsOnTheSecretAndTheKeyOnly() throws Exception {
    Path file = dir.resolve("token");
    Files.writeString(file, "  tok-123\n");
    SecretRef fromFile = SecretRef.ofFile(file.toString());
    String digest = fromFile.keyedDigest(KEY);

    assertThat(digest).matches("[0-9a-f]{64}").doesNotContain("tok-123");
    assertThat(SecretRef.ofValue("tok-123").keyedDigest(KEY))
        .as("the same secret, given inline")
        .isEqualTo(digest);
    assertThat(fromFile.keyedDigest(OTHER_KEY)).isNotEqualTo(digest);

    Files.writeString(file, "tok-124\n");
    assertThat(fromFile.keyedDigest(KEY)).as("same file, another secret").isNotEqualTo(digest);
  }

  @Test
  void keyedDigestOfAnUnreadableSecretFailsNamingTheSource() {
    Path missing = dir.resolve("missing-token");
    assertThatThrownBy(() -> SecretRef.ofFile(missing.toString()).keyedDigest(KEY))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("file " + missing + " does not exist");
    assertThatThrownBy(() -> SecretRef.ofEnv("PROTECTOR_TEST_UNSET_VARIABLE_42").keyedDigest(KEY))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("environment variable PROTECTOR_TEST_UNSET_VARIABLE_42 is not set");
  }
}
