/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.kms.pkcs11;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.icebergprotector.kms.AuthorizingKeyService;
import io.icebergprotector.kms.KeyAccessDeniedException;
import io.icebergprotector.kms.KeyAlreadyExistsException;
import io.icebergprotector.kms.KeyDestroyedException;
import io.icebergprotector.kms.KeyInfo;
import io.icebergprotector.kms.KeyIntegrityException;
import io.icebergprotector.kms.KeyNotFoundException;
import io.icebergprotector.kms.KeyService;
import io.icebergprotector.kms.KeyServiceException;
import io.icebergprotector.kms.KeyServices;
import io.icebergprotector.kms.KeyVersionRetiredException;
import io.icebergprotector.kms.KmsOptions;
import io.icebergprotector.kms.KmsSettings;
import io.icebergprotector.kms.LocalKeyService;
import io.icebergprotector.kms.Passphrase;
import io.icebergprotector.kms.WrappedKey;
import io.icebergprotector.policy.Policy;
import io.icebergprotector.policy.Principal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.InvalidKeyException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.KeyStore;
import java.security.Provider;
import java.security.SecureRandom;
import java.security.Security;
import java.security.spec.InvalidKeySpecException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collections;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import javax.crypto.Cipher;
import javax.crypto.KeyGenerator;
import javax.crypto.SecretKey;
import javax.crypto.SecretKeyFactory;
import javax.crypto.spec.SecretKeySpec;

/**
 * Test bodies that run in a child JVM started by {@link Pkcs11KeyServiceTest} with SOFTHSM2_CONF
 * pointing at a private token directory. Exit code 0 means the scenario passed; otherwise the stack
 * trace is printed.
 */
public final class Pkcs11Scenarios {
  static final String ENV_LIBRARY = "PKCS11_TEST_LIBRARY";
  static final String ENV_PIN = "PKCS11_TEST_PIN";
  static final String ENV_DIR = "PKCS11_TEST_DIR";

  private static final SecureRandom RANDOM = new SecureRandom();

  @FunctionalInterface
  private interface Scenario {
    void run() throws Exception;
  }

  private static final Map<String, Scenario> SCENARIOS =
      Map.ofEntries(
          Map.entry("roundTrip", Pkcs11Scenarios::roundTrip),
          Map.entry("nonExtractable", Pkcs11Scenarios::nonExtractable),
          Map.entry("rotation", Pkcs11Scenarios::rotation),
          Map.entry("retire", Pkcs11Scenarios::retire),
          Map.entry("replayAndTamper", Pkcs11Scenarios::replayAndTamper),
          Map.entry("destroy", Pkcs11Scenarios::destroy),
          Map.entry("deriveStable", Pkcs11Scenarios::deriveStable),
          Map.entry("localCannotUnwrap", Pkcs11Scenarios::localCannotUnwrap),
          Map.entry("persistWrite", Pkcs11Scenarios::persistWrite),
          Map.entry("persistReadAndDestroy", Pkcs11Scenarios::persistReadAndDestroy),
          Map.entry("persistDestroyed", Pkcs11Scenarios::persistDestroyed),
          Map.entry("errors", Pkcs11Scenarios::errors),
          Map.entry("labelSelection", Pkcs11Scenarios::labelSelection),
          Map.entry("rotationRace", Pkcs11Scenarios::rotationRace),
          Map.entry("concurrentUse", Pkcs11Scenarios::concurrentUse),
          Map.entry("fromSettings", Pkcs11Scenarios::fromSettings));

  private Pkcs11Scenarios() {}

  public static void main(String[] args) {
    Scenario scenario = args.length == 1 ? SCENARIOS.get(args[0]) : null;
    if (scenario == null) {
      System.out.println("usage: Pkcs11Scenarios <" + String.join("|", SCENARIOS.keySet()) + ">");
      System.exit(2);
    }
    try {
      scenario.run();
      System.out.println("SCENARIO PASSED: " + args[0]);
      System.out.flush();
      System.exit(0);
    } catch (Throwable t) {
      System.out.println("SCENARIO FAILED: " + args[0]);
      t.printStackTrace(System.out);
      System.out.flush();
      System.exit(1);
    }
  }

  // ---------------------------------------------------------------- scenarios

