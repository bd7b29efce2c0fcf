/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.kms.pkcs11;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.icebergprotector.kms.KeyInfo;
import io.icebergprotector.policy.KeyIds;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The parts of the PKCS#11 backend that need no token: labels, view, config text, diagnostics
 * parsing.
 */
class Pkcs11LabelsTest {
  private static final byte[] N1 = {0, 0, 0, 0, 0, 0, 0, 1};
  private static final byte[] N2 = {0, 0, 0, 0, 0, 0, 0, 2};

  @Test
  void labelsFollowTheSharedKeyIdRule() {
    for (String id : List.of("pii", "PII", "a.b-c_d", "x".repeat(128))) {
      assertThat(Labels.parse(Labels.version(id, 1, 1L, N1)))
          .map(Labels.Parsed::keyId)
          .contains(id);
    }
    for (String bad : new String[] {"", "a b", "a#b", "x".repeat(129), "é", ".hidden", "-x"}) {
      assertThatThrownBy(() -> Labels.version(bad, 1, 1L, N1))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("Invalid key id '" + bad + "'")
          .hasMessageContaining(KeyIds.RULE);
    }
  }

  @Test
  void labelsRoundTrip() {
    Labels.Parsed v = Labels.parse(Labels.version("pii", 3, 1234L, N1)).orElseThrow();
    assertThat(v.label()).isEqualTo("pii#v3#t=1234#n=0000000000000001");
    assertThat(v.keyId()).isEqualTo("pii");
    assertThat(v.version()).isEqualTo(3);
    assertThat(v.time()).isEqualTo(1234L);
    assertThat(v.isVersion()).isTrue();

    Labels.Parsed h = Labels.parse(Labels.hmac("a.b", 5L, N2)).orElseThrow();
    assertThat(h.isHmac()).isTrue();
    assertThat(h.keyId()).isEqualTo("a.b");

    Labels.Parsed t = Labels.parse(Labels.tombstone("pii", 99L, 7L, 4, N1)).orElseThrow();
    assertThat(t.isTombstone()).isTrue();
    assertThat(t.created()).isEqualTo(7L);
    assertThat(t.latest()).isEqualTo(4);
  }

  @Test
  void foreignAndMalformedLabelsAreIgnored() {
    for (String label :
        new String[] {
          null,
          "",
          "pii",
          "pii#v1",
          "mykey",
          "pii#v0#t=1#n=0000000000000001",
          "pii#v01#t=1#n=0000000000000001",
          "pii#x#t=1#n=0000000000000001",
          "pii#v1#t=-1#n=0000000000000001",
          "pii#v1#t=1#n=XYZ",
          "pii#v1#t=1#t=2#n=0000000000000001",
          "bad id#v1#t=1#n=0000000000000001",
          "pii#destroyed#t=1#n=0000000000000001"
        }) {
      assertThat(Labels.parse(label)).as(String.valueOf(label)).isEmpty();
    }
    // Unknown extra attributes are tolerated (forward compatible).
    assertThat(Labels.parse("pii#v1#t=1#n=0000000000000001#z=9")).isPresent();
  }

  @Test
  void viewPicksTheOldestDuplicateAndLetsATombstoneWin() {
    String v1 = Labels.version("pii", 1, 100L, N1);
    String v2late = Labels.version("pii", 2, 300L, N1);
    String v2early = Labels.version("pii", 2, 200L, N2);
    String hmac = Labels.hmac("pii", 100L, N1);
    TokenView view =
        TokenView.of(
            List.of(
                v1, v2late, v2early, hmac, "someone-else's-key", Labels.hmac("debris", 1L, N1)));

    TokenView.KeyObjects pii = view.objects("pii").orElseThrow();
    assertThat(pii.latestVersion()).isEqualTo(2);
    assertThat(pii.candidates(2)).extracting(Labels.Parsed::label).containsExactly(v2early, v2late);
    assertThat(pii.hmac()).map(Labels.Parsed::label).contains(hmac);
    assertThat(pii.info())
        .isEqualTo(new KeyInfo("pii", 2, List.of(1, 2), Instant.ofEpochMilli(100L), false));
    // An HMAC key alone (interrupted create) is not a key.
    assertThat(view.objects("debris").orElseThrow().exists()).isFalse();
    assertThat(view.infos()).extracting(KeyInfo::id).containsExactly("pii");

    TokenView destroyed =
        TokenView.of(List.of(v1, hmac, Labels.tombstone("pii", 500L, 100L, 2, N1)));
    TokenView.KeyObjects gone = destroyed.objects("pii").orElseThrow();
    assertThat(gone.destroyed()).isTrue();
    assertThat(gone.candidates(1)).isEmpty();
    assertThat(gone.hmac()).isEmpty();
    assertThat(gone.material())
        .hasSize(2); // left by an interrupted destroy: the next destroy deletes them
    assertThat(gone.info())
        .isEqualTo(new KeyInfo("pii", 2, List.of(), Instant.ofEpochMilli(100L), true));
    assertThat(gone.destroyedAt()).isEqualTo(Instant.ofEpochMilli(500L));
  }

