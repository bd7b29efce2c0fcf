/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.kms.token;

import static io.icebergprotector.policy.Preconditions.checkState;

import java.security.GeneralSecurityException;
import javax.crypto.Cipher;
import javax.crypto.ShortBufferException;
import javax.crypto.spec.SecretKeySpec;
import org.bouncycastle.crypto.BlockCipher;
import org.bouncycastle.crypto.CipherParameters;
import org.bouncycastle.crypto.DataLengthException;
import org.bouncycastle.crypto.params.KeyParameter;

/**
 * One AES block at a time through the JDK's JCE ({@code AES/ECB/NoPadding}), as BouncyCastle's
 * {@link BlockCipher}. FF1 spends most of its time in the AES calls of its round function; the
 * JDK's AES runs on the CPU's AES instructions, BouncyCastle's software engine does not. The mode
 * is ECB on single blocks only because FF1's PRF (CBC-MAC) chains the blocks itself.
 */
public final class JceAesBlockCipher implements BlockCipher {
  private static final int BLOCK = 16;
  private Cipher cipher;

  @Override
  public void init(boolean forEncryption, CipherParameters params) {
    if (!(params instanceof KeyParameter kp)) {
      throw new IllegalArgumentException(
          "Cannot initialize AES: expected a key parameter, got "
              + (params == null ? "null" : params.getClass().getSimpleName()));
    }
    try {
      Cipher c = Cipher.getInstance("AES/ECB/NoPadding");
      c.init(
          forEncryption ? Cipher.ENCRYPT_MODE : Cipher.DECRYPT_MODE,
          new SecretKeySpec(kp.getKey(), "AES"));
      this.cipher = c;
    } catch (GeneralSecurityException e) {
      throw new IllegalArgumentException("Cannot initialize AES: " + e.getMessage(), e);
    }
  }

  @Override
  public String getAlgorithmName() {
    return "AES";
  }

  @Override
  public int getBlockSize() {
    return BLOCK;
  }

  @Override
  public int processBlock(byte[] in, int inOff, byte[] out, int outOff) {
    checkState(cipher != null, "Cannot use AES before init");
    if (in.length - inOff < BLOCK || out.length - outOff < BLOCK) {
      throw new DataLengthException("Cannot process a block: fewer than 16 bytes");
    }
    try {
      return cipher.update(in, inOff, BLOCK, out, outOff);
    } catch (ShortBufferException e) {
      throw new DataLengthException("Cannot process a block: " + e.getMessage());
    }
  }

  /** ECB on whole blocks keeps no state between blocks. */
  @Override
  public void reset() {}
}
