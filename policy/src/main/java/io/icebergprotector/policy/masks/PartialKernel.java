/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.policy.masks;

import java.util.Arrays;

/**
 * The value kernel of {@code partial(keep_last=N)} on strings: every character but the last N
 * becomes {@code '*'}, so the masked value has as many characters as the value ({@code
 * "123-45-6789"} with N = 4 is {@code "*******6789"}). Characters are code points: an emoji counts
 * once, as do the 2 to 4 bytes of a UTF-8 sequence.
 */
public final class PartialKernel {
  private static final byte MASK = '*';

  /**
   * The length of the UTF-8 sequence a lead byte starts, as Spark's {@code UTF8String} counts
   * characters: a continuation or invalid byte alone counts as a character of one byte, so every
   * byte array has a character count and byte strings mask as Spark strings do.
   */
  private static final byte[] SEQUENCE_LENGTH = new byte[256];

  static {
    for (int b = 0; b < 256; b++) {
      SEQUENCE_LENGTH[b] = (byte) (b < 0xC2 ? 1 : b < 0xE0 ? 2 : b < 0xF0 ? 3 : b < 0xF5 ? 4 : 1);
    }
  }

  private PartialKernel() {}

  /** A string. */
  public static String mask(String value, int keepLast) {
    int hide = hidden(value.codePointCount(0, value.length()), keepLast);
    if (hide == 0) {
      return value;
    }
    return "*".repeat(hide) + value.substring(value.offsetByCodePoints(0, hide));
  }

  /**
   * A string as its UTF-8 bytes, masked without decoding them (the readers hold strings as bytes).
   *
   * @return {@code utf8} itself when nothing is hidden (N or fewer characters), else a new array
   */
  public static byte[] maskUtf8(byte[] utf8, int keepLast) {
    int characters = 0;
    for (int i = 0; i < utf8.length; characters++) {
      i += sequenceLength(utf8[i]);
    }
    int hide = hidden(characters, keepLast);
    if (hide == 0) {
      return utf8;
    }
    int keptFrom = 0;
    for (int c = 0; c < hide; c++) {
      keptFrom += sequenceLength(utf8[keptFrom]);
    }
    // a character follows the hidden ones, so keptFrom is within the array
    int kept = utf8.length - keptFrom;
    byte[] out = new byte[hide + kept];
    Arrays.fill(out, 0, hide, MASK);
    System.arraycopy(utf8, keptFrom, out, hide, kept);
    return out;
  }

  private static int hidden(int characters, int keepLast) {
    return Math.max(0, characters - Math.max(0, keepLast));
  }

  private static int sequenceLength(byte lead) {
    return SEQUENCE_LENGTH[lead & 0xff];
  }
}
