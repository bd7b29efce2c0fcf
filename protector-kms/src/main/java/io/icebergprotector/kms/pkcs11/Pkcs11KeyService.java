/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.kms.pkcs11;

import static io.icebergprotector.policy.Preconditions.checkArgument;
import static io.icebergprotector.policy.Preconditions.checkState;

import io.icebergprotector.kms.KeyAlreadyExistsException;
import io.icebergprotector.kms.KeyDestroyedException;
import io.icebergprotector.kms.KeyInfo;
import io.icebergprotector.kms.KeyNotFoundException;
import io.icebergprotector.kms.KeySeal;
import io.icebergprotector.kms.KeyService;
import io.icebergprotector.kms.KeyServiceException;
import io.icebergprotector.kms.KeyVersionRetiredException;
import io.icebergprotector.kms.Passphrase;
import io.icebergprotector.kms.WrappedKey;
import io.icebergprotector.policy.KeyIds;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.ProviderException;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Collectors;
import javax.crypto.Cipher;
import javax.crypto.KeyGenerator;
import javax.crypto.Mac;
import javax.crypto.SecretKey;
import javax.crypto.spec.GCMParameterSpec;

/**
 * Master keys in a PKCS#11 token (HSM), through the JDK's SunPKCS11 provider only.
 *
 * <p>Every key is generated inside the token with CKA_SENSITIVE=true and CKA_EXTRACTABLE=false (see
 * {@link Pkcs11Config}) and stored as a private token object; wrap (AES-256-GCM), unwrap and
 * deriveKey (HMAC-SHA256) run inside the token. Key material never exists in this JVM.
 *
 * <p>Token objects of key {@code pii} (labels, see {@link Labels}): {@code pii#v<N>#...} one
 * AES-256 key per version; {@code pii#hmac#...} the HMAC-SHA256 key of deriveKey, created with the
 * key and stable across rotation; {@code pii#destroyed#...} the tombstone left by destroyKey (a
 * tiny AES key whose label records creation time and latest version), so a destroyed key is told
 * apart from an unknown one and its id is never reused.
 *
 * <p>Wrapped blobs have the format of {@link io.icebergprotector.kms.LocalKeyService}: {@code
 * vault:v<N>:} base64 of {@code 12-byte nonce || ciphertext || 16-byte tag}, with the same
 * associated data.
 *
 * <p>Other processes' changes are seen on a cache miss (unknown key or version, vanished object)
 * and at the latest after {@link Builder#refreshInterval}. Admin operations of one JVM are
 * serialized; across processes, concurrent rotations of one key are safe (duplicates of a version
 * are all tried on unwrap), but concurrent createKey of the same id from two processes can leave
 * two HMAC keys, and deriveKey follows the older one.
 */
public final class Pkcs11KeyService implements KeyService {
  private static final String MAC = "HmacSHA256";
  private static final int AES_KEY_BITS = 256;
  private static final int HMAC_KEY_BITS = 256;
  private static final int TOMBSTONE_KEY_BITS = 128;
  private static final int LATEST = 0;

  private final TokenSession session;
  private final Duration refreshInterval;
  private final SecureRandom random = new SecureRandom();
  private final AtomicBoolean closed = new AtomicBoolean();

  @FunctionalInterface
  private interface KeyUse<T> {
    T apply(TokenView.KeyObjects key) throws GeneralSecurityException;
  }

  /** Signals "refresh the view and try once more"; carries what to throw if that does not help. */
  private static final class Retry extends RuntimeException {
    private final KeyServiceException failure;

    Retry(KeyServiceException failure) {
      super(null, null, false, false);
      this.failure = failure;
    }
  }

  private Pkcs11KeyService(TokenSession session, Duration refreshInterval) {
    this.session = session;
    this.refreshInterval = refreshInterval;
  }

  /**
   * Opens the token at {@code slotListIndex} (the index among slots that have a token) of {@code
   * library}.
   */
  public static Pkcs11KeyService open(Path library, int slotListIndex, Passphrase pin) {
    return builder(library).slotListIndex(slotListIndex).pin(pin).build();
  }

  /** Opens the token labelled {@code tokenLabel} of {@code library}. */
  public static Pkcs11KeyService open(Path library, String tokenLabel, Passphrase pin) {
    return builder(library).tokenLabel(tokenLabel).pin(pin).build();
  }

  public static Builder builder(Path library) {
    return new Builder(library);
  }

  /** Selects exactly one of slot list index, slot id or token label; the PIN is required. */
  public static final class Builder {
    private final Path library;
    private Integer slotListIndex;
    private Long slotId;
    private String tokenLabel;
    private Passphrase pin;
    private Duration refreshInterval = Duration.ofSeconds(1);

