/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.kms.token;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.icebergprotector.policy.ProtectionMethod;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

class TokenizerTest {
  private static final byte[] MATERIAL = new byte[32];

  static {
    Arrays.fill(MATERIAL, (byte) 7);
  }

  private static Tokenizer tokenizer(String spec, String domain, int version) {
    ProtectionMethod m = ProtectionMethod.parse(spec);
    try (TokenKey key = TokenKey.derive(MATERIAL, "pii", version, domain, m.kind())) {
      return Tokenizer.of(key, m);
    }
  }

  @Test
  void deterministicTokensArePrintableEqualForEqualValuesAndVerify() {
    Tokenizer t = tokenizer("deterministic", "email", 1);
    String a = t.protect("grace.canary@example.com");
    assertThat(a).matches("[A-Za-z0-9_-]+").doesNotContain("grace");
    assertThat(t.protect("grace.canary@example.com")).isEqualTo(a);
    assertThat(t.protect("grace.canary@example.org")).isNotEqualTo(a);
    assertThat(t.unprotect(a)).isEqualTo("grace.canary@example.com");
    assertThat(t.protect((String) null)).isNull();
    byte[] bin = t.protect("x".getBytes(StandardCharsets.UTF_8));
    assertThat(new String(t.unprotect(bin), StandardCharsets.UTF_8)).isEqualTo("x");

    Tokenizer otherDomain = tokenizer("deterministic", "email2", 1);
    assertThat(otherDomain.protect("grace.canary@example.com")).isNotEqualTo(a);
    Tokenizer otherVersion = tokenizer("deterministic", "email", 2);
    assertThat(otherVersion.protect("grace.canary@example.com")).isNotEqualTo(a);
    assertThatThrownBy(() -> otherVersion.unprotect(a))
        .isInstanceOf(TokenException.class)
        .hasMessageContaining("token domain email")
        .hasMessageContaining("does not verify")
        .hasMessageNotContaining("grace");
    char[] c = a.toCharArray();
    c[c.length - 1] = c[c.length - 1] == 'A' ? 'B' : 'A';
    assertThatThrownBy(() -> t.unprotect(new String(c)))
        .isInstanceOf(TokenException.class)
        .hasMessageContaining("does not verify");
    assertThatThrownBy(() -> t.unprotect("not base64!"))
        .isInstanceOf(TokenException.class)
        .hasMessageContaining("not base64url");
  }

  @Test
  void fpeKeepsFormatAndSeparators() {
    Tokenizer t = tokenizer("fpe(alphabet = digits, keep = \"-\")", "ssn", 1);
    String token = t.protect("123-45-6789");
    assertThat(token).matches("\\d{3}-\\d{2}-\\d{4}").isNotEqualTo("123-45-6789");
    assertThat(t.protect("123-45-6789")).isEqualTo(token);
    assertThat(t.unprotect(token)).isEqualTo("123-45-6789");

    Tokenizer alnum = tokenizer("fpe(alphabet = alnum, keep = \"@.\")", "mail", 1);
    String mail = alnum.protect("Grace.Canary@example.com");
    assertThat(mail)
        .hasSize(24)
        .matches("[A-Za-z0-9]{5}\\.[A-Za-z0-9]{6}@[A-Za-z0-9]{7}\\.[A-Za-z0-9]{3}");
    assertThat(alnum.unprotect(mail)).isEqualTo("Grace.Canary@example.com");
  }

  @Test
  void fpeRefusesValuesOutsideItsFormatWithoutNamingThem() {
    Tokenizer t = tokenizer("fpe(alphabet = digits, keep = \"-\")", "ssn", 1);
    assertThatThrownBy(() -> t.protect("123-45-678x"))
        .isInstanceOf(TokenException.class)
        .hasMessageContaining("token domain ssn")
        .hasMessageContaining("position 11")
        .hasMessageContaining("neither in alphabet digits nor kept (-)")
        .hasMessageNotContaining("123");
    assertThatThrownBy(() -> t.protect("12-345"))
        .isInstanceOf(TokenException.class)
        .hasMessageContaining("it has 5 characters of alphabet digits, fewer than min-length 6");
  }

  @Test
  void integerFpeKeepsWidthAndSign() {
    Tokenizer t = tokenizer("fpe(width = 9)", "account", 1);
    long token = t.protect(123_456_789L);
    assertThat(token).isBetween(0L, 999_999_999L).isNotEqualTo(123_456_789L);
    assertThat(t.unprotect(token)).isEqualTo(123_456_789L);
    assertThat(t.protect(-42L)).isNegative();
    assertThat(t.unprotect(t.protect(-42L))).isEqualTo(-42L);
    assertThatThrownBy(() -> t.protect(1_000_000_000L))
        .isInstanceOf(TokenException.class)
        .hasMessageContaining("more than width = 9 decimal digits");
    assertThatThrownBy(() -> t.protect("123456"))
        .isInstanceOf(TokenException.class)
        .hasMessageContaining("string with an integer fpe method");
  }

  @Test
  void derivationSeparatesVersionsDomainsMethodsAndKeys() {
    byte[] a = bytes(TokenKey.derive(MATERIAL, "pii", 1, "ssn", ProtectionMethod.Kind.FPE));
    assertThat(a).hasSize(32);
    assertThat(bytes(TokenKey.derive(MATERIAL, "pii", 1, "ssn", ProtectionMethod.Kind.FPE)))
        .isEqualTo(a);
    assertThat(bytes(TokenKey.derive(MATERIAL, "pii", 2, "ssn", ProtectionMethod.Kind.FPE)))
        .isNotEqualTo(a);
    assertThat(bytes(TokenKey.derive(MATERIAL, "pii", 1, "ssn2", ProtectionMethod.Kind.FPE)))
        .isNotEqualTo(a);
    assertThat(bytes(TokenKey.derive(MATERIAL, "fin", 1, "ssn", ProtectionMethod.Kind.FPE)))
        .isNotEqualTo(a);
    byte[] siv =
        bytes(TokenKey.derive(MATERIAL, "pii", 1, "ssn", ProtectionMethod.Kind.DETERMINISTIC));
    assertThat(siv).hasSize(64);
    assertThat(Arrays.copyOf(siv, 32)).isNotEqualTo(a);
    assertThatThrownBy(() -> TokenKey.derive(MATERIAL, "pii", 1, "ssn", ProtectionMethod.Kind.PME))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("Cannot derive a token key for method pme: ssn");
    assertThat(TokenKey.derive(MATERIAL, "pii", 3, "ssn", ProtectionMethod.Kind.FPE).toString())
        .isEqualTo("TokenKey(pii v3, FPE, domain ssn)");
  }

  private static byte[] bytes(TokenKey k) {
    return k.bytes().clone();
  }
}