  @Test
  void configTextSelectsTheSlotAndMakesKeysSensitiveAndNonExtractable() {
    String config = Pkcs11Config.forService(Path.of("/opt/hsm lib/libx.so"), Pkcs11Config.slot(42));
    assertThat(config)
        .startsWith("name = IcebergProtector\nlibrary = \"/opt/hsm lib/libx.so\"\nslot = 42\n");
    assertThat(config)
        .contains(
            "attributes(generate, CKO_SECRET_KEY, CKK_AES) = {",
            "attributes(generate, CKO_SECRET_KEY, CKK_GENERIC_SECRET) = {",
            "CKA_SENSITIVE = true",
            "CKA_EXTRACTABLE = false");
    assertThat(config).doesNotContain("CKA_EXTRACTABLE = true", "CKA_SENSITIVE = false");
    assertThat(Pkcs11Config.forProbe(Path.of("/l.so"), Pkcs11Config.slotListIndex(1)))
        .isEqualTo(
            "name = IcebergProtector\nlibrary = \"/l.so\"\nslotListIndex = 1\nshowInfo = true\n");
    for (String bad : new String[] {"/a\"b.so", "/a\\b.so", "/${user.home}/x.so", "/a\nb.so"}) {
      assertThatThrownBy(() -> Pkcs11Config.quote(Path.of(bad)))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContainingAll(
              "Invalid PKCS#11 library path", "SunPKCS11 configuration cannot hold");
    }
    assertThatThrownBy(() -> Pkcs11Config.slotListIndex(-1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("Invalid PKCS#11 slot list index: -1");
    assertThatThrownBy(() -> Pkcs11Config.slot(1L << 32))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("Invalid PKCS#11 slot id: 4294967296");
  }

  @Test
  void slotDiagnosticsAreParsed() {
    String output =
        """
        Information for provider SunPKCS11-IcebergProtector
        Library info:
          cryptokiVersion: 2.40
        All slots: 1444047381, 1
        Slots with tokens: 1444047381, 1
        Slot info for slot 1444047381:
          slotDescription: SoftHSM slot ID 0x56126a15
        Token info for token in slot 1444047381:
          label: test                           \s
          manufacturerID: SoftHSM project
        Mechanism CKM_AES_GCM:
          ulMinKeySize: 16
        """;
    assertThat(SlotProbe.parseSlotList(output)).containsExactly(1444047381L, 1L);
    assertThat(SlotProbe.parseLabel(output, 1444047381L)).isEqualTo("test");
    assertThat(SlotProbe.parseLabel(output, 1L)).isEmpty();
    assertThat(SlotProbe.parseSlotList("nothing")).isNull();
  }

  @Test
  void errorsNameTheTokenCode() {
    Exception wrongPin =
        new java.io.IOException(
            "load failed",
            new RuntimeException(
                new javax.security.auth.login.FailedLoginException(null) {
                  @Override
                  public synchronized Throwable getCause() {
                    return new RuntimeException("CKR_PIN_INCORRECT");
                  }
                }));
    assertThat(Pkcs11Errors.describe(wrongPin)).isEqualTo("wrong user PIN (CKR_PIN_INCORRECT)");
    assertThat(Pkcs11Errors.unavailable(new RuntimeException("CKR_DEVICE_REMOVED"))).isTrue();
    assertThat(Pkcs11Errors.describe(new RuntimeException("outer", new RuntimeException("inner"))))
        .isEqualTo("inner");
  }
}