  private static void roundTrip() throws Exception {
    Pkcs11KeyService kms = openByIndex();
    try {
      Instant before = Instant.now().minusSeconds(1);
      KeyInfo info = kms.createKey("pii");
      assertThat(info.id()).isEqualTo("pii");
      assertThat(info.latestVersion()).isEqualTo(1);
      assertThat(info.versions()).containsExactly(1);
      assertThat(info.destroyed()).isFalse();
      assertThat(info.createdAt()).isBetween(before, Instant.now().plusSeconds(1));

      byte[] dek = randomBytes(32);
      String wrapped = kms.wrapKey(dek, "pii");
      assertThat(wrapped).startsWith("vault:v1:");
      byte[] blob = WrappedKey.parse(wrapped).blob();
      assertThat(blob).hasSize(12 + 32 + 16); // nonce || ciphertext || tag, as LocalKeyService
      assertThat(kms.unwrapKey(wrapped, "pii")).isEqualTo(dek);
      String again = kms.wrapKey(dek, "pii");
      assertThat(again).isNotEqualTo(wrapped);
      assertThat(java.util.Arrays.copyOf(WrappedKey.parse(again).blob(), 12))
          .isNotEqualTo(java.util.Arrays.copyOf(blob, 12)); // fresh nonce per wrap
      assertThat(kms.unwrapKey(again, "pii")).isEqualTo(dek);

      assertThatThrownBy(() -> kms.createKey("pii"))
          .isInstanceOf(KeyAlreadyExistsException.class)
          .hasMessageContaining("key 'pii' already exists");
      assertThatThrownBy(() -> kms.describeKey("nope"))
          .isInstanceOf(KeyNotFoundException.class)
          .hasMessageContaining("key 'nope' does not exist");
      assertThatThrownBy(() -> kms.wrapKey(dek, "nope"))
          .isInstanceOf(KeyNotFoundException.class)
          .hasMessageContaining("key 'nope' does not exist on PKCS#11 token");
      assertThatThrownBy(() -> kms.createKey("bad id"))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("Invalid key id 'bad id'");
      assertThatThrownBy(() -> kms.wrapKey(new byte[0], "pii"))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("Cannot wrap a null or empty data key with key 'pii'");
      assertThat(kms.listKeys()).extracting(KeyInfo::id).containsExactly("pii");
      assertThat(kms.describeKey("pii")).isEqualTo(info);
      assertThat(kms.toString()).contains("slot list index 0").doesNotContain(pin());

      kms.close();
      assertThatThrownBy(() -> kms.wrapKey(dek, "pii"))
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("closed");
    } finally {
      kms.close(); // idempotent
    }
  }

  private static void nonExtractable() throws Exception {
    try (Pkcs11KeyService kms = openByIndex()) {
      kms.createKey("pii");
      kms.rotateKey("pii");
      kms.createKey("gone");
      kms.destroyKey("gone");

      // Inspect the token with a provider of our own: the test trusts only what the token reports.
      Provider raw = rawProvider();
      KeyStore ks = KeyStore.getInstance("PKCS11", raw);
      ks.load(null, pin().toCharArray());
      List<String> aliases = Collections.list(ks.aliases());
      // pii#v1, pii#v2, pii#hmac and the tombstone of 'gone': no session copies or unlabelled
      // objects persist.
      assertThat(aliases).hasSize(4);
      assertThat(aliases).filteredOn(a -> a.startsWith("pii#v1#")).hasSize(1);
      assertThat(aliases).filteredOn(a -> a.startsWith("pii#v2#")).hasSize(1);
      assertThat(aliases).filteredOn(a -> a.startsWith("pii#hmac#")).hasSize(1);
      assertThat(aliases).filteredOn(a -> a.startsWith("gone#destroyed#")).hasSize(1);

      KeyPairGenerator rsa = KeyPairGenerator.getInstance("RSA", raw);
      rsa.initialize(2048);
      KeyPair wrapping = rsa.generateKeyPair();
      for (String alias : aliases) {
        SecretKey key = (SecretKey) ks.getKey(alias, null);
        // SunPKCS11 reads CKA_TOKEN, CKA_SENSITIVE and CKA_EXTRACTABLE from the token for toString.
        assertThat(key.toString()).as(alias).contains("token object", "sensitive", "unextractable");
        assertThat(key.getEncoded()).as(alias).isNull();
        assertThat(key.getFormat()).as(alias).isNull();
        if (key.getAlgorithm()
            .equals("AES")) { // SunPKCS11 has no factory for HMAC ("Generic Secret") keys
          assertThatThrownBy(
                  () ->
                      SecretKeyFactory.getInstance("AES", raw).getKeySpec(key, SecretKeySpec.class))
              .as(alias)
              .isInstanceOf(InvalidKeySpecException.class)
              .hasMessageContaining("Could not obtain key bytes");
        }
        // The token itself refuses to export it, even encrypted under a key of its own (C_WrapKey).
        Cipher wrap = Cipher.getInstance("RSA/ECB/PKCS1Padding", raw);
        wrap.init(Cipher.WRAP_MODE, wrapping.getPublic());
        assertThatThrownBy(() -> wrap.wrap(key))
            .as(alias)
            .isInstanceOf(InvalidKeyException.class)
            .hasStackTraceContaining("CKR_KEY_UNEXTRACTABLE");
      }
    }
  }

