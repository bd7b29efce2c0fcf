/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.policy;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/** SHA-256, the one digest of the project (policy digests, token hashes, non-secret identities). */
public final class Digests {
  private Digests() {}

  public static byte[] sha256(byte[] data) {
    try {
      return MessageDigest.getInstance("SHA-256").digest(data);
    } catch (NoSuchAlgorithmException e) {
      // every Java platform must provide SHA-256
      throw new IllegalStateException("SHA-256 is not available", e);
    }
  }

  /** Lower-case hex of the SHA-256 of {@code text}'s UTF-8 bytes. */
  public static String sha256Hex(String text) {
    return HexFormat.of().formatHex(sha256(text.getBytes(StandardCharsets.UTF_8)));
  }
}