    private Builder(Path library) {
      checkArgument(library != null, "Invalid PKCS#11 library path: null");
      this.library = library;
    }

    public Builder slotListIndex(int index) {
      Pkcs11Config.slotListIndex(index); // validates
      this.slotListIndex = index;
      return this;
    }

    public Builder slot(long id) {
      Pkcs11Config.slot(id); // validates
      this.slotId = id;
      return this;
    }

    public Builder tokenLabel(String label) {
      checkArgument(
          label != null && !label.isBlank() && label.length() <= 32,
          "Invalid PKCS#11 token label '%s': must be 1-32 characters",
          label);
      this.tokenLabel = label;
      return this;
    }

    /**
     * The user PIN (e.g. {@link Passphrase#fromEnv} or {@link Passphrase#fromFile}); copied, caller
     * keeps it.
     */
    public Builder pin(Passphrase pin) {
      this.pin = pin;
      return this;
    }

    /**
     * How stale this JVM's view of the token's objects may get before it is re-read (default 1 s).
     */
    public Builder refreshInterval(Duration interval) {
      checkArgument(
          interval != null && !interval.isNegative(), "Invalid refresh interval: %s", interval);
      this.refreshInterval = interval;
      return this;
    }

    /**
     * Loads the library, logs in to the token and reads its objects.
     *
     * @throws KeyServiceException naming the problem: missing library, unknown token label, wrong
     *     PIN, ...
     */
    public Pkcs11KeyService build() {
      int selections =
          (slotListIndex != null ? 1 : 0) + (slotId != null ? 1 : 0) + (tokenLabel != null ? 1 : 0);
      checkArgument(
          selections == 1,
          "Select the PKCS#11 token by exactly one of slot list index, "
              + "slot id or token label (got %s)",
          selections);
      checkArgument(pin != null, "Invalid PKCS#11 user PIN: null");
      Path lib = checkLibrary(library);
      // Resolve every selection to a slot id, so that one token has one session in this JVM however
      // selected.
      long slot;
      String description;
      if (slotListIndex != null) {
        java.util.OptionalLong id = SlotProbe.slotIdAt(lib, slotListIndex);
        if (id.isEmpty() || id.getAsLong() > Integer.MAX_VALUE) {
          // Out of range (SunPKCS11 reports it) or an id SunPKCS11 cannot take: select by index.
          return open(
              lib,
              Pkcs11Config.slotListIndex(slotListIndex),
              "index=" + slotListIndex,
              "PKCS#11 token at slot list index " + slotListIndex + " of " + lib);
        }
        slot = id.getAsLong();
        description =
            "PKCS#11 token at slot list index " + slotListIndex + " (slot " + slot + ") of " + lib;
      } else if (slotId != null) {
        slot = slotId;
        description = "PKCS#11 token in slot " + slot + " of " + lib;
      } else {
        SlotProbe.Slot found = findLabel(lib, tokenLabel);
        description = "PKCS#11 token '" + tokenLabel + "' (slot " + found.slotId() + ") of " + lib;
        if (found.slotId() > Integer.MAX_VALUE) {
          return open(
              lib,
              Pkcs11Config.slotListIndex(found.index()),
              "index=" + found.index(),
              description);
        }
        slot = found.slotId();
      }
      return open(lib, Pkcs11Config.slot(slot), "slot=" + slot, description);
    }

    private Pkcs11KeyService open(Path lib, String slotLine, String selection, String description) {
      char[] chars = pin.chars();
      try {
        TokenSession session =
            TokenSession.acquire(
                lib + "\n" + selection, Pkcs11Config.forService(lib, slotLine), description, chars);
        return new Pkcs11KeyService(session, refreshInterval);
      } finally {
        Arrays.fill(chars, '\0');
      }
    }

    private static Path checkLibrary(Path library) {
      Path lib = library.toAbsolutePath().normalize();
      if (!Files.exists(lib)) {
        throw new KeyServiceException(
            "PKCS#11 library "
                + lib
                + " does not exist"
                + " (for SoftHSM2 on Debian: apt-get install softhsm2; library /usr/lib/softhsm/libsofthsm2.so)");
      }
      if (!Files.isRegularFile(lib) || !Files.isReadable(lib)) {
        throw new KeyServiceException("PKCS#11 library " + lib + " is not a readable file");
      }
      Pkcs11Config.quote(lib); // fail early on paths SunPKCS11 cannot take
      return lib;
    }

