package io.icebergprotector.kms;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SecretRefTest {
  private static final byte[] KEY = "a key of thirty-two bytes, ok!!!".getBytes(StandardCharsets.UTF_8);
  private static final byte[] OTHER_KEY = "another key of thirty-two bytes.".getBytes(StandardCharsets.UTF_8);

  @TempDir Path dir;

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
