/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.kms;

import static io.icebergprotector.policy.Preconditions.checkArgument;
import static io.icebergprotector.policy.Preconditions.checkState;

import io.icebergprotector.kms.token.TokenKey;
import io.icebergprotector.policy.KeyIds;
import io.icebergprotector.policy.ProtectionMethod;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.DirectoryStream;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.SecureRandom;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Arrays;
import java.util.Collections;
import java.util.EnumSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantLock;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import javax.crypto.Cipher;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The embedded key service: AES-256 master keys in a local PKCS12 keystore file.
 *
 * <p>Layout of the file: one secret entry per key version under alias {@code hex(utf8(id)) + "#v" +
 * version} (PKCS12 lower-cases aliases, hex keeps "PII" and "pii" apart), plus one metadata entry
 * (created times, versions, tombstones of destroyed keys), so one atomic rename commits everything.
 *
 * <p>Mutations take an exclusive lock on the sibling {@code <keystore>.lock}, re-read the file,
 * apply the change, write a temp file, fsync it and rename it over the keystore. Readers never
 * lock: the rename is atomic, and they reload when the file changed (or once when a key or version
 * is unknown).
 */
public final class LocalKeyService implements KeyService {
  static final String METADATA_ALIAS = "iceberg-protector-metadata";
  static final String TEMP_MARKER = ".tmp-";

  private static final String KEYSTORE_TYPE = "PKCS12";
  private static final String PROTECTION_ALGORITHM = "PBEWithHmacSHA256AndAES_256";
  private static final int KEY_BYTES = 32;
  private static final int LATEST = 0;

  /**
   * FileChannel.lock() is per process; this serializes all instances on one file inside this JVM.
   */
  private static final Map<Path, ReentrantLock> PATH_LOCKS = new ConcurrentHashMap<>();

  private final Path path;
  private final Path lockPath;
  private final char[] passphrase;
  private final SecureRandom random = new SecureRandom();
  private final ReentrantLock pathLock;

  /**
   * Read lock: a key's material is in use. Write lock: material is being wiped (close, destroy,
   * reload).
   */
  private final ReentrantReadWriteLock useLock = new ReentrantReadWriteLock();

  private final Map<VersionRef, byte[]> materialCache = new ConcurrentHashMap<>();
  private volatile Snapshot snapshot;
  private volatile boolean closed;

  private record VersionRef(String keyId, int version) {}

  /** Identity of the file contents a snapshot was read from: a new file (inode) on every commit. */
  private record FileStamp(Object fileKey, FileTime modified, long size) {}

  private record Snapshot(KeyStore keyStore, Map<String, KeyRecord> keys, FileStamp stamp) {}

  @FunctionalInterface
  private interface Mutation<T> {
    T apply(KeyStore keyStore, Map<String, KeyRecord> keys) throws GeneralSecurityException;
  }

  @FunctionalInterface
  private interface KeyUse<T> {
    T apply(int version, byte[] material) throws GeneralSecurityException;
  }

  private LocalKeyService(Path path, char[] passphrase) {
    this.path = path;
    this.lockPath = path.resolveSibling(path.getFileName() + ".lock");
    this.passphrase = passphrase;
    this.pathLock = PATH_LOCKS.computeIfAbsent(path, p -> new ReentrantLock());
  }

  /**
   * Opens (or creates) a keystore. The passphrase is copied; the caller keeps ownership of {@code
   * passphrase}.
   *
   * @throws KeyServiceException if the file is missing and {@code createIfMissing} is false, or the
   *     passphrase is wrong, or the file is not an Iceberg Protector keystore
   */
  public static LocalKeyService open(
      Path keystore, Passphrase passphrase, boolean createIfMissing) {
    checkArgument(keystore != null, "Invalid keystore path: null");
    checkArgument(passphrase != null, "Invalid passphrase: null");
    Path file = keystore.toAbsolutePath().normalize();
    checkArgument(file.getFileName() != null, "Invalid keystore path: %s", keystore);
    if (!Files.exists(file)) {
      if (!createIfMissing) {
        throw new KeyServiceException(
            "keystore "
                + file
                + " does not exist (open it with createIfMissing=true to create a new one)");
      }
      try {
        Files.createDirectories(file.getParent());
      } catch (IOException e) {
        throw new KeyServiceUnavailableException(
            "cannot create directory for keystore " + file + ": " + e, e);
      }
    }
    try {
      file = file.getParent().toRealPath().resolve(file.getFileName());
    } catch (IOException e) {
      throw new KeyServiceUnavailableException(
          "cannot resolve keystore directory of " + file + ": " + e, e);
    }
    char[] chars = passphrase.chars();
    LocalKeyService service = new LocalKeyService(file, chars);
    try {
      service.init(createIfMissing);
      return service;
    } catch (RuntimeException e) {
      Arrays.fill(chars, '\0');
      throw e;
    }
  }