  private static void rotation() throws Exception {
    try (Pkcs11KeyService kms = openByIndex()) {
      KeyInfo created = kms.createKey("pii");
      byte[] dek1 = randomBytes(32);
      String w1 = kms.wrapKey(dek1, "pii");
      KeyInfo rotated = kms.rotateKey("pii");
      assertThat(rotated.latestVersion()).isEqualTo(2);
      assertThat(rotated.versions()).containsExactly(1, 2);
      assertThat(rotated.createdAt()).isEqualTo(created.createdAt());
      byte[] dek2 = randomBytes(16);
      String w2 = kms.wrapKey(dek2, "pii");
      assertThat(w2).startsWith("vault:v2:");
      assertThat(kms.unwrapKey(w1, "pii")).isEqualTo(dek1); // old blobs keep unwrapping
      assertThat(kms.unwrapKey(w2, "pii")).isEqualTo(dek2);
      assertThat(kms.rotateKey("pii").versions()).containsExactly(1, 2, 3);
      assertThat(kms.wrapKey(dek1, "pii")).startsWith("vault:v3:");
      assertThat(kms.unwrapKey(w1, "pii")).isEqualTo(dek1);
      assertThatThrownBy(() -> kms.rotateKey("nope"))
          .isInstanceOf(KeyNotFoundException.class)
          .hasMessageContaining("key 'nope' does not exist on PKCS#11 token");
    }
  }

  private static void retire() throws Exception {
    try (Pkcs11KeyService kms = openByIndex()) {
      KeyInfo created = kms.createKey("pii");
      byte[] derived = kms.deriveKey("pii", "email");
      byte[] dek1 = randomBytes(32);
      String w1 = kms.wrapKey(dek1, "pii");
      kms.rotateKey("pii");
      String w2 = kms.wrapKey(randomBytes(32), "pii");
      kms.rotateKey("pii");
      byte[] dek3 = randomBytes(32);
      String w3 = kms.wrapKey(dek3, "pii");
      assertThat(kms.unwrapKey(w1, "pii")).isEqualTo(dek1);
      assertThatThrownBy(() -> kms.setMinDecryptionVersion("pii", 4))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("latest version is 3");

      KeyInfo retired = kms.setMinDecryptionVersion("pii", 3);

      assertThat(retired.minDecryptionVersion()).isEqualTo(3);
      assertThat(retired.versions()).containsExactly(3); // the old versions' token objects are gone
      assertThat(retired.createdAt()).isEqualTo(created.createdAt());
      assertThatThrownBy(() -> kms.unwrapKey(w1, "pii"))
          .isInstanceOf(KeyVersionRetiredException.class)
          .hasMessageContaining("key 'pii' v1")
          .hasMessageContaining("minimum decryption version is 3");
      assertThatThrownBy(() -> kms.unwrapKey(w2, "pii"))
          .isInstanceOf(KeyVersionRetiredException.class)
          .hasMessageContaining("key 'pii' v2");
      assertThat(kms.unwrapKey(w3, "pii")).isEqualTo(dek3);
      assertThat(kms.deriveKey("pii", "email"))
          .isEqualTo(derived); // the HMAC key is its own object
      assertThatThrownBy(() -> kms.setMinDecryptionVersion("pii", 2))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining(
              "Cannot lower the minimum decryption version of key 'pii' from 3 to 2");
      assertThat(kms.rotateKey("pii").minDecryptionVersion()).isEqualTo(3);
    }
    try (Pkcs11KeyService reopened = openByIndex()) {
      assertThat(reopened.describeKey("pii").minDecryptionVersion()).isEqualTo(3);
    }
  }

