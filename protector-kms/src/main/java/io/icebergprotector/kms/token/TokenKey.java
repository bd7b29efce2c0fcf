/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.kms.token;

import static io.icebergprotector.policy.Preconditions.checkArgument;

import io.icebergprotector.policy.ProtectionMethod;
import java.util.Arrays;
import java.util.Objects;
import org.bouncycastle.crypto.digests.SHA256Digest;
import org.bouncycastle.crypto.generators.HKDFBytesGenerator;
import org.bouncycastle.crypto.params.HKDFParameters;

/**
 * The token key of one (master key, key version, token domain, method): derived by the key service
 * from that version's material with HKDF-SHA256 (RFC 5869, BouncyCastle's generator), never stored.
 * 64 bytes for AES-SIV (two AES-256 keys), 32 for FF1 (AES-256).
 *
 * <p>The HKDF salt is a fixed label, so the extracted key {@code HMAC(label, material)} differs
 * from every hash-mask key {@code HMAC(material, context)} that {@code KeyService.deriveKey}
 * returns: no context a caller chooses yields a token key. Close it to wipe the bytes; it is not
 * thread-safe.
 */
public final class TokenKey implements AutoCloseable {
  private static final byte[] SALT =
      "iceberg-protector token key v1".getBytes(java.nio.charset.StandardCharsets.UTF_8);

  private final String keyId;
  private final int version;
  private final String domain;
  private final ProtectionMethod.Kind kind;
  private final byte[] bytes;
  private boolean wiped;

  private TokenKey(
      String keyId, int version, String domain, ProtectionMethod.Kind kind, byte[] bytes) {
    this.keyId = keyId;
    this.version = version;
    this.domain = domain;
    this.kind = kind;
    this.bytes = bytes;
  }

  /**
   * Derives the token key from one version's master key material (which the caller wipes).
   *
   * @throws IllegalArgumentException for method pme, which has no token key
   */
  public static TokenKey derive(
      byte[] material, String keyId, int version, String domain, ProtectionMethod.Kind kind) {
    Objects.requireNonNull(material, "material");
    Objects.requireNonNull(domain, "domain");
    checkArgument(
        kind != ProtectionMethod.Kind.PME, "Cannot derive a token key for method pme: %s", domain);
    checkArgument(
        version >= 1, "Cannot derive a token key for key version %s of %s", version, keyId);
    byte[] info =
        (kind.name() + "\u0000" + keyId + "\u0000" + version + "\u0000" + domain)
            .getBytes(java.nio.charset.StandardCharsets.UTF_8);
    HKDFBytesGenerator hkdf = new HKDFBytesGenerator(new SHA256Digest());
    hkdf.init(new HKDFParameters(material, SALT, info));
    byte[] out = new byte[kind == ProtectionMethod.Kind.DETERMINISTIC ? 64 : 32];
    hkdf.generateBytes(out, 0, out.length);
    return new TokenKey(keyId, version, domain, kind, out);
  }

  /** A token key from its bytes (a remote key service's answer); takes ownership of them. */
  public static TokenKey of(
      String keyId, int version, String domain, ProtectionMethod.Kind kind, byte[] bytes) {
    int want = kind == ProtectionMethod.Kind.DETERMINISTIC ? 64 : 32;
    checkArgument(
        bytes != null && bytes.length == want,
        "Cannot use a token key of %s bytes for %s (needs %s) of key %s",
        (bytes == null ? "no" : bytes.length),
        kind,
        want,
        keyId);
    return new TokenKey(keyId, version, domain, kind, bytes);
  }

  public String keyId() {
    return keyId;
  }

  /** The master key version the token key was derived from. */
  public int version() {
    return version;
  }

  public String domain() {
    return domain;
  }

  public ProtectionMethod.Kind kind() {
    return kind;
  }

  /** The key bytes themselves; callers copy what they keep, and never log them. */
  byte[] bytes() {
    // Every tokenized value reads the key: no check arguments (a boxed version, a varargs array)
    // are built unless the key is closed.
    if (wiped) {
      throw new IllegalStateException(
          "Cannot use a closed token key: " + keyId + " v" + version + " " + domain);
    }
    return bytes;
  }

  /**
   * A copy of the key bytes, for a key server that releases the key to an authorized caller; the
   * caller wipes the copy once it is sent.
   */
  public byte[] exportBytes() {
    return bytes().clone();
  }

  /** Overwrites the key bytes with zeros. */
  @Override
  public void close() {
    Arrays.fill(bytes, (byte) 0);
    wiped = true;
  }

  /** Names the key, never its bytes. */
  @Override
  public String toString() {
    return "TokenKey(" + keyId + " v" + version + ", " + kind + ", domain " + domain + ")";
  }
}