  /** The keystore file. */
  public Path path() {
    return path;
  }

  @SuppressWarnings("try") // the FileLock is held for the block, never referenced
  private void init(boolean createIfMissing) {
    pathLock.lock();
    try (FileChannel lockChannel = openLockChannel();
        FileLock ignored = lockChannel.lock()) {
      cleanStaleTempFiles();
      if (!Files.exists(path)) {
        if (!createIfMissing) {
          throw new KeyServiceException("keystore " + path + " does not exist");
        }
        KeyStore empty = KeyStore.getInstance(KEYSTORE_TYPE);
        empty.load(null, null);
        Map<String, KeyRecord> keys = new TreeMap<>();
        putMetadata(empty, keys);
        FileStamp stamp = writeAtomically(serialize(empty));
        snapshot = new Snapshot(empty, Collections.unmodifiableMap(keys), stamp);
      } else {
        snapshot = readFromDisk();
      }
    } catch (IOException e) {
      if (!Files.exists(path)) {
        throw new KeyServiceUnavailableException("cannot create keystore " + path + ": " + e, e);
      }
      // E.g. a read-only directory: the store can still be read; mutations will report the problem.
      snapshot = readFromDisk();
    } catch (GeneralSecurityException e) {
      throw new KeyServiceException("cannot create keystore " + path + ": " + e.getMessage(), e);
    } finally {
      pathLock.unlock();
    }
  }

  // ---------------------------------------------------------------- admin operations

  @Override
  public KeyInfo createKey(String keyId) {
    KeyIds.check(keyId);
    return mutate(
        (ks, keys) -> {
          KeyRecord existing = keys.get(keyId);
          if (existing != null) {
            if (existing.destroyed()) {
              throw destroyed(existing, "create");
            }
            throw new KeyAlreadyExistsException(
                "key '" + keyId + "' already exists in keystore " + path);
          }
          storeNewVersion(ks, keyId, 1);
          KeyRecord record = new KeyRecord(keyId, now(), 1, null);
          keys.put(keyId, record);
          return record.info();
        });
  }

  @Override
  public KeyInfo rotateKey(String keyId) {
    KeyIds.check(keyId);
    return mutate(
        (ks, keys) -> {
          KeyRecord existing = existing(keys, keyId, "rotate");
          int next = existing.latestVersion() + 1;
          storeNewVersion(ks, keyId, next);
          KeyRecord record =
              new KeyRecord(
                  keyId, existing.createdAt(), next, null, existing.minDecryptionVersion());
          keys.put(keyId, record);
          return record.info();
        });
  }

  /**
   * Records the minimum in the metadata entry (one atomic commit, under the file lock like
   * rotation).
   */
  @Override
  public KeyInfo setMinDecryptionVersion(String keyId, int minDecryptionVersion) {
    KeyIds.check(keyId);
    return mutate(
        (ks, keys) -> {
          KeyRecord existing = existing(keys, keyId, "retire versions of");
          if (!existing.info().checkNewMinDecryptionVersion(minDecryptionVersion)) {
            return existing.info();
          }
          KeyRecord record =
              new KeyRecord(
                  keyId,
                  existing.createdAt(),
                  existing.latestVersion(),
                  null,
                  minDecryptionVersion);
          keys.put(keyId, record);
          return record.info();
        });
  }

  @Override
  public void destroyKey(String keyId) {
    KeyIds.check(keyId);
    mutate(
        (ks, keys) -> {
          KeyRecord existing = keys.get(keyId);
          if (existing == null) {
            throw notFound(keyId);
          }
          if (existing.destroyed()) {
            return null; // idempotent: nothing left to shred
          }
          for (int v = 1; v <= existing.latestVersion(); v++) {
            String alias = KeystoreAliases.alias(keyId, v);
            if (ks.containsAlias(alias)) {
              ks.deleteEntry(alias);
            }
          }
          keys.put(
              keyId,
              new KeyRecord(
                  keyId,
                  existing.createdAt(),
                  existing.latestVersion(),
                  now(),
                  existing.minDecryptionVersion()));
          return null;
        });
  }

