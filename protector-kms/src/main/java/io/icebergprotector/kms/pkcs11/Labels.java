/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.kms.pkcs11;

import static io.icebergprotector.policy.Preconditions.checkArgument;

import io.icebergprotector.policy.KeyIds;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * The CKA_LABEL grammar of our token objects.
 *
 * <p>Labels are {@code <keyId>#<kind>#t=<epoch millis>#n=<16 hex>[#<attr>=<value>...]} where kind
 * is {@code v<N>} (AES-256 wrapping key of version N), {@code hmac} (HMAC key for deriveKey) or
 * {@code destroyed} (tombstone, also carrying {@code c=<created millis>} and {@code l=<latest
 * version>}). Key ids cannot contain '#', so the split is unambiguous.
 *
 * <p>Why the {@code t}/{@code n} suffix instead of a bare {@code <keyId>#v<N>}: SunPKCS11's
 * KeyStore refuses to load a token on which two secret keys share a CKA_LABEL ("found multiple
 * secret keys sharing same CKA_LABEL"), and it cannot delete either of them afterwards. Two
 * processes rotating the same key at once would create two {@code pii#v2} objects and make every
 * key on the token unusable. With a random suffix such a race leaves two distinct objects for
 * version 2; {@link TokenView} picks one deterministically for wrap, and unwrap tries both.
 */
final class Labels {
  private static final Pattern VERSION = Pattern.compile("v([1-9][0-9]{0,8})");
  private static final Pattern NONCE = Pattern.compile("[0-9a-f]{16}");

  static final String HMAC = "hmac";
  static final String DESTROYED = "destroyed";

  private Labels() {}

  static String version(String keyId, int version, long createdMillis, byte[] nonce) {
    return KeyIds.check(keyId) + "#v" + version + "#t=" + createdMillis + "#n=" + hex(nonce);
  }

  static String hmac(String keyId, long createdMillis, byte[] nonce) {
    return KeyIds.check(keyId) + "#" + HMAC + "#t=" + createdMillis + "#n=" + hex(nonce);
  }

  static String tombstone(
      String keyId, long destroyedMillis, long createdMillis, int latestVersion, byte[] nonce) {
    return KeyIds.check(keyId)
        + "#"
        + DESTROYED
        + "#t="
        + destroyedMillis
        + "#n="
        + hex(nonce)
        + "#c="
        + createdMillis
        + "#l="
        + latestVersion;
  }

  private static String hex(byte[] nonce) {
    checkArgument(nonce.length == 8, "Label nonce must be 8 bytes, got %s", nonce.length);
    return HexFormat.of().formatHex(nonce);
  }

  /**
   * One parsed label. {@code version} is 0 unless kind is a version; created/latest only for
   * tombstones.
   */
  record Parsed(
      String label,
      String keyId,
      String kind,
      int version,
      long time,
      String nonce,
      long created,
      int latest) {

    boolean isVersion() {
      return version > 0;
    }

    boolean isHmac() {
      return HMAC.equals(kind);
    }

    boolean isTombstone() {
      return DESTROYED.equals(kind);
    }

    /** Deterministic order among duplicates: oldest first, then by nonce. */
    static int compare(Parsed a, Parsed b) {
      int byTime = Long.compare(a.time, b.time);
      return byTime != 0 ? byTime : a.nonce.compareTo(b.nonce);
    }
  }

  /**
   * Parses a label of ours; anything else on the token (other applications' objects, malformed
   * labels) is {@link Optional#empty()} and ignored.
   */
  static Optional<Parsed> parse(String label) {
    if (label == null) {
      return Optional.empty();
    }
    String[] parts = label.split("#", -1);
    if (parts.length < 4 || !KeyIds.isValid(parts[0])) {
      return Optional.empty();
    }
    String kind = parts[1];
    int version = 0;
    var m = VERSION.matcher(kind);
    if (m.matches()) {
      version = Integer.parseInt(m.group(1));
    } else if (!HMAC.equals(kind) && !DESTROYED.equals(kind)) {
      return Optional.empty();
    }
    Map<String, String> attrs = new LinkedHashMap<>();
    for (int i = 2; i < parts.length; i++) {
      int eq = parts[i].indexOf('=');
      if (eq <= 0
          || attrs.putIfAbsent(parts[i].substring(0, eq), parts[i].substring(eq + 1)) != null) {
        return Optional.empty();
      }
    }
    try {
      long time = Long.parseLong(attrs.getOrDefault("t", ""));
      String nonce = attrs.getOrDefault("n", "");
      if (time < 0 || !NONCE.matcher(nonce).matches()) {
        return Optional.empty();
      }
      long created = 0;
      int latest = 0;
      if (DESTROYED.equals(kind)) {
        created = Long.parseLong(attrs.getOrDefault("c", ""));
        latest = Integer.parseInt(attrs.getOrDefault("l", ""));
        if (created < 0 || latest < 0) {
          return Optional.empty();
        }
      }
      return Optional.of(new Parsed(label, parts[0], kind, version, time, nonce, created, latest));
    } catch (NumberFormatException e) {
      return Optional.empty();
    }
  }
}