    private static SlotProbe.Slot findLabel(Path lib, String label) {
      List<SlotProbe.Slot> slots;
      try {
        slots = SlotProbe.slots(lib);
      } catch (IllegalStateException e) {
        throw new KeyServiceException(e.getMessage(), e);
      }
      List<SlotProbe.Slot> matches = slots.stream().filter(s -> s.label().equals(label)).toList();
      if (matches.size() == 1) {
        return matches.get(0);
      }
      if (matches.isEmpty()) {
        String found =
            slots.stream()
                .filter(s -> !s.label().isEmpty())
                .map(SlotProbe.Slot::toString)
                .collect(Collectors.joining(", "));
        throw new KeyServiceException(
            "no PKCS#11 token labelled '"
                + label
                + "' in library "
                + lib
                + (found.isEmpty()
                    ? " (it has no initialized token)"
                    : " (tokens: " + found + ")"));
      }
      throw new KeyServiceException(
          "several PKCS#11 tokens are labelled '"
              + label
              + "' in library "
              + lib
              + " ("
              + matches.stream().map(SlotProbe.Slot::toString).collect(Collectors.joining(", "))
              + "); select one by slot list index or slot id");
    }
  }

  // ---------------------------------------------------------------- admin operations

  @Override
  public KeyInfo createKey(String keyId) {
    KeyIds.check(keyId);
    ensureOpen();
    session.lock().lock();
    try {
      TokenView.KeyObjects existing = session.refresh().objects(keyId).orElse(null);
      if (existing != null && existing.destroyed()) {
        throw destroyed(existing, "create");
      }
      if (existing != null && existing.exists()) {
        throw new KeyAlreadyExistsException(
            "key '" + keyId + "' already exists on " + session.description());
      }
      if (existing != null) {
        // An HMAC key without versions is debris of an interrupted create; nothing was ever derived
        // from it.
        existing.hmacObjects().forEach(p -> session.delete(p.label()));
      }
      long now = nowMillis();
      String hmacLabel = Labels.hmac(keyId, now, labelNonce());
      session.store(hmacLabel, generate(MAC, HMAC_KEY_BITS));
      try {
        session.store(Labels.version(keyId, 1, now, labelNonce()), generate("AES", AES_KEY_BITS));
      } catch (RuntimeException e) {
        deleteQuietly(hmacLabel);
        throw e;
      }
      return infoAfterMutation(keyId);
    } finally {
      session.lock().unlock();
    }
  }

  @Override
  public KeyInfo rotateKey(String keyId) {
    KeyIds.check(keyId);
    ensureOpen();
    session.lock().lock();
    try {
      TokenView.KeyObjects key = live(session.refresh(), keyId, "rotate");
      int next = key.latestVersion() + 1;
      session.store(
          Labels.version(keyId, next, nowMillis(), labelNonce()), generate("AES", AES_KEY_BITS));
      return infoAfterMutation(keyId);
    } finally {
      session.lock().unlock();
    }
  }

  /**
   * Writes the tombstone first, then C_DestroyObject on every version and the HMAC key. Idempotent:
   * a second call deletes whatever an interrupted first call left.
   */
  @Override
  public void destroyKey(String keyId) {
    KeyIds.check(keyId);
    ensureOpen();
    session.lock().lock();
    try {
      TokenView.KeyObjects key =
          session
              .refresh()
              .objects(keyId)
              .filter(TokenView.KeyObjects::exists)
              .orElseThrow(() -> notFound(keyId));
      if (!key.destroyed()) {
        session.store(
            Labels.tombstone(
                keyId,
                nowMillis(),
                key.createdAt().toEpochMilli(),
                key.latestVersion(),
                labelNonce()),
            generate("AES", TOMBSTONE_KEY_BITS));
      }
      List<String> failed = new ArrayList<>();
      KeyServiceException firstFailure = null;
      for (Labels.Parsed object : key.material()) {
        try {
          session.delete(object.label());
        } catch (KeyServiceException e) {
          failed.add(object.label());
          firstFailure = firstFailure == null ? e : firstFailure;
        }
      }
      session.refresh();
      if (firstFailure != null) {
        throw new KeyServiceException(
            "key '"
                + keyId
                + "' is marked destroyed on "
                + session.description()
                + ", but "
                + failed.size()
                + " token object(s) could not be deleted yet; run destroy again ("
                + firstFailure.getMessage()
                + ")",
            firstFailure);
      }
    } finally {
      session.lock().unlock();
    }
  }

