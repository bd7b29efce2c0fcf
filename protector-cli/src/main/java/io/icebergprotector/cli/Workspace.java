/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.cli;

import static io.icebergprotector.policy.Preconditions.checkState;

import io.icebergprotector.kms.KeyInfo;
import io.icebergprotector.kms.KeyService;
import io.icebergprotector.kms.KeyServices;
import io.icebergprotector.kms.KmsSettings;
import io.icebergprotector.kms.SecretRef;
import io.icebergprotector.policy.Policy;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;

/**
 * The local setup shared by {@code demo}, {@code sql} and {@code keys}: a Hadoop warehouse, a
 * keystore, its passphrase file and the policy, all relative to the working directory by default.
 */
final class Workspace {
  static final String DEFAULT_STATE_DIR = ".protector";
  static final String DEFAULT_KEYSTORE = DEFAULT_STATE_DIR + "/keys.p12";
  static final String DEFAULT_PASSPHRASE = DEFAULT_STATE_DIR + "/passphrase";
  static final String DEFAULT_WAREHOUSE = "warehouse";
  static final String DEFAULT_POLICY = "conf/policy.conf";

  /** Set by bin/protector to the repository root, so the sample policy is found from anywhere. */
  static final String HOME_PROPERTY = "protector.home";

  private static final Set<PosixFilePermission> OWNER_ONLY_FILE =
      EnumSet.of(PosixFilePermission.OWNER_READ, PosixFilePermission.OWNER_WRITE);
  private static final Set<PosixFilePermission> OWNER_ONLY_DIR =
      EnumSet.of(
          PosixFilePermission.OWNER_READ,
          PosixFilePermission.OWNER_WRITE,
          PosixFilePermission.OWNER_EXECUTE);

  final Path warehouse;
  final Path keystore;
  final Path passphraseFile;
  final Path policy;

  Workspace(Path warehouse, Path stateDir, Path policy) {
    this.warehouse = warehouse;
    this.keystore = stateDir.resolve("keys.p12");
    this.passphraseFile = stateDir.resolve("passphrase");
    this.policy = policy;
  }

  /** {@code conf/policy.conf} of the working directory, else of the protector home. */
  static Path defaultPolicy() {
    Path local = Path.of(DEFAULT_POLICY);
    String home = System.getProperty(HOME_PROPERTY);
    if (!Files.exists(local) && home != null && Files.exists(Path.of(home, DEFAULT_POLICY))) {
      return Path.of(home, DEFAULT_POLICY);
    }
    return local;
  }

  Policy loadPolicy() {
    return Policy.load(policy);
  }

  /**
   * Creates the passphrase file on first use: 32 random bytes (base64url), mode 0600 from the start
   * so the secret is never readable by others, not even briefly.
   *
   * @return true if it was created now
   */
  boolean ensurePassphraseFile() {
    return createPassphraseFile(passphraseFile);
  }

  /** As {@link #ensurePassphraseFile()}, for any passphrase file (e.g. {@code keys init}'s). */
  static boolean createPassphraseFile(Path passphraseFile) {
    if (Files.exists(passphraseFile)) {
      return false;
    }
    byte[] secret = new byte[32];
    new SecureRandom().nextBytes(secret);
    byte[] text = Base64.getUrlEncoder().withoutPadding().encode(secret);
    try {
      createPrivateDirectories(passphraseFile.toAbsolutePath().getParent());
      if (isPosix(passphraseFile.toAbsolutePath().getParent())) {
        Files.createFile(passphraseFile, PosixFilePermissions.asFileAttribute(OWNER_ONLY_FILE));
      } else {
        Files.createFile(passphraseFile);
      }
      Files.write(passphraseFile, text, StandardOpenOption.TRUNCATE_EXISTING);
      return true;
    } catch (FileAlreadyExistsException e) {
      return false; // another process won the race; use its passphrase
    } catch (IOException e) {
      throw new UncheckedIOException(
          "cannot create passphrase file " + passphraseFile + ": " + e.getMessage(), e);
    } finally {
      Arrays.fill(secret, (byte) 0);
      Arrays.fill(text, (byte) 0);
    }
  }

  /** A warning if the passphrase file is readable by group or others, else null. */
  String passphrasePermissionWarning() {
    try {
      PosixFileAttributeView view =
          Files.getFileAttributeView(passphraseFile, PosixFileAttributeView.class);
      if (view == null || !Files.exists(passphraseFile)) {
        return null;
      }
      Set<PosixFilePermission> perms = view.readAttributes().permissions();
      if (!OWNER_ONLY_FILE.containsAll(perms)) {
        return "warning: "
            + passphraseFile
            + " has mode "
            + PosixFilePermissions.toString(perms)
            + "; it holds the keystore passphrase, make it private: chmod 600 "
            + passphraseFile;
      }
      return null;
    } catch (IOException e) {
      return null;
    }
  }

  /** Mode of the passphrase file as {@code rw-------}, or null on non-POSIX file systems. */
  String passphraseMode() {
    try {
      PosixFileAttributeView view =
          Files.getFileAttributeView(passphraseFile, PosixFileAttributeView.class);
      return view == null
          ? null
          : PosixFilePermissions.toString(view.readAttributes().permissions());
    } catch (IOException e) {
      return null;
    }
  }

  /** The workspace's keystore with its passphrase file. */
  KmsSettings kms() {
    return KmsSettings.builder(KmsSettings.Type.LOCAL)
        .keystore(keystore.toAbsolutePath().toString())
        .passphrase(SecretRef.ofFile(passphraseFile.toAbsolutePath().toString()))
        .build();
  }

  /** The state of the keystore after {@link #ensureKeys}. */
  record KeySetup(boolean keystoreCreated, List<String> created, List<String> existing) {}

  /** Opens (creating if needed) the keystore and creates the policy's keys it lacks. */
  KeySetup ensureKeys(Policy policy) {
    boolean existed = Files.exists(keystore);
    try (KeyService keys = KeyServices.open(kms(), true)) {
      Set<String> present =
          keys.listKeys().stream()
              .filter(k -> !k.destroyed())
              .map(KeyInfo::id)
              .collect(Collectors.toCollection(TreeSet::new));
      Set<String> destroyed =
          keys.listKeys().stream()
              .filter(KeyInfo::destroyed)
              .map(KeyInfo::id)
              .collect(Collectors.toSet());
      List<String> created = new ArrayList<>();
      for (String id : new TreeSet<>(policy.keyIds())) {
        checkState(
            !destroyed.contains(id),
            "Key '%s' in %s was destroyed (crypto-shredded); the demo "
                + "cannot write with it. Delete %s and the warehouse to start "
                + "over",
            id,
            keystore,
            keystore);
        if (!present.contains(id)) {
          keys.createKey(id);
          created.add(id);
        }
      }
      present.removeAll(created);
      return new KeySetup(!existed, created, new ArrayList<>(present));
    }
  }

  private static boolean isPosix(Path dir) {
    return Files.getFileAttributeView(dir, PosixFileAttributeView.class) != null;
  }

  private static void createPrivateDirectories(Path dir) throws IOException {
    if (Files.isDirectory(dir)) {
      return;
    }
    Path parent = dir.getParent();
    if (parent != null && !Files.isDirectory(parent)) {
      Files.createDirectories(parent);
    }
    if (isPosix(parent == null ? dir.getRoot() : parent)) {
      Files.createDirectory(dir, PosixFilePermissions.asFileAttribute(OWNER_ONLY_DIR));
    } else {
      Files.createDirectory(dir);
    }
  }
}