  private static void replayAndTamper() throws Exception {
    try (Pkcs11KeyService kms = openByIndex()) {
      kms.createKey("a");
      kms.createKey("b");
      byte[] dek = randomBytes(32);
      String wa = kms.wrapKey(dek, "a");
      // Same version number, other key id: the associated data (and the key) differ.
      assertThatThrownBy(() -> kms.unwrapKey(wa, "b"))
          .isInstanceOf(KeyIntegrityException.class)
          .hasMessageContaining("authentication failed");

      byte[] blob = WrappedKey.parse(wa).blob();
      blob[20] ^= 1;
      assertThatThrownBy(() -> kms.unwrapKey(WrappedKey.format(1, blob), "a"))
          .isInstanceOf(KeyIntegrityException.class)
          .hasMessageContaining("cannot unwrap with key 'a' v1: authentication failed");
      byte[] truncated = java.util.Arrays.copyOf(WrappedKey.parse(wa).blob(), 27);
      assertThatThrownBy(() -> kms.unwrapKey(WrappedKey.format(1, truncated), "a"))
          .isInstanceOf(KeyIntegrityException.class)
          .hasMessageContaining("too short");
      assertThatThrownBy(() -> kms.unwrapKey("not a blob", "a"))
          .isInstanceOf(KeyIntegrityException.class)
          .hasMessageContaining(
              "cannot unwrap with key 'a': Invalid wrapped key: expected prefix 'vault:v'");

      // A v2 blob relabelled as v1 fails too: the version is authenticated.
      kms.rotateKey("a");
      String w2 = kms.wrapKey(dek, "a");
      String relabelled = "vault:v1:" + w2.substring("vault:v2:".length());
      assertThatThrownBy(() -> kms.unwrapKey(relabelled, "a"))
          .isInstanceOf(KeyIntegrityException.class)
          .hasMessageContaining("cannot unwrap with key 'a' v1: authentication failed");
      assertThatThrownBy(() -> kms.unwrapKey("vault:v9:" + w2.substring("vault:v2:".length()), "a"))
          .isInstanceOf(KeyNotFoundException.class)
          .hasMessageContaining("has no version 9");
      assertThat(kms.unwrapKey(wa, "a")).isEqualTo(dek);
    }
  }

  private static void destroy() throws Exception {
    try (Pkcs11KeyService kms = openByIndex()) {
      kms.createKey("pii");
      kms.rotateKey("pii");
      kms.createKey("keep");
      byte[] dek = randomBytes(32);
      String wrapped = kms.wrapKey(dek, "pii");
      String kept = kms.wrapKey(dek, "keep");

      kms.destroyKey("pii");
      assertThatThrownBy(() -> kms.unwrapKey(wrapped, "pii"))
          .isInstanceOf(KeyDestroyedException.class)
          .hasMessageContaining("key 'pii' was destroyed");
      assertThatThrownBy(() -> kms.wrapKey(dek, "pii"))
          .isInstanceOf(KeyDestroyedException.class)
          .hasMessageContainingAll("key 'pii' was destroyed", "cannot wrap");
      assertThatThrownBy(() -> kms.deriveKey("pii", "ctx"))
          .isInstanceOf(KeyDestroyedException.class)
          .hasMessageContainingAll("key 'pii' was destroyed", "cannot deriveKey");
      assertThatThrownBy(() -> kms.rotateKey("pii"))
          .isInstanceOf(KeyDestroyedException.class)
          .hasMessageContainingAll("key 'pii' was destroyed", "cannot rotate");
      assertThatThrownBy(() -> kms.createKey("pii"))
          .isInstanceOf(KeyDestroyedException.class)
          .hasMessageContaining("never reused");
      kms.destroyKey("pii"); // idempotent
      KeyInfo info = kms.describeKey("pii");
      assertThat(info.destroyed()).isTrue();
      assertThat(info.versions()).isEmpty();
      assertThat(info.latestVersion()).isEqualTo(2);
      assertThat(kms.listKeys())
          .extracting(KeyInfo::id, KeyInfo::destroyed)
          .containsExactly(
              org.assertj.core.groups.Tuple.tuple("keep", false),
              org.assertj.core.groups.Tuple.tuple("pii", true));
      // "destroyed" is told apart from "never existed".
      assertThatThrownBy(() -> kms.describeKey("never"))
          .isInstanceOf(KeyNotFoundException.class)
          .hasMessageContaining("key 'never' does not exist on PKCS#11 token");
      assertThatThrownBy(() -> kms.destroyKey("never"))
          .isInstanceOf(KeyNotFoundException.class)
          .hasMessageContaining("key 'never' does not exist on PKCS#11 token");
      assertThat(kms.unwrapKey(kept, "keep")).isEqualTo(dek);

      // Every version object and the HMAC key are gone from the token; only the tombstone is left.
      KeyStore ks = KeyStore.getInstance("PKCS11", rawProvider());
      ks.load(null, pin().toCharArray());
      assertThat(Collections.list(ks.aliases()))
          .filteredOn(a -> a.startsWith("pii#"))
          .singleElement()
          .asString()
          .startsWith("pii#destroyed#");
    }
  }