  /**
   * Deletes the token objects of every version below the minimum, oldest first, so an interrupted
   * call leaves a contiguous range and a second call finishes it. The key material never leaves the
   * token, so there is nothing to wipe in this JVM; the HMAC key (deriveKey) is a separate object
   * and stays.
   */
  @Override
  public KeyInfo setMinDecryptionVersion(String keyId, int minDecryptionVersion) {
    KeyIds.check(keyId);
    ensureOpen();
    session.lock().lock();
    try {
      TokenView.KeyObjects key = live(session.refresh(), keyId, "retire versions of");
      if (!key.info().checkNewMinDecryptionVersion(minDecryptionVersion)) {
        return key.info();
      }
      for (int v = key.minDecryptionVersion(); v < minDecryptionVersion; v++) {
        for (Labels.Parsed object : key.candidates(v)) {
          try {
            session.delete(object.label());
          } catch (KeyServiceException e) {
            session.refresh();
            throw new KeyServiceException(
                "cannot retire key '"
                    + keyId
                    + "' v"
                    + v
                    + " on "
                    + session.description()
                    + ": "
                    + e.getMessage()
                    + "; run retire again",
                e);
          }
        }
      }
      return infoAfterMutation(keyId);
    } finally {
      session.lock().unlock();
    }
  }

  @Override
  public List<KeyInfo> listKeys() {
    ensureOpen();
    return session.view(refreshInterval).infos();
  }

  @Override
  public KeyInfo describeKey(String keyId) {
    KeyIds.check(keyId);
    ensureOpen();
    TokenView.KeyObjects key =
        session
            .view(refreshInterval)
            .objects(keyId)
            .filter(TokenView.KeyObjects::exists)
            .orElse(null);
    if (key == null) {
      key =
          session
              .refresh()
              .objects(keyId)
              .filter(TokenView.KeyObjects::exists)
              .orElseThrow(() -> notFound(keyId));
    }
    return key.info();
  }

  // ---------------------------------------------------------------- crypto operations (inside the
  // token)

  @Override
  public String wrapKey(byte[] plaintext, String keyId) {
    KeyIds.check(keyId);
    KeySeal.checkDataKey(keyId, plaintext);
    return withKey(
        keyId,
        "wrap",
        key -> {
          int version = key.latestVersion();
          Labels.Parsed object = key.candidates(version).get(0);
          return KeySeal.wrap(
              keyId,
              version,
              plaintext,
              Cipher.getInstance(KeySeal.CIPHER, session.provider()),
              tokenKey(object),
              random);
        });
  }

  @Override
  public byte[] unwrapKey(String wrapped, String keyId) {
    KeyIds.check(keyId);
    WrappedKey parsed = KeySeal.parse(keyId, wrapped);
    int version = parsed.version();
    return withKey(
        keyId,
        "unwrap",
        key -> {
          if (version < key.minDecryptionVersion()) {
            throw KeyVersionRetiredException.of(keyId, version, key.minDecryptionVersion());
          }
          List<Labels.Parsed> candidates = key.candidates(version);
          if (candidates.isEmpty()) {
            throw new Retry(
                new KeyNotFoundException(
                    "key '"
                        + keyId
                        + "' has no version "
                        + version
                        + " (latest is "
                        + key.latestVersion()
                        + ") on "
                        + session.description()));
          }
          // Normally one object; several only after a cross-process rotation race, and then the tag
          // tells which.
          for (Labels.Parsed object : candidates) {
            Optional<byte[]> opened =
                KeySeal.unwrap(
                    keyId,
                    parsed,
                    Cipher.getInstance(KeySeal.CIPHER, session.provider()),
                    tokenKey(object));
            if (opened.isPresent()) {
              return opened.get();
            }
          }
          throw KeySeal.authenticationFailed(keyId, version);
        });
  }

  /**
   * HMAC-SHA256 in the token under the key's HMAC key (created with the key; rotation does not
   * change it).
   */
  @Override
  public byte[] deriveKey(String keyId, String context) {
    KeyIds.check(keyId);
    checkArgument(context != null, "Cannot derive a key from key '%s' with a null context", keyId);
    return withKey(
        keyId,
        "deriveKey",
        key -> {
          Labels.Parsed object =
              key.hmac()
                  .orElseThrow(
                      () ->
                          new KeyServiceException(
                              "key '"
                                  + keyId
                                  + "' has no HMAC key on "
                                  + session.description()
                                  + " (token object '"
                                  + keyId
                                  + "#hmac#...' was removed outside Iceberg Protector); deriveKey is impossible"));
          Mac mac = Mac.getInstance(MAC, session.provider());
          try {
            mac.init(session.key(object.label()));
          } catch (GeneralSecurityException e) {
            throw gone(object, e);
          } catch (ProviderException e) {
            throw gone(object, e);
          }
          return mac.doFinal(context.getBytes(StandardCharsets.UTF_8));
        });
  }

