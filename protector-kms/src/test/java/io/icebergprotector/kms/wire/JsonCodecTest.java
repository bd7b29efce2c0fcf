/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.kms.wire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.math.BigDecimal;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The strict Jackson configuration the client, server and audit log share. */
class JsonCodecTest {
  @Test
  void parsesVaultShapes() {
    Map<String, Object> m =
        JsonCodec.parseObject(
            " {\"data\":{\"ciphertext\":\"vault:v1:AAAA\",\"key_version\":1,\"keys\":{\"1\":1700000000},"
                + "\"ok\":true,\"none\":null,\"list\":[1,-2.5e3,\"x\"]}} ");
    Map<String, Object> data = JsonCodec.object(m, "data");
    assertThat(data)
        .containsEntry("ciphertext", "vault:v1:AAAA")
        .containsEntry("key_version", 1L)
        .containsEntry("ok", true)
        .containsEntry("none", null);
    assertThat(JsonCodec.object(data, "keys")).containsEntry("1", 1700000000L);
    assertThat(data.get("list")).isEqualTo(List.of(1L, new BigDecimal("-2.5e3"), "x"));
    assertThat(JsonCodec.integer(data, "key_version")).isEqualTo(1L);
  }

  @Test
  void stringEscapesRoundTrip() {
    String s = "quote\" backslash\\ nl\n tab\t ctl\u0001 ls\u2028 é 😀 /";
    String json = JsonCodec.write(JsonCodec.object("s", s));
    assertThat(json).doesNotContain("\n").contains("\\u0001");
    assertThat(JsonCodec.parseObject(json)).containsEntry("s", s);
    assertThat(JsonCodec.parseObject("{\"s\":\"\\ud83d\\ude00\\/\"}")).containsEntry("s", "😀/");
  }

  @Test
  void writesCollections() {
    assertThat(
            JsonCodec.write(
                JsonCodec.object("a", List.of(1, "b", true), "n", null, "m", Map.of("k", 2L))))
        .isEqualTo("{\"a\":[1,\"b\",true],\"n\":null,\"m\":{\"k\":2}}");
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "",
        " ",
        "{",
        "}",
        "{\"a\"}",
        "{\"a\":}",
        "{\"a\":1,}",
        "[1,]",
        "{'a':1}",
        "{\"a\":1}x",
        "{\"a\":01}",
        "{\"a\":1.}",
        "{\"a\":-}",
        "{\"a\":\"\\x\"}",
        "{\"a\":\"\\u12\"}",
        "{\"a\":\"unterminated}",
        "{\"a\":\"ctl\u0001\"}",
        "{\"a\":1,\"a\":2}",
        "tru",
        "nulls",
        "{a:1}"
      })
  void rejectsMalformed(String text) {
    assertThatThrownBy(() -> JsonCodec.parse(text))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("Invalid JSON");
  }

  @Test
  void boundsNestingAndNumbers() {
    assertThatThrownBy(() -> JsonCodec.parse("[".repeat(100_000))).hasMessageContaining("nesting");
    assertThatThrownBy(() -> JsonCodec.parse("1".repeat(100)))
        .hasMessageContaining("Number length (100) exceeds the maximum length (64)");
    assertThatThrownBy(() -> JsonCodec.parse("12345678901234567890"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("out of range of long");
    assertThatThrownBy(() -> JsonCodec.parseObject("[]"))
        .hasMessageContaining("expected an object");
  }

  @Test
  void typedAccessorsNameTheField() {
    Map<String, Object> m = JsonCodec.parseObject("{\"s\":1,\"v\":\"x\",\"o\":[]}");
    assertThatThrownBy(() -> JsonCodec.string(m, "s")).hasMessage("Field 's' must be a string");
    assertThatThrownBy(() -> JsonCodec.integer(m, "v")).hasMessage("Field 'v' must be an integer");
    assertThatThrownBy(() -> JsonCodec.object(m, "o")).hasMessage("Field 'o' must be an object");
    assertThat(JsonCodec.string(m, "missing")).isNull();
  }

  @Test
  void errorsNeverQuoteTheInput() {
    for (String text :
        new String[] {
          "{\"plaintext\":\"c2VjcmV0\",}", "{\"plaintext\":\"c2VjcmV0\"} c2VjcmV0", "[c2VjcmV0]"
        }) {
      assertThatThrownBy(() -> JsonCodec.parse(text))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageStartingWith("Invalid JSON")
          .hasMessageNotContaining("c2VjcmV0");
    }
  }
}