  private static void deriveStable() throws Exception {
    byte[] first;
    try (Pkcs11KeyService kms = openByIndex()) {
      kms.createKey("pii");
      kms.createKey("other");
      first = kms.deriveKey("pii", "hash-mask:db.t.email");
      assertThat(first).hasSize(32);
      kms.rotateKey("pii");
      kms.rotateKey("pii");
      assertThat(kms.deriveKey("pii", "hash-mask:db.t.email")).isEqualTo(first);
      assertThat(kms.deriveKey("pii", "hash-mask:db.t.phone")).isNotEqualTo(first);
      assertThat(kms.deriveKey("other", "hash-mask:db.t.email")).isNotEqualTo(first);
      assertThat(kms.deriveKey("pii", "")).hasSize(32);
    }
    try (Pkcs11KeyService reopened = openByLabel("test")) {
      assertThat(reopened.deriveKey("pii", "hash-mask:db.t.email")).isEqualTo(first);
    }
  }

  private static void localCannotUnwrap() throws Exception {
    Path dir = Path.of(System.getenv(ENV_DIR));
    byte[] dek = randomBytes(32);
    try (Pkcs11KeyService token = openByIndex();
        Passphrase pass = Passphrase.of("local passphrase".toCharArray());
        LocalKeyService local = LocalKeyService.open(dir.resolve("local.p12"), pass, true)) {
      token.createKey("pii");
      local.createKey("pii");
      String fromToken = token.wrapKey(dek, "pii");
      String fromLocal = local.wrapKey(dek, "pii");
      // One format: same prefix and blob layout ...
      assertThat(fromToken).startsWith("vault:v1:");
      assertThat(fromLocal).startsWith("vault:v1:");
      assertThat(WrappedKey.parse(fromToken).blob())
          .hasSameSizeAs(WrappedKey.parse(fromLocal).blob());
      // ... but different key material: the token's key never left the token.
      assertThatThrownBy(() -> local.unwrapKey(fromToken, "pii"))
          .isInstanceOf(KeyIntegrityException.class)
          .hasMessageContaining("cannot unwrap with key 'pii' v1: authentication failed");
      assertThatThrownBy(() -> token.unwrapKey(fromLocal, "pii"))
          .isInstanceOf(KeyIntegrityException.class)
          .hasMessageContaining("cannot unwrap with key 'pii' v1: authentication failed");
      assertThat(token.deriveKey("pii", "ctx")).isNotEqualTo(local.deriveKey("pii", "ctx"));
      assertThat(token.unwrapKey(fromToken, "pii")).isEqualTo(dek);
      assertThat(local.unwrapKey(fromLocal, "pii")).isEqualTo(dek);
    }
  }

  /** First JVM: creates a key, wraps, records the blob. */
  private static void persistWrite() throws Exception {
    Path dir = Path.of(System.getenv(ENV_DIR));
    byte[] dek = randomBytes(32);
    try (Pkcs11KeyService kms = openByIndex()) {
      kms.createKey("pii");
      String wrapped = kms.wrapKey(dek, "pii");
      String derived = HexFormat.of().formatHex(kms.deriveKey("pii", "ctx"));
      Files.writeString(
          dir.resolve("persist.txt"),
          Base64.getEncoder().encodeToString(dek) + "\n" + wrapped + "\n" + derived + "\n");
    }
  }

