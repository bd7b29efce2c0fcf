/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.kms;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.icebergprotector.kms.token.TokenMode;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The key-backend options, PKCS#11 included; no token is needed to read them. */
class KmsSettingsTest {
  private static final String LIBRARY = "/usr/lib/softhsm/libsofthsm2.so";

  private static Map<String, String> pkcs11(String... extra) {
    Map<String, String> options = new HashMap<>();
    options.put(KmsOptions.TYPE.key(), "pkcs11");
    options.put(KmsOptions.PKCS11_LIBRARY.key(), LIBRARY);
    for (int i = 0; i < extra.length; i += 2) {
      options.put(extra[i], extra[i + 1]);
    }
    return options;
  }

  @Test
  void pkcs11OptionsSelectTheTokenAndNameThePinSource() {
    KmsSettings byLabel =
        KmsSettings.fromOptions(
            pkcs11(
                KmsOptions.TOKEN_LABEL.key(),
                "protector",
                KmsOptions.PIN_FILE.key(),
                "/run/secrets/pin"),
            "catalog 'prod'");
    assertThat(byLabel.type()).isEqualTo(KmsSettings.Type.PKCS11);
    assertThat(byLabel.pkcs11Library()).isEqualTo(LIBRARY);
    assertThat(byLabel.tokenLabel()).isEqualTo("protector");
    assertThat(byLabel.pin()).isEqualTo(SecretRef.ofFile("/run/secrets/pin"));
    assertThat(byLabel.endpoint()).isEqualTo("pkcs11:" + LIBRARY + "#token-label=protector");
    assertThat(byLabel.toString()).contains("PIN from file /run/secrets/pin");

    KmsSettings bySlot =
        KmsSettings.fromOptions(
            pkcs11(KmsOptions.SLOT.key(), "1234", KmsOptions.PIN_ENV.key(), "HSM_PIN"),
            "catalog 'prod'");
    assertThat(bySlot.slot()).isEqualTo(1234L);
    assertThat(bySlot.endpoint()).endsWith("#slot=1234");
    KmsSettings byIndex =
        KmsSettings.fromOptions(
            pkcs11(KmsOptions.SLOT_LIST_INDEX.key(), "0", KmsOptions.PIN_ENV.key(), "HSM_PIN"),
            "catalog 'prod'");
    assertThat(byIndex.slotListIndex()).isZero();
    assertThat(byIndex.identity()).isNotEqualTo(bySlot.identity());
    assertThat(byIndex.identity())
        .isEqualTo(
            KmsSettings.fromOptions(
                    pkcs11(
                        KmsOptions.SLOT_LIST_INDEX.key(), "0", KmsOptions.PIN_ENV.key(), "HSM_PIN"),
                    "another owner")
                .identity());
  }

