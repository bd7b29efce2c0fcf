/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.kms.token;

import static io.icebergprotector.policy.Preconditions.checkState;

import io.icebergprotector.policy.ProtectionMethod;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.bouncycastle.crypto.fpe.FPEEngine;
import org.bouncycastle.crypto.fpe.FPEFF1Engine;
import org.bouncycastle.crypto.params.FPEParameters;
import org.bouncycastle.crypto.params.KeyParameter;

/**
 * Format-preserving tokens: BouncyCastle's FF1 engine (NIST SP 800-38G) with an AES-256 key and the
 * domain as tweak, its AES calls made through the JDK ({@link JceAesBlockCipher}). Strings: the
 * characters of the alphabet are enciphered as one numeral string and every kept character stays
 * where it is; a character outside both is refused. Integers: the magnitude's {@code width} decimal
 * digits are enciphered, the sign is kept.
 */
final class Ff1Tokenizer implements Tokenizer {
  private static final long[] POW10 = new long[19];

  static {
    POW10[0] = 1;
    for (int i = 1; i < POW10.length; i++) {
      POW10[i] = POW10[i - 1] * 10;
    }
  }

  private final String domain;
  private final int version;
  private final ProtectionMethod method;
  private final ProtectionMethod.Alphabet alphabet;
  private final String keep;
  private final int[] numeralOf = new int[128];
  private FPEEngine encrypt;
  private FPEEngine decrypt;

  Ff1Tokenizer(TokenKey key, ProtectionMethod method) {
    this.domain = key.domain();
    this.version = key.version();
    this.method = method;
    this.alphabet = method.alphabet();
    this.keep = method.keep();
    Arrays.fill(numeralOf, -1);
    String chars = alphabet.chars();
    for (int i = 0; i < chars.length(); i++) {
      numeralOf[chars.charAt(i)] = i;
    }
    byte[] tweak = domain.getBytes(StandardCharsets.UTF_8);
    this.encrypt = engine(true, key, tweak);
    this.decrypt = engine(false, key, tweak);
  }

  private FPEEngine engine(boolean forEncryption, TokenKey key, byte[] tweak) {
    KeyParameter kp = new KeyParameter(key.bytes());
    FPEEngine e = new FPEFF1Engine(new JceAesBlockCipher());
    e.init(forEncryption, new FPEParameters(kp, alphabet.radix(), tweak));
    // The AES key schedule is set up; the parameter's own copy of the key is no longer needed.
    Arrays.fill(kp.getKey(), (byte) 0);
    return e;
  }

  @Override
  public String domain() {
    return domain;
  }

  @Override
  public int version() {
    return version;
  }

  @Override
  public String protect(String value) {
    return value == null ? null : transform(value, true);
  }

  @Override
  public String unprotect(String token) {
    return token == null ? null : transform(token, false);
  }

  private String transform(String in, boolean forward) {
    if (method.numeric()) {
      throw new TokenException(
          "Cannot " + verb(forward) + " a string with an integer fpe method: domain " + domain);
    }
    int n = in.length();
    byte[] numerals = new byte[n];
    int count = 0;
    for (int i = 0; i < n; i++) {
      char c = in.charAt(i);
      int d = c < 128 ? numeralOf[c] : -1;
      if (d >= 0) {
        numerals[count++] = (byte) d;
      } else if (keep.indexOf(c) < 0) {
        throw new TokenException(
            "Cannot "
                + verb(forward)
                + " a value of token domain "
                + domain
                + ": it holds a character (position "
                + (i + 1)
                + ") that is neither in alphabet "
                + alphabet.spec()
                + " nor kept ("
                + (keep.isEmpty() ? "none" : keep)
                + ")");
      }
    }
    if (count < method.minLength()) {
      throw new TokenException(
          "Cannot "
              + verb(forward)
              + " a value of token domain "
              + domain
              + ": it has "
              + count
              + " characters of alphabet "
              + alphabet.spec()
              + ", fewer than min-length "
              + method.minLength());
    }
    byte[] out = new byte[count];
    engine(forward).processBlock(numerals, 0, count, out, 0);
    char[] chars = in.toCharArray();
    String alpha = alphabet.chars();
    int j = 0;
    for (int i = 0; i < n; i++) {
      char c = chars[i];
      if (c < 128 && numeralOf[c] >= 0) {
        chars[i] = alpha.charAt(out[j++]);
      }
    }
    return new String(chars);
  }

  @Override
  public long protect(long value) {
    return transform(value, true);
  }

  @Override
  public long unprotect(long token) {
    return transform(token, false);
  }

  private long transform(long v, boolean forward) {
    int width = method.width();
    if (!method.numeric()) {
      throw new TokenException(
          "Cannot " + verb(forward) + " an integer with a string fpe method: domain " + domain);
    }
    if (v == Long.MIN_VALUE || Math.abs(v) >= POW10[width]) {
      throw new TokenException(
          "Cannot "
              + verb(forward)
              + " a value of token domain "
              + domain
              + ": its magnitude has more than width = "
              + width
              + " decimal digits");
    }
    long m = Math.abs(v);
    byte[] digits = new byte[width];
    for (int i = width - 1; i >= 0; i--) {
      digits[i] = (byte) (m % 10);
      m /= 10;
    }
    byte[] out = new byte[width];
    engine(forward).processBlock(digits, 0, width, out, 0);
    long r = 0;
    for (int i = 0; i < width; i++) {
      r = r * 10 + out[i];
    }
    return v < 0 ? -r : r;
  }

  @Override
  public byte[] protect(byte[] value) {
    throw new TokenException("Cannot tokenize binary values with fpe: domain " + domain);
  }

  @Override
  public byte[] unprotect(byte[] token) {
    throw new TokenException("Cannot detokenize binary values with fpe: domain " + domain);
  }

  private FPEEngine engine(boolean forward) {
    FPEEngine e = forward ? encrypt : decrypt;
    checkState(e != null, "Cannot use a closed tokenizer of domain %s", domain);
    return e;
  }

  private static String verb(boolean forward) {
    return forward ? "tokenize" : "detokenize";
  }

  /** Drops the engines (their AES key schedules go with them). */
  @Override
  public void close() {
    encrypt = null;
    decrypt = null;
  }
}