  /** Second JVM (fresh login): the token objects persisted; then destroys the key. */
  private static void persistReadAndDestroy() throws Exception {
    List<String> lines = Files.readAllLines(Path.of(System.getenv(ENV_DIR)).resolve("persist.txt"));
    byte[] dek = Base64.getDecoder().decode(lines.get(0));
    try (Passphrase pin = Passphrase.fromFile(pinFile());
        Pkcs11KeyService kms = Pkcs11KeyService.open(library(), "test", pin)) {
      assertThat(kms.unwrapKey(lines.get(1), "pii")).isEqualTo(dek);
      assertThat(HexFormat.of().formatHex(kms.deriveKey("pii", "ctx"))).isEqualTo(lines.get(2));
      kms.destroyKey("pii");
    }
  }

  /** Third JVM: the tombstone persisted too. */
  private static void persistDestroyed() throws Exception {
    List<String> lines = Files.readAllLines(Path.of(System.getenv(ENV_DIR)).resolve("persist.txt"));
    try (Pkcs11KeyService kms = openByIndex()) {
      assertThatThrownBy(() -> kms.unwrapKey(lines.get(1), "pii"))
          .isInstanceOf(KeyDestroyedException.class)
          .hasMessageContainingAll("key 'pii' was destroyed", "cannot unwrap");
      assertThat(kms.describeKey("pii").destroyed()).isTrue();
    }
  }

  private static void errors() throws Exception {
    Path missing = Path.of("/nonexistent/libpkcs11-missing.so");
    try (Passphrase pin = Passphrase.fromEnv(ENV_PIN);
        Passphrase wrong = Passphrase.of("9999".toCharArray())) {
      assertThatThrownBy(() -> Pkcs11KeyService.open(missing, 0, pin))
          .isInstanceOf(KeyServiceException.class)
          .hasMessageContaining("PKCS#11 library " + missing + " does not exist");
      // First login of this JVM, so the token itself checks the PIN.
      assertThatThrownBy(() -> Pkcs11KeyService.open(library(), 0, wrong))
          .isInstanceOf(KeyServiceException.class)
          .hasMessageContaining("wrong user PIN")
          .hasMessageContaining("CKR_PIN_INCORRECT")
          .hasMessageNotContaining("9999");
      assertThatThrownBy(() -> Pkcs11KeyService.open(library(), "nope", pin))
          .isInstanceOf(KeyServiceException.class)
          .hasMessageContaining("no PKCS#11 token labelled 'nope'")
          .hasMessageContaining("'test'");
      assertThatThrownBy(() -> Pkcs11KeyService.open(library(), 7, pin))
          .isInstanceOf(KeyServiceException.class)
          .hasMessageContaining("slotListIndex is 7");
      assertThatThrownBy(() -> Pkcs11KeyService.builder(library()).pin(pin).build())
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("exactly one");
      assertThatThrownBy(
              () ->
                  Pkcs11KeyService.builder(library())
                      .slotListIndex(0)
                      .tokenLabel("test")
                      .pin(pin)
                      .build())
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining(
              "Select the PKCS#11 token by exactly one of slot list index, slot id or token label (got 2)");
      assertThatThrownBy(() -> Pkcs11KeyService.builder(library()).slotListIndex(0).build())
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("PIN");

      try (Pkcs11KeyService first = Pkcs11KeyService.open(library(), 0, pin)) {
        first.createKey("pii");
        // This JVM is logged in now; a second open must still present the right PIN.
        assertThatThrownBy(() -> Pkcs11KeyService.open(library(), 0, wrong))
            .isInstanceOf(KeyServiceException.class)
            .hasMessageContaining("wrong user PIN");
        try (Pkcs11KeyService second = Pkcs11KeyService.open(library(), 0, pin)) {
          assertThat(second.describeKey("pii").latestVersion()).isEqualTo(1);
        }
        // Closing the second did not log out the first.
        assertThat(first.unwrapKey(first.wrapKey(new byte[] {7}, "pii"), "pii")).containsExactly(7);
      }
      // After the last close the token is logged out: the PIN is checked by the token again.
      assertThatThrownBy(() -> Pkcs11KeyService.open(library(), 0, wrong))
          .isInstanceOf(KeyServiceException.class)
          .hasMessageContaining("CKR_PIN_INCORRECT");
    }
  }

