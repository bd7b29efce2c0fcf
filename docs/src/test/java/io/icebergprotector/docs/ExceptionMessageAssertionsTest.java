/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.docs;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Every exception assertion in the repository's tests checks a message, not only a type (see
 * CONTRIBUTING.md, "Errors"): a type alone passes for the wrong cause as well.
 */
class ExceptionMessageAssertionsTest {

  @Test
  void everyExceptionAssertionChecksAMessage() throws IOException {
    assertThat(ExceptionMessageAssertions.testSources(ReferencePagesTest.ROOT))
        .as("test sources found below %s", ReferencePagesTest.ROOT)
        .hasSizeGreaterThan(100);
    assertThat(ExceptionMessageAssertions.unchecked(ReferencePagesTest.ROOT))
        .as(
            "exception assertions that check no message; assert a fragment of the message that"
                + " names the cause (hasMessageContaining, withMessageContaining, ...)")
        .isEmpty();
  }

  @Test
  void aTypeAloneIsReported() {
    assertThat(
            check(
                """
                assertThatThrownBy(() -> parse("x"))
                    .isInstanceOf(IllegalArgumentException.class);
                assertThatExceptionOfType(IllegalStateException.class).isThrownBy(() -> run());
                assertThatIllegalArgumentException().isThrownBy(() -> run());
                assertThrows(IllegalArgumentException.class, () -> run());
                Exception e = assertThrows(IllegalArgumentException.class, () -> run());
                assertThat(e).isInstanceOf(IllegalArgumentException.class);
                """))
        .containsExactly(
            "T.java:4: assertThatThrownBy(...) checks no message",
            "T.java:6: assertThatExceptionOfType(...) checks no message",
            "T.java:7: assertThatIllegalArgumentException(...) checks no message",
            "T.java:8: assertThrows(...) checks no message",
            "T.java:9: assertThrows(...) checks no message");
  }

  @Test
  void aMessageCheckAnywhereInTheChainPasses() {
    assertThat(
            check(
                """
                assertThatThrownBy(() -> parse("x"))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("Cannot parse");
                assertThatThrownBy(() -> parse("x")).hasMessage("Cannot parse x");
                assertThatThrownBy(() -> parse("x")).hasRootCauseMessage("bad");
                assertThatThrownBy(() -> parse("x")).hasStackTraceContaining("bad");
                assertThatThrownBy(() -> parse("x")).message().contains("bad");
                assertThatThrownBy(() -> parse("x"))
                    .satisfies(e -> assertThat(e.getMessage()).contains("bad"));
                assertThatThrownBy(() -> parse("x"))
                    .extracting(Throwable::getMessage).asString().contains("bad");
                assertThatThrownBy(() -> parse("x")).extracting("message").isEqualTo("bad");
                assertThatExceptionOfType(IllegalStateException.class)
                    .isThrownBy(() -> run())
                    .withMessageContaining("closed");
                assertThatIllegalArgumentException().isThrownBy(() -> run()).withMessage("x");
                Exception e = assertThrows(IllegalArgumentException.class, () -> run());
                assertThat(e.getMessage()).contains("bad");
                assertThat(assertThrows(IllegalStateException.class, () -> run()))
                    .hasMessageContaining("closed");
                assertThat(assertThrows(IllegalStateException.class, () -> run()).getMessage())
                    .contains("closed");
                """))
        .isEmpty();
  }

  @Test
  void aMessageReadInsideTheThrowingLambdaDoesNotCount() {
    assertThat(
            check(
                """
                assertThatThrownBy(() -> fail(other.getMessage()))
                    .isInstanceOf(IllegalStateException.class);
                """))
        .containsExactly("T.java:4: assertThatThrownBy(...) checks no message");
  }

  /** Checks {@code body} as a method's statements; its first line is line 4 of the file. */
  private static List<String> check(String body) {
    String source = "class T {\n\n  void t() {\n" + body.indent(4) + "  }\n}\n";
    return ExceptionMessageAssertions.unchecked(source, "T.java");
  }
}