  @Override
  public List<KeyInfo> listKeys() {
    ensureOpen();
    refreshIfChanged();
    return snapshot.keys().values().stream()
        .map(KeyRecord::info)
        .sorted(java.util.Comparator.comparing(KeyInfo::id))
        .toList();
  }

  @Override
  public KeyInfo describeKey(String keyId) {
    KeyIds.check(keyId);
    ensureOpen();
    refreshIfChanged();
    Snapshot s = snapshot;
    KeyRecord record = s.keys().get(keyId);
    if (record == null) {
      reload(s); // another process may have created it since our last look
      record = snapshot.keys().get(keyId);
    }
    if (record == null) {
      throw notFound(keyId);
    }
    return record.info();
  }

  // ---------------------------------------------------------------- crypto operations

  @Override
  public String wrapKey(byte[] plaintext, String keyId) {
    KeyIds.check(keyId);
    KeySeal.checkDataKey(keyId, plaintext);
    return withKey(
        keyId,
        LATEST,
        "wrap",
        (version, material) ->
            KeySeal.wrap(
                keyId,
                version,
                plaintext,
                Cipher.getInstance(KeySeal.CIPHER),
                jceKey(material),
                random));
  }

  @Override
  public byte[] unwrapKey(String wrapped, String keyId) {
    KeyIds.check(keyId);
    WrappedKey parsed = KeySeal.parse(keyId, wrapped);
    return withKey(
        keyId,
        parsed.version(),
        "unwrap",
        (version, material) ->
            KeySeal.unwrap(keyId, parsed, Cipher.getInstance(KeySeal.CIPHER), jceKey(material))
                .orElseThrow(() -> KeySeal.authenticationFailed(keyId, version)));
  }

  private static KeySeal.KeyLoader jceKey(byte[] material) {
    return (cipher, mode, spec) -> cipher.init(mode, new SecretKeySpec(material, "AES"), spec);
  }

  @Override
  public byte[] deriveKey(String keyId, String context) {
    KeyIds.check(keyId);
    checkArgument(context != null, "Cannot derive a key from key '%s' with a null context", keyId);
    // Version 1 on purpose: derived values (hash masks) must not change when the key rotates.
    return withKey(
        keyId,
        1,
        "deriveKey",
        (version, material) -> {
          Mac mac = Mac.getInstance("HmacSHA256");
          mac.init(new SecretKeySpec(material, "HmacSHA256"));
          return mac.doFinal(context.getBytes(StandardCharsets.UTF_8));
        });
  }

  @Override
  public TokenKey deriveTokenKey(
      String keyId, int version, String domain, ProtectionMethod.Kind kind) {
    KeyIds.check(keyId);
    checkArgument(
        domain != null && version >= 0,
        "Cannot derive a token key from key '%s' for version %s and domain %s",
        keyId,
        version,
        domain);
    return withKey(
        keyId,
        version,
        "deriveTokenKey",
        (v, material) -> TokenKey.derive(material, keyId, v, domain, kind));
  }

  @Override
  public void close() {
    pathLock.lock(); // no mutation or reload of this JVM is using the passphrase while we wipe it
    try {
      useLock.writeLock().lock();
      try {
        if (closed) {
          return;
        }
        closed = true;
        wipeCache(ref -> true);
        Arrays.fill(passphrase, '\0');
      } finally {
        useLock.writeLock().unlock();
      }
    } finally {
      pathLock.unlock();
    }
  }

  @Override
  public String toString() {
    return "LocalKeyService(" + path + ")";
  }

  // ---------------------------------------------------------------- key use

  /**
   * Runs {@code use} with the material of a live key version; reloads once if the key or version is
   * unknown.
   */
  private <T> T withKey(String keyId, int requestedVersion, String operation, KeyUse<T> use) {
    ensureOpen();
    refreshIfChanged();
    for (int attempt = 0; ; attempt++) {
      Snapshot s;
      useLock.readLock().lock();
      try {
        ensureOpen();
        s = snapshot;
        KeyRecord record = s.keys().get(keyId);
        if (record != null && record.destroyed()) {
          throw destroyed(record, operation);
        }
        int version =
            requestedVersion == LATEST && record != null
                ? record.latestVersion()
                : requestedVersion;
        if (record != null && record.hasVersion(version)) {
          if (retiredFor(operation) && record.retired(version)) {
            // No reload needed: the minimum only moves forward, so a newer snapshot cannot
            // un-retire it.
            throw KeyVersionRetiredException.of(keyId, version, record.minDecryptionVersion());
          }
          byte[] material = material(s, keyId, version);
          try {
            return use.apply(version, material);
          } catch (GeneralSecurityException e) {
            throw new KeyServiceException(
                "cannot "
                    + operation
                    + " with key '"
                    + keyId
                    + "' v"
                    + version
                    + ": "
                    + e.getMessage(),
                e);
          }
        }
        if (attempt > 0) {
          if (record == null) {
            throw notFound(keyId);
          }
          throw new KeyNotFoundException(
              "key '"
                  + keyId
                  + "' has no version "
                  + version
                  + " (latest is "
                  + record.latestVersion()
                  + ") in keystore "
                  + path);
        }
      } finally {
        useLock.readLock().unlock();
      }
      reload(s); // another process may have created or rotated the key
    }
  }