  private static void labelSelection() throws Exception {
    byte[] dek = randomBytes(32);
    try (Pkcs11KeyService test = openByLabel("test");
        Pkcs11KeyService other = openByLabel("other")) {
      test.createKey("pii");
      assertThat(other.listKeys()).isEmpty();
      other.createKey("pii");
      String wrapped = test.wrapKey(dek, "pii");
      assertThatThrownBy(() -> other.unwrapKey(wrapped, "pii"))
          .isInstanceOf(KeyIntegrityException.class)
          .hasMessageContaining("cannot unwrap with key 'pii' v1: authentication failed");
      assertThat(test.toString()).contains("'test'");
      assertThat(other.toString()).contains("'other'");
      try (Passphrase pin = Passphrase.fromEnv(ENV_PIN)) {
        assertThatThrownBy(() -> Pkcs11KeyService.open(library(), "nope", pin))
            .hasMessageContaining("'test'")
            .hasMessageContaining("'other'");
      }
    }
    // Index and label selection share one login per token: exactly one index reaches 'test'.
    try (Pkcs11KeyService test = openByLabel("test");
        Passphrase pin = envPin()) {
      Pkcs11KeyService index0 = Pkcs11KeyService.open(library(), 0, pin);
      Pkcs11KeyService index1 = Pkcs11KeyService.open(library(), 1, pin);
      String wrapped = test.wrapKey(dek, "pii");
      int reached = 0;
      for (Pkcs11KeyService byIndex : List.of(index0, index1)) {
        try {
          assertThat(byIndex.unwrapKey(wrapped, "pii")).isEqualTo(dek);
          reached++;
        } catch (KeyIntegrityException e) {
          // the other token
        }
      }
      assertThat(reached).isEqualTo(1);
      index0.close();
      index1.close();
      assertThat(test.unwrapKey(wrapped, "pii"))
          .isEqualTo(dek); // still logged in: the sessions are shared
    }
  }

  /**
   * Two processes rotating at once can each create a version-2 object. Simulated here by adding a
   * second v2 object by hand: the token must stay usable (no duplicate CKA_LABEL), and blobs under
   * either object unwrap.
   */
  private static void rotationRace() throws Exception {
    try (Pkcs11KeyService kms =
        Pkcs11KeyService.builder(library())
            .slotListIndex(0)
            .pin(envPin())
            .refreshInterval(Duration.ZERO)
            .build()) {
      kms.createKey("pii");
      kms.rotateKey("pii");
      byte[] dek = randomBytes(32);
      String underFirst = kms.wrapKey(dek, "pii");

      Provider raw = rawProvider();
      KeyStore ks = KeyStore.getInstance("PKCS11", raw);
      ks.load(null, pin().toCharArray());
      KeyGenerator aes = KeyGenerator.getInstance("AES", raw);
      aes.init(256);
      // Older timestamp: the racing object becomes the one wrap picks.
      ks.setEntry(
          Labels.version("pii", 2, 0L, randomBytes(8)),
          new KeyStore.SecretKeyEntry(aes.generateKey()),
          null);

      String underSecond = kms.wrapKey(dek, "pii");
      assertThat(underSecond).startsWith("vault:v2:");
      assertThat(kms.unwrapKey(underFirst, "pii")).isEqualTo(dek);
      assertThat(kms.unwrapKey(underSecond, "pii")).isEqualTo(dek);
      assertThat(kms.describeKey("pii").versions()).containsExactly(1, 2);

      kms.destroyKey("pii");
      ks.load(null, pin().toCharArray());
      assertThat(Collections.list(ks.aliases()))
          .filteredOn(a -> a.startsWith("pii#"))
          .allMatch(a -> a.startsWith("pii#destroyed#"));
    }
  }

  private static void concurrentUse() throws Exception {
    try (Pkcs11KeyService kms = openByIndex()) {
      kms.createKey("pii");
      ExecutorService pool = Executors.newFixedThreadPool(8);
      try {
        List<Future<?>> futures = new ArrayList<>();
        for (int t = 0; t < 8; t++) {
          int thread = t;
          futures.add(
              pool.submit(
                  () -> {
                    for (int i = 0; i < 50; i++) {
                      byte[] dek = randomBytes(32);
                      assertThat(kms.unwrapKey(kms.wrapKey(dek, "pii"), "pii")).isEqualTo(dek);
                      if (thread == 0 && i == 25) {
                        kms.rotateKey("pii");
                      }
                      assertThat(kms.deriveKey("pii", "c" + i)).hasSize(32);
                    }
                    return null;
                  }));
        }
        for (Future<?> f : futures) {
          f.get(60, TimeUnit.SECONDS);
        }
      } finally {
        pool.shutdownNow();
      }
      assertThat(kms.describeKey("pii").latestVersion()).isEqualTo(2);
    }
  }

