/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.spark.logs;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class SensitiveLiteralsTest {
  @Test
  void redactsWholeTokensOnly() {
    SensitiveLiterals literals = new SensitiveLiterals(100);
    literals.register(List.of("42", "SSN-123"));
    assertThat(literals.redact("(ssn#420 = 42), ssn = 'SSN-123', x = SSN-1234, y = ASSN-123"))
        .isEqualTo("(ssn#420 = <redacted>), ssn = '<redacted>', x = SSN-1234, y = ASSN-123");
  }

  @Test
  void prefersTheLongestLiteralAtAPosition() {
    SensitiveLiterals literals = new SensitiveLiterals(100);
    literals.register(List.of("John", "John Smith"));
    assertThat(literals.redact("name IN (John Smith,John)"))
        .isEqualTo("name IN (<redacted>,<redacted>)");
  }

  @Test
  void literalsStartingWithPunctuationAreFound() {
    SensitiveLiterals literals = new SensitiveLiterals(100);
    literals.register(List.of("-17.5", "'quoted'"));
    assertThat(literals.redact("a > -17.5 AND b = 'quoted'"))
        .isEqualTo("a > <redacted> AND b = <redacted>");
  }

  @Test
  void leavesMessagesWithoutLiteralsUntouched() {
    SensitiveLiterals literals = new SensitiveLiterals(100);
    String message = "Pushing operators to prot.db.customers";
    assertThat(literals.redact(message)).isSameAs(message);
    literals.register(List.of("CANARY"));
    assertThat(literals.redact(message)).isSameAs(message);
    assertThat(literals.redact(null)).isNull();
  }

  @Test
  void keepsTheMostRecentlyRegisteredLiterals() {
    SensitiveLiterals literals = new SensitiveLiterals(2);
    literals.register(List.of("first", "second"));
    literals.register(List.of("third"));
    assertThat(literals.redact("first second third")).isEqualTo("first <redacted> <redacted>");
  }
}
