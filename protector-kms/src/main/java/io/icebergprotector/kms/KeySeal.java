/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.kms;

import static io.icebergprotector.policy.Preconditions.checkArgument;

import java.security.GeneralSecurityException;
import java.security.SecureRandom;
import java.util.Optional;
import javax.crypto.AEADBadTagException;
import javax.crypto.Cipher;
import javax.crypto.spec.GCMParameterSpec;

/**
 * How the backends that seal data keys themselves (local keystore, PKCS#11 token) wrap and unwrap
 * them: AES-GCM with a fresh 96-bit nonce from {@link SecureRandom} per wrap, a 128-bit tag, and
 * the key id and version as associated data ({@link WrappedKey#associatedData}). The blob is {@code
 * nonce || ciphertext+tag}. Each backend supplies its cipher (its provider) and how to load one key
 * version into it; the envelope is written once, here.
 */
public final class KeySeal {
  public static final String CIPHER = "AES/GCM/NoPadding";
  private static final int NONCE_BYTES = 12;
  private static final int TAG_BITS = 128;

  /** Loads one version of a master key into a cipher: a JCE key, or an object inside a token. */
  @FunctionalInterface
  public interface KeyLoader {
    void init(Cipher cipher, int mode, GCMParameterSpec spec) throws GeneralSecurityException;
  }

  private KeySeal() {}

  /** Refuses a data key that cannot be wrapped, naming the master key. */
  public static void checkDataKey(String keyId, byte[] dataKey) {
    checkArgument(
        dataKey != null && dataKey.length != 0,
        "Cannot wrap a null or empty data key with key '%s'",
        keyId);
  }

  /** Wraps {@code dataKey} under {@code version} of {@code keyId}, in Vault's text form. */
  public static String wrap(
      String keyId, int version, byte[] dataKey, Cipher cipher, KeyLoader key, SecureRandom random)
      throws GeneralSecurityException {
    byte[] nonce = new byte[NONCE_BYTES];
    random.nextBytes(nonce);
    key.init(cipher, Cipher.ENCRYPT_MODE, new GCMParameterSpec(TAG_BITS, nonce));
    cipher.updateAAD(WrappedKey.associatedData(keyId, version));
    byte[] blob = new byte[NONCE_BYTES + cipher.getOutputSize(dataKey.length)];
    System.arraycopy(nonce, 0, blob, 0, NONCE_BYTES);
    cipher.doFinal(dataKey, 0, dataKey.length, blob, NONCE_BYTES);
    return WrappedKey.format(version, blob);
  }

  /**
   * Parses a wrapped key for an unwrap with {@code keyId}.
   *
   * @throws KeyIntegrityException naming the key when the text or the blob is malformed
   */
  public static WrappedKey parse(String keyId, String wrapped) {
    WrappedKey parsed;
    try {
      parsed = WrappedKey.parse(wrapped);
    } catch (IllegalArgumentException e) {
      throw new KeyIntegrityException(
          "cannot unwrap with key '" + keyId + "': " + e.getMessage(), e);
    }
    int length = parsed.blob().length;
    if (length < NONCE_BYTES + TAG_BITS / 8) {
      throw new KeyIntegrityException(
          String.format(
              "cannot unwrap with key '%s' v%d: blob too short (%d bytes)",
              keyId, parsed.version(), length));
    }
    return parsed;
  }

  /** The data key, or empty when the tag does not verify under the key {@code key} loads. */
  public static Optional<byte[]> unwrap(
      String keyId, WrappedKey wrapped, Cipher cipher, KeyLoader key)
      throws GeneralSecurityException {
    byte[] blob = wrapped.blob();
    key.init(cipher, Cipher.DECRYPT_MODE, new GCMParameterSpec(TAG_BITS, blob, 0, NONCE_BYTES));
    cipher.updateAAD(WrappedKey.associatedData(keyId, wrapped.version()));
    try {
      return Optional.of(cipher.doFinal(blob, NONCE_BYTES, blob.length - NONCE_BYTES));
    } catch (AEADBadTagException e) {
      return Optional.empty();
    }
  }

  /** The error of a blob that no candidate key authenticates. */
  public static KeyIntegrityException authenticationFailed(String keyId, int version) {
    return new KeyIntegrityException(
        String.format(
            "cannot unwrap with key '%s' v%d: authentication failed (blob tampered, truncated, or"
                + " wrapped under another key)",
            keyId, version));
  }
}
