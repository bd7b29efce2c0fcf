/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.spark.masks;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.util.HexFormat;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * What the masks must give, computed independently of the kernels (on Java strings and the JDK's
 * Mac), for tests that check masked query results.
 */
public final class ExpectedMasks {
  private ExpectedMasks() {}

  /** {@code partial(keep_last=N)}: all but the last N code points become {@code '*'}. */
  public static String partial(String value, int keepLast) {
    if (value == null) {
      return null;
    }
    int total = value.codePointCount(0, value.length());
    int hide = Math.max(0, total - keepLast);
    return "*".repeat(hide) + value.substring(value.offsetByCodePoints(0, hide));
  }

  /** {@code hash} of a string: HMAC-SHA256 of its UTF-8 bytes under {@code key}, lowercase hex. */
  public static String hashHex(byte[] key, String value) {
    if (value == null) {
      return null;
    }
    try {
      Mac mac = Mac.getInstance("HmacSHA256");
      mac.init(new SecretKeySpec(key, "HmacSHA256"));
      return HexFormat.of().formatHex(mac.doFinal(value.getBytes(StandardCharsets.UTF_8)));
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException(e);
    }
  }
}