  /**
   * Retirement blocks unwrap only: wrap uses the latest version, and deriveKey keeps using version
   * 1.
   */
  private static boolean retiredFor(String operation) {
    return operation.equals("unwrap") || operation.equals("deriveTokenKey");
  }

  /**
   * Cached decrypted material (decrypting a PKCS12 entry runs PBKDF2). Callers hold the read lock.
   */
  private byte[] material(Snapshot s, String keyId, int version) {
    return materialCache.computeIfAbsent(
        new VersionRef(keyId, version),
        ref -> {
          String alias = KeystoreAliases.alias(keyId, version);
          KeyStore.PasswordProtection protection = new KeyStore.PasswordProtection(passphrase);
          try {
            KeyStore.Entry entry;
            synchronized (s.keyStore()) {
              entry = s.keyStore().getEntry(alias, protection);
            }
            if (!(entry instanceof KeyStore.SecretKeyEntry secret)) {
              throw new KeyServiceException(
                  "keystore "
                      + path
                      + " is corrupted: no material for key '"
                      + keyId
                      + "' v"
                      + version);
            }
            byte[] encoded = secret.getSecretKey().getEncoded();
            if (encoded == null || encoded.length != KEY_BYTES) {
              throw new KeyServiceException(
                  "keystore "
                      + path
                      + " is corrupted: key '"
                      + keyId
                      + "' v"
                      + version
                      + " is not an AES-256 key");
            }
            return encoded;
          } catch (GeneralSecurityException e) {
            throw new KeyServiceException(
                "cannot read key '"
                    + keyId
                    + "' v"
                    + version
                    + " from keystore "
                    + path
                    + ": "
                    + e.getMessage(),
                e);
          } finally {
            destroyQuietly(protection);
          }
        });
  }

  // ---------------------------------------------------------------- mutations and file handling

  @SuppressWarnings("try") // the FileLock is held for the block, never referenced
  private <T> T mutate(Mutation<T> mutation) {
    ensureOpen();
    pathLock.lock();
    try (FileChannel lockChannel = openLockChannel();
        FileLock ignored = lockChannel.lock()) {
      ensureOpen();
      cleanStaleTempFiles();
      Snapshot fresh = readFromDisk(); // under the lock: never overwrite another process's commit
      Map<String, KeyRecord> keys = new TreeMap<>(fresh.keys());
      T result = mutation.apply(fresh.keyStore(), keys);
      if (keys.equals(fresh.keys())) {
        install(fresh);
        return result;
      }
      putMetadata(fresh.keyStore(), keys);
      FileStamp stamp = writeAtomically(serialize(fresh.keyStore()));
      install(new Snapshot(fresh.keyStore(), Collections.unmodifiableMap(keys), stamp));
      return result;
    } catch (IOException e) {
      throw new KeyServiceUnavailableException("cannot update keystore " + path + ": " + e, e);
    } catch (GeneralSecurityException e) {
      throw new KeyServiceException("cannot update keystore " + path + ": " + e.getMessage(), e);
    } finally {
      pathLock.unlock();
    }
  }

  private void storeNewVersion(KeyStore ks, String keyId, int version)
      throws GeneralSecurityException {
    String alias = KeystoreAliases.alias(keyId, version);
    if (ks.containsAlias(alias)) {
      throw new KeyServiceException(
          "keystore " + path + " is corrupted: stray entry for key '" + keyId + "' v" + version);
    }
    byte[] material = new byte[KEY_BYTES];
    random.nextBytes(material);
    KeyStore.PasswordProtection protection = protection();
    try {
      // SecretKeySpec keeps its own copy (JCE offers no way to wipe it); ours is wiped below.
      ks.setEntry(
          alias, new KeyStore.SecretKeyEntry(new SecretKeySpec(material, "AES")), protection);
    } finally {
      Arrays.fill(material, (byte) 0);
      destroyQuietly(protection);
    }
  }