  @Override
  public void close() {
    if (closed.compareAndSet(false, true)) {
      session.release();
    }
  }

  @Override
  public String toString() {
    return "Pkcs11KeyService(" + session.description() + ")";
  }

  // ---------------------------------------------------------------- helpers

  /**
   * Runs {@code use} on a live key; refreshes the view once if the key, a version or an object is
   * missing.
   */
  private <T> T withKey(String keyId, String operation, KeyUse<T> use) {
    ensureOpen();
    TokenView view = session.view(refreshInterval);
    for (int attempt = 0; ; attempt++) {
      try {
        TokenView.KeyObjects key =
            view.objects(keyId)
                .filter(TokenView.KeyObjects::exists)
                .orElseThrow(() -> new Retry(notFound(keyId)));
        if (key.destroyed()) {
          throw destroyed(key, operation);
        }
        return use.apply(key);
      } catch (Retry retry) {
        if (attempt > 0) {
          throw retry.failure;
        }
      } catch (TokenSession.ObjectGoneException e) {
        if (attempt > 0) {
          throw new KeyServiceException(
              "cannot "
                  + operation
                  + " with key '"
                  + keyId
                  + "' on "
                  + session.description()
                  + ": "
                  + e.getMessage(),
              e);
        }
      } catch (GeneralSecurityException | ProviderException e) {
        throw TokenSession.failure(
            "cannot " + operation + " with key '" + keyId + "' on " + session.description(), e);
      }
      view = session.refresh(); // another process may have created, rotated or destroyed the key
    }
  }

  private KeySeal.KeyLoader tokenKey(Labels.Parsed object) {
    return (cipher, mode, spec) -> init(cipher, mode, object, spec);
  }

  private void init(Cipher cipher, int mode, Labels.Parsed object, GCMParameterSpec spec)
      throws GeneralSecurityException {
    try {
      cipher.init(mode, session.key(object.label()), spec);
    } catch (GeneralSecurityException e) {
      throw gone(object, e);
    } catch (ProviderException e) {
      throw gone(object, e);
    }
  }

  /**
   * A stale handle (object deleted by another process) becomes a retry; anything else propagates.
   */
  private <E extends Exception> E gone(Labels.Parsed object, E e) {
    if (Pkcs11Errors.is(e, "CKR_OBJECT_HANDLE_INVALID", "CKR_KEY_HANDLE_INVALID")) {
      session.forget(object.label());
      throw new TokenSession.ObjectGoneException(object.label());
    }
    return e;
  }

  private SecretKey generate(String algorithm, int bits) {
    try {
      KeyGenerator generator = KeyGenerator.getInstance(algorithm, session.provider());
      generator.init(bits);
      return generator
          .generateKey(); // session object: sensitive, non-extractable (config template)
    } catch (GeneralSecurityException | ProviderException e) {
      throw TokenSession.failure(
          "cannot generate " + algorithm + " key in " + session.description(), e);
    }
  }

  private TokenView.KeyObjects live(TokenView view, String keyId, String operation) {
    TokenView.KeyObjects key =
        view.objects(keyId).filter(TokenView.KeyObjects::exists).orElseThrow(() -> notFound(keyId));
    if (key.destroyed()) {
      throw destroyed(key, operation);
    }
    return key;
  }

  private KeyInfo infoAfterMutation(String keyId) {
    return session
        .refresh()
        .objects(keyId)
        .filter(TokenView.KeyObjects::exists)
        .orElseThrow(
            () ->
                new KeyServiceException(
                    "key '"
                        + keyId
                        + "' vanished from "
                        + session.description()
                        + " right after it was written"))
        .info();
  }

  private void deleteQuietly(String label) {
    try {
      session.delete(label);
    } catch (RuntimeException e) {
      // Left as debris; the next createKey of this id removes it.
    }
  }

  private KeyNotFoundException notFound(String keyId) {
    return new KeyNotFoundException(
        "key '" + keyId + "' does not exist on " + session.description());
  }

  private static KeyDestroyedException destroyed(TokenView.KeyObjects key, String operation) {
    return new KeyDestroyedException(
        "key '"
            + key.id()
            + "' was destroyed at "
            + key.destroyedAt()
            + "; cannot "
            + operation
            + " (key ids are never reused)");
  }

  private byte[] labelNonce() {
    byte[] nonce = new byte[8];
    random.nextBytes(nonce);
    return nonce;
  }

  private static long nowMillis() {
    return Instant.now().toEpochMilli();
  }

  private void ensureOpen() {
    checkState(!closed.get(), "Key service for %s is closed", session.description());
  }
}
