/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.policy;

import static io.icebergprotector.policy.Preconditions.checkArgument;

import java.util.regex.Pattern;

/**
 * The one rule for master key ids, shared by the policy, every key service and the key server's
 * routes: 1 to 128 letters, digits, '.', '_' or '-', starting with a letter or digit. The rule
 * keeps ids safe as URL path segments, keystore aliases and PKCS#11 labels ('#' separates label
 * parts).
 */
public final class KeyIds {
  /** The rule in words, for messages. */
  public static final String RULE =
      "1-128 characters of [A-Za-z0-9._-], starting with a letter or digit";

  private static final Pattern VALID = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,127}");

  private KeyIds() {}

  public static boolean isValid(String keyId) {
    return keyId != null && VALID.matcher(keyId).matches();
  }

  /**
   * Returns {@code keyId} if it follows the rule.
   *
   * @throws IllegalArgumentException naming the id and the rule otherwise
   */
  public static String check(String keyId) {
    checkArgument(isValid(keyId), "Invalid key id '%s': must be %s", keyId, RULE);
    return keyId;
  }
}