  private void putMetadata(KeyStore ks, Map<String, KeyRecord> keys)
      throws GeneralSecurityException {
    KeyStore.PasswordProtection protection = protection();
    try {
      ks.setEntry(
          METADATA_ALIAS,
          new KeyStore.SecretKeyEntry(new SecretKeySpec(KeyRecord.encode(keys), "HmacSHA256")),
          protection);
    } finally {
      destroyQuietly(protection);
    }
  }

  private byte[] serialize(KeyStore ks) throws GeneralSecurityException, IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ks.store(out, passphrase);
    return out.toByteArray();
  }

  /** Reads and verifies the whole store. Callers hold pathLock (or are not yet published). */
  private Snapshot readFromDisk() {
    FileStamp stamp;
    byte[] bytes;
    try {
      stamp =
          stamp(path); // before reading: if the file changes in between we only reload once more
      bytes = Files.readAllBytes(path);
    } catch (NoSuchFileException e) {
      throw new KeyServiceException("keystore " + path + " does not exist", e);
    } catch (IOException e) {
      throw new KeyServiceUnavailableException("cannot read keystore " + path + ": " + e, e);
    }
    KeyStore ks;
    try {
      ks = KeyStore.getInstance(KEYSTORE_TYPE);
      ks.load(new ByteArrayInputStream(bytes), passphrase);
    } catch (IOException | GeneralSecurityException | RuntimeException e) {
      throw new KeyServiceException(
          "cannot open keystore " + path + ": wrong passphrase or corrupted file", e);
    }
    Map<String, KeyRecord> keys;
    KeyStore.PasswordProtection protection = new KeyStore.PasswordProtection(passphrase);
    try {
      if (!ks.containsAlias(METADATA_ALIAS)) {
        throw new KeyServiceException(
            "cannot open keystore "
                + path
                + ": not an Iceberg Protector keystore (no metadata entry)");
      }
      KeyStore.Entry entry = ks.getEntry(METADATA_ALIAS, protection);
      if (!(entry instanceof KeyStore.SecretKeyEntry secret)) {
        throw new KeyServiceException(
            "cannot open keystore " + path + ": metadata entry has the wrong type");
      }
      keys = KeyRecord.decode(secret.getSecretKey().getEncoded());
      for (KeyRecord record : keys.values()) {
        for (int v = 1; !record.destroyed() && v <= record.latestVersion(); v++) {
          if (!ks.containsAlias(KeystoreAliases.alias(record.id(), v))) {
            throw new KeyServiceException(
                "cannot open keystore "
                    + path
                    + ": corrupted, key '"
                    + record.id()
                    + "' v"
                    + v
                    + " has no material");
          }
        }
      }
    } catch (GeneralSecurityException | IllegalArgumentException e) {
      throw new KeyServiceException(
          "cannot open keystore " + path + ": corrupted metadata (" + e.getMessage() + ")", e);
    } finally {
      destroyQuietly(protection);
    }
    return new Snapshot(ks, keys, stamp);
  }

  /**
   * Temp file in the same directory, fsync, atomic rename, fsync the directory. Returns the new
   * stamp.
   */
  private FileStamp writeAtomically(byte[] bytes) throws IOException {
    Path dir = path.getParent();
    byte[] suffix = new byte[8];
    random.nextBytes(suffix);
    Path temp =
        dir.resolve("." + path.getFileName() + TEMP_MARKER + HexFormat.of().formatHex(suffix));
    boolean moved = false;
    try {
      Set<OpenOption> options = Set.of(StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
      try (FileChannel channel = FileChannel.open(temp, options, ownerOnly())) {
        ByteBuffer buffer = ByteBuffer.wrap(bytes);
        while (buffer.hasRemaining()) {
          channel.write(buffer);
        }
        channel.force(true);
      }
      FileStamp stamp = stamp(temp); // a rename keeps inode, size and mtime
      try {
        Files.move(temp, path, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
      } catch (AtomicMoveNotSupportedException e) {
        throw new IOException("file system of " + dir + " does not support atomic rename", e);
      }
      moved = true;
      fsyncDirectory(dir);
      return stamp;
    } finally {
      if (!moved) {
        Files.deleteIfExists(temp);
      }
    }
  }

  private static void fsyncDirectory(Path dir) {
    try (FileChannel channel = FileChannel.open(dir, StandardOpenOption.READ)) {
      channel.force(true);
    } catch (IOException | UnsupportedOperationException e) {
      // Not possible on every platform (e.g. Windows); the rename itself is still atomic.
    }
  }

  /** Temp files of writers that died before their rename. Only called under the file lock. */
  private void cleanStaleTempFiles() {
    String prefix = "." + path.getFileName() + TEMP_MARKER;
    try (DirectoryStream<Path> stream = Files.newDirectoryStream(path.getParent(), prefix + "*")) {
      for (Path stale : stream) {
        Files.deleteIfExists(stale);
      }
    } catch (IOException e) {
      // Harmless: stale temp files are never read.
    }
  }

  private FileChannel openLockChannel() throws IOException {
    return FileChannel.open(
        lockPath, EnumSet.of(StandardOpenOption.CREATE, StandardOpenOption.WRITE), ownerOnly());
  }

  private static FileAttribute<?>[] ownerOnly() {
    if (FileSystems.getDefault().supportedFileAttributeViews().contains("posix")) {
      return new FileAttribute<?>[] {
        PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------"))
      };
    }
    return new FileAttribute<?>[0];
  }

  private static FileStamp stamp(Path file) throws IOException {
    BasicFileAttributes attrs = Files.readAttributes(file, BasicFileAttributes.class);
    return new FileStamp(attrs.fileKey(), attrs.lastModifiedTime(), attrs.size());
  }

  // ---------------------------------------------------------------- snapshots

  /** One stat per call: cheap, and it catches rotations and destroys done by other processes. */
  private void refreshIfChanged() {
    Snapshot s = snapshot;
    FileStamp current;
    try {
      current = stamp(path);
    } catch (IOException e) {
      return; // surfaced by the operation itself if it needs the file
    }
    if (!current.equals(s.stamp())) {
      reload(s);
    }
  }

  private void reload(Snapshot seen) {
    pathLock.lock();
    try {
      ensureOpen();
      if (snapshot != seen) {
        return; // someone else reloaded (or committed) meanwhile
      }
      install(readFromDisk());
    } finally {
      pathLock.unlock();
    }
  }

  /**
   * Publishes a snapshot and wipes cached material of keys that are no longer live in it, and of
   * retired versions (version 1 is read again if deriveKey needs it).
   */
  private void install(Snapshot s) {
    useLock.writeLock().lock();
    try {
      if (closed) {
        return;
      }
      wipeCache(
          ref -> {
            KeyRecord record = s.keys().get(ref.keyId());
            return record == null
                || !record.hasVersion(ref.version())
                || record.retired(ref.version());
          });
      snapshot = s;
    } finally {
      useLock.writeLock().unlock();
    }
  }

  private void wipeCache(java.util.function.Predicate<VersionRef> which) {
    materialCache
        .entrySet()
        .removeIf(
            e -> {
              if (which.test(e.getKey())) {
                Arrays.fill(e.getValue(), (byte) 0);
                return true;
              }
              return false;
            });
  }

  // ---------------------------------------------------------------- helpers

  private KeyRecord existing(Map<String, KeyRecord> keys, String keyId, String operation) {
    KeyRecord record = keys.get(keyId);
    if (record == null) {
      throw notFound(keyId);
    }
    if (record.destroyed()) {
      throw destroyed(record, operation);
    }
    return record;
  }

  private KeyNotFoundException notFound(String keyId) {
    return new KeyNotFoundException("key '" + keyId + "' does not exist in keystore " + path);
  }

  private static KeyDestroyedException destroyed(KeyRecord record, String operation) {
    return new KeyDestroyedException(
        "key '"
            + record.id()
            + "' was destroyed at "
            + record.destroyedAt()
            + "; cannot "
            + operation
            + " (key ids are never reused)");
  }

  private KeyStore.PasswordProtection protection() {
    return new KeyStore.PasswordProtection(passphrase, PROTECTION_ALGORITHM, null);
  }

  private static void destroyQuietly(KeyStore.PasswordProtection protection) {
    try {
      protection.destroy(); // wipes its copy of the passphrase
    } catch (javax.security.auth.DestroyFailedException e) {
      // not reachable for PasswordProtection
    }
  }

  private static Instant now() {
    return Instant.now().truncatedTo(ChronoUnit.MILLIS);
  }

  private void ensureOpen() {
    checkState(!closed, "Key service for keystore %s is closed", path);
  }
}
