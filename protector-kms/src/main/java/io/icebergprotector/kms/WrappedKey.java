/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.kms;

import static io.icebergprotector.policy.Preconditions.checkArgument;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Base64;

/**
 * A wrapped data key in Vault Transit ciphertext format: {@code vault:v<N>:<base64 standard,
 * padded>}.
 *
 * <p>For keys wrapped by {@link LocalKeyService} the blob is {@code 12-byte nonce || AES-GCM
 * ciphertext+tag}. Parsing is strict (one blob has exactly one text form) so that tampering cannot
 * hide in the encoding.
 */
public final class WrappedKey {
  private static final String PREFIX = "vault:v";

  /** Vault versions are positive ints; cap the digits so parsing cannot overflow. */
  private static final int MAX_VERSION_DIGITS = 9;

  private final int version;
  private final byte[] blob;

  private WrappedKey(int version, byte[] blob) {
    this.version = version;
    this.blob = blob;
  }

  public static WrappedKey of(int version, byte[] blob) {
    checkVersion(version);
    checkBlob(blob);
    return new WrappedKey(version, blob.clone());
  }

  /**
   * The associated data that binds a wrapped blob to its key id and version, the same for every
   * backend that seals blobs itself (local keystore, PKCS#11): a blob replayed under another id or
   * version fails authentication.
   */
  public static byte[] associatedData(String keyId, int version) {
    return ("iceberg-protector/v1|" + keyId + "|" + version).getBytes(StandardCharsets.UTF_8);
  }

  /** Formats {@code vault:v<version>:<base64(blob)>}. */
  public static String format(int version, byte[] blob) {
    checkVersion(version);
    checkBlob(blob);
    return PREFIX + version + ":" + Base64.getEncoder().encodeToString(blob);
  }

  /**
   * Parses {@code vault:v<N>:<base64>}.
   *
   * @throws IllegalArgumentException naming what is wrong (the text itself is not echoed in full:
   *     it may be long)
   */
  public static WrappedKey parse(String text) {
    checkArgument(text != null, "Invalid wrapped key: null");
    checkArgument(
        text.startsWith(PREFIX),
        "Invalid wrapped key: expected prefix 'vault:v', got '%s'",
        abbreviate(text));
    int colon = text.indexOf(':', PREFIX.length());
    checkArgument(
        colon >= 0, "Invalid wrapped key: missing ':' after the version in '%s'", abbreviate(text));
    String digits = text.substring(PREFIX.length(), colon);
    int version = parseVersion(digits);
    String b64 = text.substring(colon + 1);
    byte[] blob;
    try {
      blob = Base64.getDecoder().decode(b64);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(
          "Invalid wrapped key: bad base64 payload (" + e.getMessage() + ")", e);
    }
    // The JDK decoder tolerates missing padding; insist on the canonical (padded) form.
    checkArgument(
        Base64.getEncoder().encodeToString(blob).equals(b64),
        "Invalid wrapped key: base64 payload is not in canonical padded form");
    checkArgument(blob.length != 0, "Invalid wrapped key: empty payload");
    return new WrappedKey(version, blob);
  }

  public int version() {
    return version;
  }

  /** A copy of the blob. */
  public byte[] blob() {
    return blob.clone();
  }

  @Override
  public String toString() {
    return format(version, blob);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof WrappedKey other
        && version == other.version
        && Arrays.equals(blob, other.blob);
  }

  @Override
  public int hashCode() {
    return 31 * version + Arrays.hashCode(blob);
  }

  private static int parseVersion(String digits) {
    checkArgument(!digits.isEmpty(), "Invalid wrapped key: missing version after 'vault:v'");
    checkArgument(
        digits.length() <= MAX_VERSION_DIGITS && digits.chars().allMatch(c -> c >= '0' && c <= '9'),
        "Invalid wrapped key: version must be a positive integer, got '%s'",
        abbreviate(digits));
    checkArgument(
        digits.charAt(0) != '0',
        "Invalid wrapped key: version must be a positive integer "
            + "without leading zeros, got '%s'",
        digits);
    return Integer.parseInt(digits);
  }

  private static void checkVersion(int version) {
    checkArgument(version >= 1, "Invalid key version: %s (must be >= 1)", version);
  }

  private static void checkBlob(byte[] blob) {
    checkArgument(blob != null && blob.length != 0, "Invalid wrapped key blob: null or empty");
  }

  private static String abbreviate(String s) {
    return s.length() <= 24 ? s : s.substring(0, 24) + "...";
  }
}