  @Test
  void badPkcs11OptionsNameTheOption() {
    Map<String, String> noLibrary =
        pkcs11(KmsOptions.TOKEN_LABEL.key(), "t", KmsOptions.PIN_ENV.key(), "P");
    noLibrary.remove(KmsOptions.PKCS11_LIBRARY.key());
    assertThatThrownBy(() -> KmsSettings.fromOptions(noLibrary, "catalog 'prod'"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("catalog 'prod': ")
        .hasMessageContaining(
            "Missing "
                + KmsOptions.PKCS11_LIBRARY.key()
                + ": it is required when protector.kms.type = pkcs11");
    assertThatThrownBy(
            () -> KmsSettings.fromOptions(pkcs11(KmsOptions.PIN_ENV.key(), "P"), "catalog 'prod'"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(
            "Set exactly one of protector.kms.token-label, protector.kms.slot or"
                + " protector.kms.slot-list-index");
    assertThatThrownBy(
            () ->
                KmsSettings.fromOptions(
                    pkcs11(
                        KmsOptions.TOKEN_LABEL.key(),
                        "t",
                        KmsOptions.SLOT.key(),
                        "0",
                        KmsOptions.PIN_ENV.key(),
                        "P"),
                    "c"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("(2 are set)");
    assertThatThrownBy(
            () -> KmsSettings.fromOptions(pkcs11(KmsOptions.TOKEN_LABEL.key(), "t"), "c"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("Set exactly one of protector.kms.pin-env or protector.kms.pin-file");
    assertThatThrownBy(
            () ->
                KmsSettings.fromOptions(
                    pkcs11(
                        KmsOptions.TOKEN_LABEL.key(),
                        "t",
                        KmsOptions.PIN_ENV.key(),
                        "P",
                        KmsOptions.PIN_FILE.key(),
                        "/p"),
                    "c"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("set only one of protector.kms.pin-file, protector.kms.pin-env");
    assertThatThrownBy(
            () ->
                KmsSettings.fromOptions(
                    pkcs11(KmsOptions.SLOT.key(), "first", KmsOptions.PIN_ENV.key(), "P"), "c"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("Invalid protector.kms.slot: must be a whole number, got 'first'");
    assertThatThrownBy(
            () ->
                KmsSettings.fromOptions(
                    pkcs11(
                        KmsOptions.TOKEN_LABEL.key(),
                        "t",
                        KmsOptions.PIN_ENV.key(),
                        "P",
                        KmsOptions.CREATE_MISSING_KEYS.key(),
                        "true"),
                    "c"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(
            "Invalid "
                + KmsOptions.CREATE_MISSING_KEYS.key()
                + ": it applies to the local key service only");
    assertThatThrownBy(() -> KmsSettings.fromOptions(Map.of(KmsOptions.TYPE.key(), "hsm"), "c"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(
            "Unknown protector.kms.type 'hsm' (expected local, remote or pkcs11)");
  }

  @Test
  void keyCacheLifetimeDefaultsToThirtySecondsAndIsBounded() {
    Map<String, String> remote = new HashMap<>();
    remote.put(KmsOptions.TYPE.key(), "remote");
    remote.put(KmsOptions.URL.key(), "https://keys.example.com:8200");
    remote.put(KmsOptions.TOKEN_FILE.key(), "/run/secrets/token");
    KmsSettings byDefault = KmsSettings.fromOptions(remote, "catalog 'prod'");
    assertThat(byDefault.keyCacheSeconds()).isEqualTo(30);

    remote.put(KmsOptions.KEY_CACHE_SECONDS.key(), " 5 ");
    KmsSettings short5 = KmsSettings.fromOptions(remote, "catalog 'prod'");
    assertThat(short5.keyCacheSeconds()).isEqualTo(5);
    assertThat(short5.identity())
        .as("backends with different lifetimes are not shared")
        .isNotEqualTo(byDefault.identity());

    remote.put(KmsOptions.KEY_CACHE_SECONDS.key(), "0");
    assertThatThrownBy(() -> KmsSettings.fromOptions(remote, "catalog 'prod'"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "catalog 'prod': Invalid protector.kms.key-cache-seconds: must be between 1 and 600 seconds,"
                + " got 0");
    remote.put(KmsOptions.KEY_CACHE_SECONDS.key(), "30s");
    assertThatThrownBy(() -> KmsSettings.fromOptions(remote, "catalog 'prod'"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "catalog 'prod': Invalid protector.kms.key-cache-seconds: must be a whole number of seconds,"
                + " got '30s'");
  }

  @Test
  void tokenModeDefaultsToLocalAndServerNeedsTheKeyServer() throws Exception {
    Map<String, String> remote = new HashMap<>();
    remote.put(KmsOptions.TYPE.key(), "remote");
    remote.put(KmsOptions.URL.key(), "https://keys.example.com:8200");
    remote.put(KmsOptions.TOKEN_FILE.key(), "/run/secrets/token");
    assertThat(KmsSettings.fromOptions(remote, "catalog 'prod'").tokenMode())
        .isEqualTo(TokenMode.LOCAL);

    remote.put(KmsOptions.TOKEN_MODE.key(), " Server ");
    KmsSettings server = KmsSettings.fromOptions(remote, "catalog 'prod'");
    assertThat(server.tokenMode()).isEqualTo(TokenMode.SERVER);
    assertThat(server.toString()).contains("token mode server");
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
      out.writeObject(server);
    }
    try (ObjectInputStream in =
        new ObjectInputStream(new ByteArrayInputStream(bytes.toByteArray()))) {
      assertThat(((KmsSettings) in.readObject()).tokenMode()).isEqualTo(TokenMode.SERVER);
    }

    remote.put(KmsOptions.TOKEN_MODE.key(), "remote");
    assertThatThrownBy(() -> KmsSettings.fromOptions(remote, "catalog 'prod'"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "catalog 'prod': Cannot use protector.kms.token-mode=remote: expected local or server");

    Map<String, String> local = new HashMap<>();
    local.put(KmsOptions.KEYSTORE.key(), "/tmp/keys.p12");
    local.put(KmsOptions.PASSPHRASE_ENV.key(), "KS_PASS");
    local.put(KmsOptions.TOKEN_MODE.key(), "server");
    assertThatThrownBy(() -> KmsSettings.fromOptions(local, "catalog 'dev'"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "catalog 'dev': Invalid protector.kms.token-mode = server: it needs protector.kms.type = remote"
                + " (only the key server tokenizes for its callers), got protector.kms.type ="
                + " local; use protector.kms.token-mode = local");
    local.put(KmsOptions.TOKEN_MODE.key(), "local");
    assertThat(KmsSettings.fromOptions(local, "catalog 'dev'").tokenMode())
        .isEqualTo(TokenMode.LOCAL);
  }

  @Test
  void settingsTravelWithoutTheirSecrets() throws Exception {
    KmsSettings settings =
        KmsSettings.fromOptions(
            pkcs11(KmsOptions.TOKEN_LABEL.key(), "protector", KmsOptions.PIN_ENV.key(), "HSM_PIN"),
            "c");
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
      out.writeObject(settings);
    }
    KmsSettings copy;
    try (ObjectInputStream in =
        new ObjectInputStream(new ByteArrayInputStream(bytes.toByteArray()))) {
      copy = (KmsSettings) in.readObject();
    }
    assertThat(copy).isEqualTo(settings);
    assertThat(copy.pin()).isEqualTo(SecretRef.ofEnv("HSM_PIN"));
    assertThat(copy.tokenLabel()).isEqualTo("protector");
  }
}
