/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.kms.token;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.icebergprotector.policy.ProtectionMethod;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import org.bouncycastle.crypto.fpe.FPEFF1Engine;
import org.bouncycastle.crypto.params.FPEParameters;
import org.bouncycastle.crypto.params.KeyParameter;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The NIST SP 800-38G FF1 sample vectors (FF1samples.pdf, samples 1-9) against BouncyCastle's FF1
 * engine (with its own AES and with the JDK's), and those with an AES-256 key and radix 10 through
 * our {@link Ff1Tokenizer}.
 */
class TokenVectorsTest {
  private static final HexFormat HEX = HexFormat.of();
  private static final String K128 = "2b7e151628aed2a6abf7158809cf4f3c";
  private static final String K192 = "2b7e151628aed2a6abf7158809cf4f3cef4359d8d580aa4f";
  private static final String K256 =
      "2b7e151628aed2a6abf7158809cf4f3cef4359d8d580aa4f7f036d6f04fc6a94";
  private static final String RADIX36 = "0123456789abcdefghijklmnopqrstuvwxyz";

  @ParameterizedTest(name = "FF1 sample {0}")
  @CsvSource({
    "1, " + K128 + ", 10, '', 0123456789, 2433477484",
    "2, " + K128 + ", 10, 39383736353433323130, 0123456789, 6124200773",
    "3, " + K128 + ", 36, 3737373770717273373737, 0123456789abcdefghi, a9tv40mll9kdu509eum",
    "4, " + K192 + ", 10, '', 0123456789, 2830668132",
    "5, " + K192 + ", 10, 39383736353433323130, 0123456789, 2496655549",
    "6, " + K192 + ", 36, 3737373770717273373737, 0123456789abcdefghi, xbj3kv35jrawxv32ysr",
    "7, " + K256 + ", 10, '', 0123456789, 6657667009",
    "8, " + K256 + ", 10, 39383736353433323130, 0123456789, 1001623463",
    "9, " + K256 + ", 36, 3737373770717273373737, 0123456789abcdefghi, xs8a0azh2avyalyzuwd"
  })
  void nistSamplesOnTheEngine(
      int sample, String key, int radix, String tweak, String plain, String cipher) {
    // BouncyCastle's own AES and the JDK's AES that the tokenizer gives the engine
    for (boolean jce : new boolean[] {false, true}) {
      byte[] pt = numerals(plain);
      byte[] ct = new byte[pt.length];
      FPEFF1Engine enc = jce ? new FPEFF1Engine(new JceAesBlockCipher()) : new FPEFF1Engine();
      enc.init(true, new FPEParameters(new KeyParameter(HEX.parseHex(key)), radix, hex(tweak)));
      enc.processBlock(pt, 0, pt.length, ct, 0);
      assertThat(text(ct)).as("sample " + sample + (jce ? " (JCE AES)" : "")).isEqualTo(cipher);
      FPEFF1Engine dec = jce ? new FPEFF1Engine(new JceAesBlockCipher()) : new FPEFF1Engine();
      dec.init(false, new FPEParameters(new KeyParameter(HEX.parseHex(key)), radix, hex(tweak)));
      byte[] back = new byte[ct.length];
      dec.processBlock(ct, 0, ct.length, back, 0);
      assertThat(text(back)).isEqualTo(plain);
    }
  }

  @ParameterizedTest(name = "FF1 sample {0} through the tokenizer")
  @CsvSource({
    "7, '', 0123456789, 6657667009",
    "8, 9876543210, 0123456789, 1001623463",
    "8, 9876543210, 012-345-6789, 100-162-3463"
  })
  void nistSamplesThroughTheTokenizer(int sample, String tweak, String plain, String cipher) {
    ProtectionMethod digits = ProtectionMethod.parse("fpe(alphabet = digits, keep = \"-\")");
    try (TokenKey key = TokenKey.of("k", 1, tweak, ProtectionMethod.Kind.FPE, HEX.parseHex(K256));
        Tokenizer t = Tokenizer.of(key, digits)) {
      assertThat(t.protect(plain)).as("sample " + sample).isEqualTo(cipher);
      assertThat(t.unprotect(cipher)).isEqualTo(plain);
    }
  }

  @ParameterizedTest(name = "FF1 sample {0} as an integer")
  @CsvSource({"7, '', 123456789, 6657667009", "8, 9876543210, -123456789, -1001623463"})
  void nistSamplesAsIntegers(int sample, String tweak, long plain, long cipher) {
    // 0123456789 as a width-10 integer is 123456789 with its leading zero
    try (TokenKey key = TokenKey.of("k", 1, tweak, ProtectionMethod.Kind.FPE, HEX.parseHex(K256));
        Tokenizer t = Tokenizer.of(key, ProtectionMethod.fpeNumeric(10))) {
      assertThat(t.protect(plain)).as("sample " + sample).isEqualTo(cipher);
      assertThat(t.unprotect(cipher)).isEqualTo(plain);
    }
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource({"no tweak, ''", "ascii tweak, 9876543210"})
  void closedKeysAndTokenizersRefuseWork(String name, String tweak) {
    TokenKey key = TokenKey.of("k", 1, tweak, ProtectionMethod.Kind.FPE, HEX.parseHex(K256));
    byte[] bytes = key.bytes();
    Tokenizer t = Tokenizer.of(key, ProtectionMethod.fpeNumeric(9));
    key.close();
    assertThat(bytes).containsOnly((byte) 0);
    assertThat(t.protect(42L)).isNotEqualTo(42L);
    t.close();
    assertThatThrownBy(() -> t.protect(42L))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("closed tokenizer of domain " + tweak);
    assertThatThrownBy(key::bytes)
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("closed token key");
  }

  private static byte[] hex(String s) {
    return s == null || s.isEmpty() ? new byte[0] : HEX.parseHex(s);
  }

  private static byte[] numerals(String s) {
    byte[] out = new byte[s.length()];
    for (int i = 0; i < s.length(); i++) {
      out[i] = (byte) RADIX36.indexOf(s.charAt(i));
    }
    return out;
  }

  private static String text(byte[] numerals) {
    StringBuilder sb = new StringBuilder();
    for (byte b : numerals) {
      sb.append(RADIX36.charAt(b));
    }
    return sb.toString();
  }

  static String utf8(byte[] b) {
    return new String(b, StandardCharsets.UTF_8);
  }
}
