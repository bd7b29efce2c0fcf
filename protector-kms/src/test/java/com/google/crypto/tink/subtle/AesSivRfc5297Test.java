/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package com.google.crypto.tink.subtle;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.crypto.tink.util.Bytes;
import java.util.HexFormat;
import org.junit.jupiter.api.Test;

/**
 * The RFC 5297 appendix A vectors against Tink's AES-SIV, the implementation behind deterministic
 * tokens. RFC 5297 specifies them for AES-SIV with a 256-bit key, which Tink allows only through
 * this package-visible constructor (its public one takes the 512-bit keys tokens use); the S2V and
 * CTR code is the same for both key sizes, and TokenVectorsTest checks the 512-bit path.
 */
class AesSivRfc5297Test {
  private static final HexFormat HEX = HexFormat.of();

  private static AesSiv siv(String key) throws Exception {
    return new AesSiv(HEX.parseHex(key), Bytes.copyFrom(new byte[0]));
  }

  @Test
  void a1DeterministicAuthenticatedEncryption() throws Exception {
    AesSiv siv = siv("fffefdfcfbfaf9f8f7f6f5f4f3f2f1f0f0f1f2f3f4f5f6f7f8f9fafbfcfdfeff");
    byte[] ad = HEX.parseHex("101112131415161718191a1b1c1d1e1f2021222324252627");
    byte[] pt = HEX.parseHex("112233445566778899aabbccddee");
    byte[] ct = siv.encryptDeterministically(pt, ad);
    assertThat(HEX.formatHex(ct))
        .isEqualTo("85632d07c6e8f37f950acd320a2ecc93" + "40c02b9690c4dc04daef7f6afe5c");
    assertThat(siv.decryptDeterministically(ct, ad)).isEqualTo(pt);
  }

  @Test
  void a2NonceBasedAuthenticatedEncryption() throws Exception {
    AesSiv siv = siv("7f7e7d7c7b7a79787776757473727170404142434445464748494a4b4c4d4e4f");
    byte[] ad1 =
        HEX.parseHex(
            "00112233445566778899aabbccddeeffdeaddadadeaddadaffeeddccbbaa99887766554433221100");
    byte[] ad2 = HEX.parseHex("102030405060708090a0");
    byte[] nonce = HEX.parseHex("09f911029d74e35bd84156c5635688c0");
    byte[] pt =
        HEX.parseHex(
            "7468697320697320736f6d6520706c61696e7465787420746f20656e6372797074207573696e67205349562d414553");
    byte[] ct = siv.encryptDeterministicallyWithAssociatedDatas(pt, ad1, ad2, nonce);
    assertThat(HEX.formatHex(ct))
        .isEqualTo(
            "7bdb6e3b432667eb06f4d14bff2fbd0f"
                + "cb900f2fddbe404326601965c889bf17dba77ceb094fa663b7a3f748ba8af829"
                + "ea64ad544a272e9c485b62a3fd5c0d");
    assertThat(siv.decryptDeterministicallyWithAssociatedDatas(ct, ad1, ad2, nonce)).isEqualTo(pt);
  }
}
