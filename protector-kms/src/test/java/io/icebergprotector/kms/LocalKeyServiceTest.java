/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.kms;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.KeyStore;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LocalKeyServiceTest {
  private static final char[] PASS = "correct horse battery staple".toCharArray();

  @TempDir Path dir;
  private Path store;
  private LocalKeyService kms;

  @BeforeEach
  void setUp() {
    store = dir.resolve("keys.p12");
    kms = open(store);
  }

  @AfterEach
  void tearDown() {
    kms.close();
  }

  private static LocalKeyService open(Path path) {
    try (Passphrase p = Passphrase.of(PASS)) {
      return LocalKeyService.open(path, p, true);
    }
  }

  private static byte[] dek() {
    byte[] dek = new byte[16];
    new java.security.SecureRandom().nextBytes(dek);
    return dek;
  }

  @Test
  void createWrapUnwrapRoundTrip() {
    KeyInfo info = kms.createKey("pii");
    assertThat(info.id()).isEqualTo("pii");
    assertThat(info.latestVersion()).isEqualTo(1);
    assertThat(info.versions()).containsExactly(1);
    assertThat(info.destroyed()).isFalse();
    assertThat(info.createdAt()).isNotNull();

    byte[] dek = dek();
    String wrapped = kms.wrapKey(dek, "pii");
    assertThat(wrapped).startsWith("vault:v1:");
    WrappedKey parsed = WrappedKey.parse(wrapped);
    assertThat(parsed.blob()).hasSize(12 + dek.length + 16);
    assertThat(kms.unwrapKey(wrapped, "pii")).containsExactly(dek);
    // Fresh nonce every time.
    assertThat(kms.wrapKey(dek, "pii")).isNotEqualTo(wrapped);
  }

  @Test
  void storeFileIsOwnerOnly() throws Exception {
    if (Files.getFileStore(store).supportsFileAttributeView("posix")) {
      assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(store)))
          .isEqualTo("rw-------");
      kms.createKey("pii");
      assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(store)))
          .isEqualTo("rw-------");
    }
  }

  @Test
  void rotationKeepsOldVersionsAndWrapsWithLatest() {
    kms.createKey("pii");
    byte[] dek1 = dek();
    String w1 = kms.wrapKey(dek1, "pii");
    KeyInfo rotated = kms.rotateKey("pii");
    assertThat(rotated.latestVersion()).isEqualTo(2);
    assertThat(rotated.versions()).containsExactly(1, 2);

    byte[] dek2 = dek();
    String w2 = kms.wrapKey(dek2, "pii");
    assertThat(w2).startsWith("vault:v2:");
    assertThat(kms.unwrapKey(w1, "pii")).containsExactly(dek1);
    assertThat(kms.unwrapKey(w2, "pii")).containsExactly(dek2);

    // Relabel a v1 blob as v2: the AAD binds the version, so this fails.
    String relabeled = "vault:v2:" + w1.substring("vault:v1:".length());
    assertThatThrownBy(() -> kms.unwrapKey(relabeled, "pii"))
        .isInstanceOf(KeyIntegrityException.class)
        .hasMessageContaining("cannot unwrap with key 'pii' v2: authentication failed");
    // Unknown version names id and version.
    String future = "vault:v9:" + w1.substring("vault:v1:".length());
    assertThatThrownBy(() -> kms.unwrapKey(future, "pii"))
        .isInstanceOf(KeyNotFoundException.class)
        .hasMessageContaining("'pii'")
        .hasMessageContaining("version 9");
  }

  @Test
  void listAndDescribe() {
    kms.createKey("b-key");
    kms.createKey("a.key");
    kms.rotateKey("b-key");
    assertThat(kms.listKeys()).extracting(KeyInfo::id).containsExactly("a.key", "b-key");
    KeyInfo b = kms.describeKey("b-key");
    assertThat(b.latestVersion()).isEqualTo(2);
    assertThat(b.versions()).containsExactly(1, 2);
    assertThatThrownBy(() -> kms.describeKey("nope"))
        .isInstanceOf(KeyNotFoundException.class)
        .hasMessageContaining("'nope'");
    assertThatThrownBy(() -> kms.rotateKey("nope"))
        .isInstanceOf(KeyNotFoundException.class)
        .hasMessageContaining("key 'nope' does not exist");
    assertThatThrownBy(() -> kms.wrapKey(dek(), "nope"))
        .isInstanceOf(KeyNotFoundException.class)
        .hasMessageContaining("key 'nope' does not exist");
    assertThatThrownBy(() -> kms.createKey("a.key"))
        .isInstanceOf(KeyAlreadyExistsException.class)
        .hasMessageContaining("'a.key'");
  }

  @Test
  void destroyShredsMaterialAndKeepsTombstone() throws Exception {
    kms.createKey("pii");
    kms.rotateKey("pii");
    kms.createKey("other");
    byte[] dek = dek();
    String wrapped = kms.wrapKey(dek, "pii");
    assertThat(rawAliases())
        .contains(KeystoreAliases.alias("pii", 1), KeystoreAliases.alias("pii", 2));

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

    // The material is gone from the file itself, not just hidden.
    List<String> aliases = rawAliases();
    assertThat(aliases)
        .doesNotContain(KeystoreAliases.alias("pii", 1), KeystoreAliases.alias("pii", 2));
    assertThat(aliases).contains(KeystoreAliases.alias("other", 1), LocalKeyService.METADATA_ALIAS);

    // Also after reopening.
    try (LocalKeyService reopened = open(store)) {
      assertThatThrownBy(() -> reopened.unwrapKey(wrapped, "pii"))
          .isInstanceOf(KeyDestroyedException.class)
          .hasMessageContainingAll("key 'pii' was destroyed", "cannot unwrap");
      assertThat(reopened.describeKey("pii").destroyed()).isTrue();
    }
  }

  private List<String> rawAliases() throws Exception {
    KeyStore raw = KeyStore.getInstance("PKCS12");
    raw.load(new ByteArrayInputStream(Files.readAllBytes(store)), PASS);
    return Collections.list(raw.aliases());
  }

  @Test
  void replayUnderAnotherKeyFails() {
    kms.createKey("pii");
    kms.createKey("finance");
    String wrapped = kms.wrapKey(dek(), "pii");
    assertThatThrownBy(() -> kms.unwrapKey(wrapped, "finance"))
        .isInstanceOf(KeyIntegrityException.class)
        .hasMessageContaining("'finance'");
  }

  @Test
  void tamperedBlobFails() {
    kms.createKey("pii");
    String wrapped = kms.wrapKey(dek(), "pii");
    byte[] blob = WrappedKey.parse(wrapped).blob();
    for (int i : new int[] {0, 11, 12, blob.length - 1}) {
      byte[] copy = blob.clone();
      copy[i] ^= 0x01;
      String tampered = WrappedKey.format(1, copy);
      assertThatThrownBy(() -> kms.unwrapKey(tampered, "pii"))
          .as("flipped byte %d", i)
          .isInstanceOf(KeyIntegrityException.class)
          .hasMessageContaining("'pii'");
    }
    byte[] truncated = java.util.Arrays.copyOf(blob, 20);
    assertThatThrownBy(() -> kms.unwrapKey(WrappedKey.format(1, truncated), "pii"))
        .isInstanceOf(KeyIntegrityException.class)
        .hasMessageContaining("too short");
  }

  @Test
  void malformedWrappedStringsAreIntegrityErrors() {
    kms.createKey("pii");
    for (String bad :
        new String[] {"", "garbage", "vault:v0:AAAA", "vault:vX:AAAA", "vault:v1:%%%", null}) {
      assertThatThrownBy(() -> kms.unwrapKey(bad, "pii"))
          .as("input %s", bad)
          .isInstanceOf(KeyIntegrityException.class)
          .hasMessageContaining("Invalid wrapped key");
    }
  }

  @Test
  void wrongPassphraseIsAClearError() {
    kms.createKey("pii");
    try (Passphrase wrong = Passphrase.of("nope".toCharArray())) {
      assertThatThrownBy(() -> LocalKeyService.open(store, wrong, false))
          .isInstanceOf(KeyServiceException.class)
          .hasMessage(
              "cannot open keystore "
                  + store.toAbsolutePath()
                  + ": wrong passphrase or corrupted file");
    }
  }

  @Test
  void corruptedFileIsAClearError() throws Exception {
    Path other = dir.resolve("corrupt.p12");
    Files.write(other, "not a keystore".getBytes(StandardCharsets.UTF_8));
    try (Passphrase p = Passphrase.of(PASS)) {
      assertThatThrownBy(() -> LocalKeyService.open(other, p, false))
          .isInstanceOf(KeyServiceException.class)
          .hasMessageContaining("wrong passphrase or corrupted file");
    }
  }

  @Test
  void missingFileWithoutCreateIsAClearError() {
    Path missing = dir.resolve("missing.p12");
    try (Passphrase p = Passphrase.of(PASS)) {
      assertThatThrownBy(() -> LocalKeyService.open(missing, p, false))
          .isInstanceOf(KeyServiceException.class)
          .hasMessageContaining(missing.toString())
          .hasMessageContaining("does not exist");
    }
    assertThat(missing).doesNotExist();
  }

  @Test
  void passphraseFromEnvAndFile() throws Exception {
    kms.createKey("pii");
    String wrapped = kms.wrapKey(new byte[] {1, 2, 3}, "pii");
    try (Passphrase env =
            Passphrase.fromEnv("KMS_PASS", java.util.Map.of("KMS_PASS", new String(PASS) + "\n"));
        LocalKeyService viaEnv = LocalKeyService.open(store, env, false)) {
      assertThat(viaEnv.unwrapKey(wrapped, "pii")).containsExactly(1, 2, 3);
    }
    Path file = Files.writeString(dir.resolve("pass.txt"), new String(PASS) + "\n");
    try (Passphrase fromFile = Passphrase.fromFile(file);
        LocalKeyService viaFile = LocalKeyService.open(store, fromFile, false)) {
      assertThat(viaFile.unwrapKey(wrapped, "pii")).containsExactly(1, 2, 3);
    }
  }

  @Test
  void keyIdValidation() {
    for (String bad :
        new String[] {"", "has space", "slash/no", "ümlaut", "x".repeat(129), "a#v1", null}) {
      assertThatThrownBy(() -> kms.createKey(bad))
          .as("id %s", bad)
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("Invalid key id '" + bad + "'");
    }
    assertThatThrownBy(() -> kms.wrapKey(dek(), "bad id"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("Invalid key id 'bad id'");
    kms.createKey("x".repeat(128));
    kms.createKey("A-z_0.9");
  }

  @Test
  void keyIdsAreCaseSensitiveDespitePkcs12Aliases() throws Exception {
    kms.createKey("PII");
    kms.createKey("pii");
    assertThat(kms.listKeys()).extracting(KeyInfo::id).containsExactly("PII", "pii");
    String upper = kms.wrapKey(new byte[] {1}, "PII");
    assertThatThrownBy(() -> kms.unwrapKey(upper, "pii"))
        .isInstanceOf(KeyIntegrityException.class)
        .hasMessageContaining("cannot unwrap with key 'pii' v1: authentication failed");
    kms.destroyKey("pii");
    assertThat(kms.unwrapKey(upper, "PII")).containsExactly(1);
    try (LocalKeyService reopened = open(store)) {
      assertThat(reopened.unwrapKey(upper, "PII")).containsExactly(1);
      assertThat(reopened.describeKey("pii").destroyed()).isTrue();
      assertThat(reopened.describeKey("PII").destroyed()).isFalse();
    }
    assertThat(rawAliases())
        .contains(KeystoreAliases.alias("PII", 1))
        .doesNotContain(KeystoreAliases.alias("pii", 1));
  }

  @Test
  void reopenPersistsEverything() {
    KeyInfo created = kms.createKey("pii");
    kms.rotateKey("pii");
    byte[] dek = dek();
    String wrapped = kms.wrapKey(dek, "pii");
    byte[] derived = kms.deriveKey("pii", "ctx");
    kms.close();
    kms = open(store);
    KeyInfo info = kms.describeKey("pii");
    assertThat(info.latestVersion()).isEqualTo(2);
    assertThat(info.createdAt()).isEqualTo(created.createdAt());
    assertThat(kms.unwrapKey(wrapped, "pii")).containsExactly(dek);
    assertThat(kms.deriveKey("pii", "ctx")).containsExactly(derived);
  }

  @Test
  void deriveKeyIsHmacOfVersionOneStableAcrossRotationAndDistinctPerKey() throws Exception {
    kms.createKey("pii");
    kms.createKey("finance");
    byte[] before = kms.deriveKey("pii", "db.customers.ssn");
    assertThat(before).hasSize(32);
    kms.rotateKey("pii");
    kms.rotateKey("pii");
    assertThat(kms.deriveKey("pii", "db.customers.ssn")).containsExactly(before);
    assertThat(kms.deriveKey("pii", "db.customers.email")).isNotEqualTo(before);
    assertThat(kms.deriveKey("finance", "db.customers.ssn")).isNotEqualTo(before);

    // It really is HMAC-SHA256 keyed by the version-1 material.
    KeyStore raw = KeyStore.getInstance("PKCS12");
    raw.load(new ByteArrayInputStream(Files.readAllBytes(store)), PASS);
    byte[] material = raw.getKey(KeystoreAliases.alias("pii", 1), PASS).getEncoded();
    Mac mac = Mac.getInstance("HmacSHA256");
    mac.init(new SecretKeySpec(material, "HmacSHA256"));
    assertThat(mac.doFinal("db.customers.ssn".getBytes(StandardCharsets.UTF_8)))
        .containsExactly(before);
  }

  @Test
  void secondInstanceSeesRotationAndNewKeysOfTheFirst() {
    kms.createKey("pii");
    try (LocalKeyService other = open(store)) {
      kms.rotateKey("pii");
      kms.createKey("late");
      String w = kms.wrapKey(new byte[] {7}, "pii");
      assertThat(other.unwrapKey(w, "pii")).containsExactly(7);
      assertThat(other.wrapKey(new byte[] {8}, "late")).startsWith("vault:v1:");
      // Wraps on the other instance use the rotated version.
      assertThat(other.wrapKey(new byte[] {9}, "pii")).startsWith("vault:v2:");
      other.destroyKey("late");
      assertThatThrownBy(() -> kms.wrapKey(new byte[] {1}, "late"))
          .isInstanceOf(KeyDestroyedException.class)
          .hasMessageContainingAll("key 'late' was destroyed", "cannot wrap");
    }
  }

  @Test
  void staleTempFileDoesNotBreakOpenAndIsCleaned() throws Exception {
    kms.createKey("pii");
    String wrapped = kms.wrapKey(new byte[] {5}, "pii");
    kms.close();
    Path temp = dir.resolve(".keys.p12" + LocalKeyService.TEMP_MARKER + "deadbeef");
    Files.write(temp, java.util.Arrays.copyOf(Files.readAllBytes(store), 100)); // partial write
    kms = open(store);
    assertThat(kms.unwrapKey(wrapped, "pii")).containsExactly(5);
    assertThat(temp).doesNotExist();
  }

  @Test
  void closedServiceRefusesWork() {
    kms.createKey("pii");
    kms.close();
    assertThatThrownBy(() -> kms.wrapKey(new byte[] {1}, "pii"))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContainingAll("Key service for keystore", "is closed");
    assertThatThrownBy(() -> kms.createKey("x"))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContainingAll("Key service for keystore", "is closed");
    kms.close(); // idempotent
  }

  @Test
  void concurrentThreadsNeverLoseKeys() throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(4);
    try (LocalKeyService second = open(store)) {
      List<Future<?>> futures = new java.util.ArrayList<>();
      for (int t = 0; t < 4; t++) {
        int thread = t;
        LocalKeyService target = thread % 2 == 0 ? kms : second; // two instances on one file, too
        futures.add(
            pool.submit(
                () -> {
                  for (int i = 0; i < 5; i++) {
                    String id = "t" + thread + "-" + i;
                    target.createKey(id);
                    byte[] dek = dek();
                    assertThat(target.unwrapKey(target.wrapKey(dek, id), id)).containsExactly(dek);
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
    assertThat(kms.listKeys()).hasSize(20);
  }

  @Test
  void messagesNeverContainMaterial() throws Exception {
    kms.createKey("pii");
    String wrapped = kms.wrapKey(new byte[] {1}, "pii");
    KeyStore raw = KeyStore.getInstance("PKCS12");
    raw.load(new ByteArrayInputStream(Files.readAllBytes(store)), PASS);
    String b64 =
        Base64.getEncoder()
            .encodeToString(raw.getKey(KeystoreAliases.alias("pii", 1), PASS).getEncoded());
    kms.createKey("finance");
    assertThatThrownBy(() -> kms.unwrapKey(wrapped, "finance"))
        .satisfies(e -> assertThat(String.valueOf(e.getMessage())).doesNotContain(b64));
    assertThat(kms.toString()).doesNotContain(new String(PASS));
  }

  // ---------------------------------------------------------------- minimum decryption version
  // (keys retire)

  @Test
  void retiredVersionsNoLongerUnwrapAndTheErrorNamesKeyVersionAndMinimum() {
    kms.createKey("pii");
    byte[] dek1 = dek();
    String w1 = kms.wrapKey(dek1, "pii");
    kms.rotateKey("pii");
    byte[] dek2 = dek();
    String w2 = kms.wrapKey(dek2, "pii");
    kms.rotateKey("pii");
    byte[] dek3 = dek();
    String w3 = kms.wrapKey(dek3, "pii");
    assertThat(kms.unwrapKey(w1, "pii")).isEqualTo(dek1); // fills the material cache for v1

    KeyInfo info = kms.setMinDecryptionVersion("pii", 3);

    assertThat(info.minDecryptionVersion()).isEqualTo(3);
    assertThat(info.latestVersion()).isEqualTo(3);
    assertThat(kms.describeKey("pii").minDecryptionVersion()).isEqualTo(3);
    assertThat(kms.listKeys()).extracting(KeyInfo::minDecryptionVersion).containsExactly(3);
    assertThatThrownBy(() -> kms.unwrapKey(w1, "pii"))
        .isInstanceOf(KeyVersionRetiredException.class)
        .hasMessageContaining("key 'pii' v1")
        .hasMessageContaining("minimum decryption version is 3");
    assertThatThrownBy(() -> kms.unwrapKey(w2, "pii"))
        .isInstanceOf(KeyVersionRetiredException.class)
        .hasMessageContaining("key 'pii' v2");
    assertThat(kms.unwrapKey(w3, "pii")).isEqualTo(dek3);
    assertThat(kms.wrapKey(dek(), "pii")).startsWith("vault:v3:");
  }

  @Test
  void deriveKeyStillUsesVersionOneAfterRetirement() {
    kms.createKey("pii");
    byte[] before = kms.deriveKey("pii", "email");
    kms.rotateKey("pii");
    kms.setMinDecryptionVersion("pii", 2);
    assertThat(kms.deriveKey("pii", "email")).isEqualTo(before);
  }

  @Test
  void minimumOnlyMovesForwardAndNeverPastTheLatestVersion() {
    kms.createKey("pii");
    kms.rotateKey("pii");
    kms.rotateKey("pii");
    assertThatThrownBy(() -> kms.setMinDecryptionVersion("pii", 4))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("key 'pii'")
        .hasMessageContaining("latest version is 3");
    kms.setMinDecryptionVersion("pii", 3);
    assertThatThrownBy(() -> kms.setMinDecryptionVersion("pii", 2))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(
            "Cannot lower the minimum decryption version of key 'pii' from 3 to 2");
    assertThat(kms.setMinDecryptionVersion("pii", 3).minDecryptionVersion())
        .isEqualTo(3); // idempotent
    assertThatThrownBy(() -> kms.setMinDecryptionVersion("nope", 1))
        .isInstanceOf(KeyNotFoundException.class)
        .hasMessageContaining("key 'nope'");
    kms.destroyKey("pii");
    assertThatThrownBy(() -> kms.setMinDecryptionVersion("pii", 3))
        .isInstanceOf(KeyDestroyedException.class)
        .hasMessageContaining("key 'pii'");
  }

  @Test
  void rotationKeepsTheMinimumAndReopeningPersistsIt() {
    kms.createKey("pii");
    String w1 = kms.wrapKey(dek(), "pii");
    kms.rotateKey("pii");
    kms.setMinDecryptionVersion("pii", 2);
    KeyInfo rotated = kms.rotateKey("pii");
    assertThat(rotated.minDecryptionVersion()).isEqualTo(2);
    kms.createKey("other"); // another commit must not reset it either
    kms.close();

    kms = open(store);
    assertThat(kms.describeKey("pii").minDecryptionVersion()).isEqualTo(2);
    assertThat(kms.describeKey("other").minDecryptionVersion()).isEqualTo(1);
    assertThatThrownBy(() -> kms.unwrapKey(w1, "pii"))
        .isInstanceOf(KeyVersionRetiredException.class)
        .hasMessageContaining("cannot unwrap with key 'pii' v1: version 1 is retired");
  }

  @Test
  void anotherInstanceSeesTheRetirement() {
    kms.createKey("pii");
    byte[] dek1 = dek();
    String w1 = kms.wrapKey(dek1, "pii");
    kms.rotateKey("pii");
    try (LocalKeyService reader = open(store)) {
      assertThat(reader.unwrapKey(w1, "pii")).isEqualTo(dek1); // cached in the reader
      kms.setMinDecryptionVersion("pii", 2);
      assertThatThrownBy(() -> reader.unwrapKey(w1, "pii"))
          .isInstanceOf(KeyVersionRetiredException.class)
          .hasMessageContaining("key 'pii' v1");
    }
  }

  @Test
  void concurrentRetireAndRotateLoseNeither() throws Exception {
    kms.createKey("pii");
    for (int i = 0; i < 4; i++) {
      kms.rotateKey("pii");
    }
    ExecutorService pool = Executors.newFixedThreadPool(2);
    try (LocalKeyService second = open(store)) {
      CountDownLatch start = new CountDownLatch(1);
      List<Future<?>> futures = new ArrayList<>();
      futures.add(
          pool.submit(
              () -> {
                start.await();
                for (int min = 2; min <= 5; min++) {
                  kms.setMinDecryptionVersion("pii", min);
                }
                return null;
              }));
      futures.add(
          pool.submit(
              () -> {
                start.await();
                for (int i = 0; i < 4; i++) {
                  second.rotateKey("pii");
                }
                return null;
              }));
      start.countDown();
      for (Future<?> f : futures) {
        f.get(60, TimeUnit.SECONDS);
      }
    } finally {
      pool.shutdownNow();
    }
    try (LocalKeyService fresh = open(store)) {
      KeyInfo info = fresh.describeKey("pii");
      assertThat(info.latestVersion()).isEqualTo(9);
      assertThat(info.minDecryptionVersion()).isEqualTo(5);
    }
  }

  @Test
  void metadataWithoutRetirementKeepsTheFormatOlderReleasesRead() {
    java.time.Instant t = java.time.Instant.parse("2026-01-01T00:00:00Z");
    java.util.Map<String, KeyRecord> keys = new java.util.TreeMap<>();
    keys.put("a", new KeyRecord("a", t, 2, null));
    keys.put("b", new KeyRecord("b", t, 3, null, 3));
    String text = new String(KeyRecord.encode(keys), java.nio.charset.StandardCharsets.UTF_8);
    assertThat(text.split("\n")[1].split(" ")).hasSize(4);
    assertThat(text.split("\n")[2].split(" ")).hasSize(5);
    assertThat(KeyRecord.decode(KeyRecord.encode(keys))).isEqualTo(keys);
    keys.put("c", new KeyRecord("c", t, 1, null, 2));
    assertThatThrownBy(() -> KeyRecord.decode(KeyRecord.encode(keys)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("Bad minimum decryption version for key 'c'");
  }
}
