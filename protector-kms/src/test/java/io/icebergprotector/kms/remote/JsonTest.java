package io.icebergprotector.kms.remote;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.math.BigDecimal;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class JsonTest {
  @Test
  void parsesVaultShapes() {
    Map<String, Object> m =
        Json.parseObject(
            " {\"data\":{\"ciphertext\":\"vault:v1:AAAA\",\"key_version\":1,\"keys\":{\"1\":1700000000},"
                + "\"ok\":true,\"none\":null,\"list\":[1,-2.5e3,\"x\"]}} ");
    Map<String, Object> data = Json.object(m, "data");
    assertThat(data)
        .containsEntry("ciphertext", "vault:v1:AAAA")
        .containsEntry("key_version", 1L)
        .containsEntry("ok", true)
        .containsEntry("none", null);
    assertThat(Json.object(data, "keys")).containsEntry("1", 1700000000L);
    assertThat(data.get("list")).isEqualTo(List.of(1L, new BigDecimal("-2.5e3"), "x"));
    assertThat(Json.integer(data, "key_version")).isEqualTo(1L);
  }

  @Test
  void stringEscapesRoundTrip() {
    String s = "quote\" backslash\\ nl\n tab\t ctl\u0001 ls\u2028 é 😀 /";
    String json = Json.write(Json.object("s", s));
    assertThat(json).doesNotContain("\n").contains("\\u0001").contains("\\u2028");
    assertThat(Json.parseObject(json)).containsEntry("s", s);
    assertThat(Json.parseObject("{\"s\":\"\\ud83d\\ude00\\/\"}")).containsEntry("s", "😀/");
  }

  @Test
  void writesCollections() {
    assertThat(Json.write(Json.object("a", List.of(1, "b", true), "n", null, "m", Map.of("k", 2L))))
        .isEqualTo("{\"a\":[1,\"b\",true],\"n\":null,\"m\":{\"k\":2}}");
    assertThatThrownBy(() -> Json.write(Double.NaN)).isInstanceOf(IllegalArgumentException.class);
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
    assertThatThrownBy(() -> Json.parse(text))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("invalid JSON");
  }

  @Test
  void boundsNestingAndNumbers() {
    assertThatThrownBy(() -> Json.parse("[".repeat(100_000))).hasMessageContaining("nesting");
    assertThatThrownBy(() -> Json.parse("1".repeat(100))).hasMessageContaining("number too long");
    assertThat(Json.parse("12345678901234567890"))
        .isEqualTo(new BigDecimal("12345678901234567890"));
    assertThatThrownBy(() -> Json.parseObject("[]")).hasMessageContaining("expected an object");
  }

  @Test
  void typedAccessorsNameTheField() {
    Map<String, Object> m = Json.parseObject("{\"s\":1,\"v\":\"x\",\"o\":[]}");
    assertThatThrownBy(() -> Json.string(m, "s")).hasMessage("field 's' must be a string");
    assertThatThrownBy(() -> Json.integer(m, "v")).hasMessage("field 'v' must be an integer");
    assertThatThrownBy(() -> Json.object(m, "o")).hasMessage("field 'o' must be an object");
    assertThat(Json.string(m, "missing")).isNull();
  }
}
