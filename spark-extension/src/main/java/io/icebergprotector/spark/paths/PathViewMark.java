/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.spark.paths;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.Locale;
import java.util.Map;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The mark of a Parquet read that got a principal's view: {@link PathReadRule} puts it into the
 * relation's options, Spark copies those into the scan's Hadoop configuration, and {@link
 * PathPolicyCryptoFactory} releases column keys of a file under a protected prefix only to a scan
 * marked for the principal it decrypts as. A scan that escaped the plan rule therefore fails at the
 * file, instead of decrypting it without the view.
 *
 * <p>The mark is the principal's {@link PathScope#identity()} with an HMAC under a secret of the
 * driver's JVM, so SQL cannot forge it ({@code SET}, table or reader options): the driver checks
 * the HMAC of every mark in a plan ({@link PathPlanCheck}), and the executors, which do not have
 * the secret, check only that the identity is theirs.
 */
final class PathViewMark {
  /** The relation option (and so the Hadoop configuration key) carrying the mark. */
  static final String OPTION = "iceberg-protector.path-view";

  private static final String HMAC = "HmacSHA256";
  private static final byte[] SECRET = new byte[32];

  static {
    new SecureRandom().nextBytes(SECRET);
  }

  private PathViewMark() {}

  /** The mark of a view for {@code identity} (deterministic within this JVM). */
  static String issue(String identity) {
    return identity + "." + mac(identity);
  }

  /** Whether this JVM issued {@code mark}. */
  static boolean isIssued(String mark) {
    int dot = mark == null ? -1 : mark.lastIndexOf('.');
    if (dot <= 0) {
      return false;
    }
    byte[] expected = mac(mark.substring(0, dot)).getBytes(StandardCharsets.US_ASCII);
    byte[] actual = mark.substring(dot + 1).getBytes(StandardCharsets.US_ASCII);
    return MessageDigest.isEqual(expected, actual);
  }

  /** The identity a mark names (not verified: executors cannot). */
  static String identityOf(String mark) {
    int dot = mark == null ? -1 : mark.lastIndexOf('.');
    return dot <= 0 ? null : mark.substring(0, dot);
  }

  /** The mark in relation options (keys compare case-insensitively, as Spark's options do). */
  static String in(Map<String, String> options) {
    for (Map.Entry<String, String> e : options.entrySet()) {
      if (OPTION.equals(e.getKey().toLowerCase(Locale.ROOT))) {
        return e.getValue() == null ? "" : e.getValue();
      }
    }
    return null;
  }

  private static String mac(String identity) {
    try {
      Mac mac = Mac.getInstance(HMAC);
      mac.init(new SecretKeySpec(SECRET, HMAC));
      byte[] tag = mac.doFinal(identity.getBytes(StandardCharsets.UTF_8));
      return Base64.getUrlEncoder().withoutPadding().encodeToString(tag);
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException(HMAC + " is not available", e);
    }
  }
}
