/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.policy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatNoException;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class PreconditionsTest {

  @Test
  void passingChecksNeitherThrowNorFormat() {
    Object explodes =
        new Object() {
          @Override
          public String toString() {
            throw new AssertionError("formatted although the check passed");
          }
        };
    assertThatNoException()
        .isThrownBy(
            () -> {
              Preconditions.checkArgument(true, "Cannot x: %s", explodes);
              Preconditions.checkArgument(true, "Cannot x: %s %s", explodes, explodes);
              Preconditions.checkArgument(true, "Cannot x: %s %s %s", explodes, explodes, 1);
              Preconditions.checkArgument(true, "Cannot x: %s", explodes, explodes, 1, 2);
              Preconditions.checkState(true, "Cannot x: %s", explodes);
              Preconditions.checkState(true, "Cannot x: %s %s", explodes, explodes);
              Preconditions.checkState(true, "Cannot x: %s", explodes, 1, 2);
            });
    assertThat(Preconditions.checkNotNull("v", "Cannot x: %s", explodes)).isEqualTo("v");
  }

  @Test
  void checkArgumentFormatsItsTemplateOnFailure() {
    assertThatThrownBy(
            () -> Preconditions.checkArgument(false, "Cannot read %s: line %s", "a.conf", 3))
        .isExactlyInstanceOf(IllegalArgumentException.class)
        .hasMessage("Cannot read a.conf: line 3");
    assertThatThrownBy(() -> Preconditions.checkArgument(false, "Cannot read: %s", (Object) null))
        .isExactlyInstanceOf(IllegalArgumentException.class)
        .hasMessage("Cannot read: null");
    assertThatThrownBy(() -> Preconditions.checkArgument(false, "Cannot read a.conf"))
        .isExactlyInstanceOf(IllegalArgumentException.class)
        .hasMessage("Cannot read a.conf");
    assertThatThrownBy(
            () -> Preconditions.checkArgument(false, "Cannot %s %s: %s %s", "read", "a", "b", "c"))
        .hasMessage("Cannot read a: b c");
  }

  @Test
  void checkStateThrowsIllegalState() {
    assertThatThrownBy(() -> Preconditions.checkState(false, "Cannot commit %s: closed", "t1"))
        .isExactlyInstanceOf(IllegalStateException.class)
        .hasMessage("Cannot commit t1: closed");
    assertThatThrownBy(() -> Preconditions.checkState(false, "Cannot commit: closed"))
        .isExactlyInstanceOf(IllegalStateException.class)
        .hasMessage("Cannot commit: closed");
    assertThatThrownBy(() -> Preconditions.checkState(false, "Cannot %s %s", "commit", "t1"))
        .hasMessage("Cannot commit t1");
    assertThatThrownBy(() -> Preconditions.checkState(false, "Cannot %s", "a", "b", "c"))
        .hasMessage("Cannot a [b, c]");
  }

  @Test
  void checkNotNullThrowsNullPointer() {
    assertThatThrownBy(() -> Preconditions.checkNotNull(null, "Cannot load %s: no key", "t1"))
        .isExactlyInstanceOf(NullPointerException.class)
        .hasMessage("Cannot load t1: no key");
  }

  @Test
  void mismatchedTemplatesStillYieldAMessage() {
    assertThat(Preconditions.format("Cannot a: %s", "x", "y", 3)).isEqualTo("Cannot a: x [y, 3]");
    assertThat(Preconditions.format("Cannot a: %s, %s", "x")).isEqualTo("Cannot a: x, %s");
    assertThat(Preconditions.format("Cannot a: 100%", "x")).isEqualTo("Cannot a: 100% [x]");
    assertThat(Preconditions.format(null, "x")).isEqualTo("null [x]");
    assertThat(Preconditions.format("Cannot a: %s", (Object[]) null)).isEqualTo("Cannot a: null");
  }
}