  /**
   * The token as every user selects it: catalog options read by KmsSettings, opened by KeyServices,
   * the PIN from a variable or a file, and the policy's rule in front of it.
   */
  private static void fromSettings() throws Exception {
    Map<String, String> options =
        new java.util.HashMap<>(
            Map.of(
                KmsOptions.TYPE.key(),
                "pkcs11",
                KmsOptions.PKCS11_LIBRARY.key(),
                library().toString(),
                KmsOptions.TOKEN_LABEL.key(),
                "test",
                KmsOptions.PIN_ENV.key(),
                ENV_PIN));
    byte[] dek = randomBytes(32);
    String wrapped;
    try (KeyService byEnv = KeyServices.open(KmsSettings.fromOptions(options, "catalog 'hsm'"))) {
      assertThat(byEnv).isInstanceOf(Pkcs11KeyService.class);
      byEnv.createKey("pii");
      wrapped = byEnv.wrapKey(dek, "pii");
    }
    options.remove(KmsOptions.PIN_ENV.key());
    options.put(KmsOptions.PIN_FILE.key(), pinFile().toString());
    options.remove(KmsOptions.TOKEN_LABEL.key());
    options.put(KmsOptions.SLOT_LIST_INDEX.key(), "0");
    Policy policy =
        Policy.parse(
            """
        protector {
          roles { reader { users = [alice] } }
          keys { pii {}, footer {} }
          tables { "db.t" { footer-key = footer, columns { ssn { key = pii, clear = [reader] } } } }
        }
        """,
            "hsm-policy.conf");
    try (KeyService byFile = KeyServices.open(KmsSettings.fromOptions(options, "catalog 'hsm'"))) {
      assertThat(
              new AuthorizingKeyService(byFile, policy, Principal.user("alice"))
                  .unwrapKey(wrapped, "pii"))
          .isEqualTo(dek);
      assertThatThrownBy(
              () ->
                  new AuthorizingKeyService(byFile, policy, Principal.user("bob"))
                      .unwrapKey(wrapped, "pii"))
          .isInstanceOf(KeyAccessDeniedException.class)
          .hasMessageContaining("principal 'bob[]' is not allowed to unwrap with key 'pii'");
    }

    // A wrong PIN is named as such, never shown; a missing PIN file names the file.
    Path wrongPin =
        Files.writeString(Path.of(System.getenv(ENV_DIR)).resolve("wrong-pin"), "98765\n");
    options.put(KmsOptions.PIN_FILE.key(), wrongPin.toString());
    assertThatThrownBy(() -> KeyServices.open(KmsSettings.fromOptions(options, "catalog 'hsm'")))
        .isInstanceOf(KeyServiceException.class)
        .hasMessageContaining("wrong user PIN")
        .hasMessageNotContaining("98765");
    Path noPin = Path.of(System.getenv(ENV_DIR)).resolve("no-such-pin");
    options.put(KmsOptions.PIN_FILE.key(), noPin.toString());
    assertThatThrownBy(() -> KeyServices.open(KmsSettings.fromOptions(options, "catalog 'hsm'")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("file " + noPin + " does not exist");
  }

  // ---------------------------------------------------------------- helpers

  private static Path library() {
    return Path.of(System.getenv(ENV_LIBRARY));
  }

  private static String pin() {
    return System.getenv(ENV_PIN);
  }

  private static Passphrase envPin() {
    return Passphrase.fromEnv(ENV_PIN);
  }

  private static Path pinFile() throws Exception {
    Path file = Path.of(System.getenv(ENV_DIR)).resolve("pin.txt");
    Files.writeString(file, pin() + "\n", StandardCharsets.UTF_8);
    return file;
  }

  private static Pkcs11KeyService openByIndex() {
    try (Passphrase pin = envPin()) {
      return Pkcs11KeyService.open(library(), 0, pin);
    }
  }

  private static Pkcs11KeyService openByLabel(String label) {
    try (Passphrase pin = envPin()) {
      return Pkcs11KeyService.open(library(), label, pin);
    }
  }

  /** A plain SunPKCS11 provider on the first token, independent of the code under test. */
  private static Provider rawProvider() {
    return Security.getProvider("SunPKCS11")
        .configure("--name = TestInspector\nlibrary = \"" + library() + "\"\nslotListIndex = 0\n");
  }

  private static byte[] randomBytes(int n) {
    byte[] b = new byte[n];
    RANDOM.nextBytes(b);
    return b;
  }
}
