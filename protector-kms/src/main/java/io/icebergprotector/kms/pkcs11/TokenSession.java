/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.kms.pkcs11;

import io.icebergprotector.kms.KeyServiceException;
import io.icebergprotector.kms.KeyServiceUnavailableException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.StandardCharsets;
import java.security.AuthProvider;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.MessageDigest;
import java.security.Provider;
import java.security.ProviderException;
import java.security.Security;
import java.security.UnrecoverableKeyException;
import java.time.Duration;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantLock;
import javax.crypto.SecretKey;
import javax.security.auth.login.LoginException;

/**
 * One logged-in SunPKCS11 provider per token per JVM, shared by every {@link Pkcs11KeyService}
 * opened on it.
 *
 * <p>Why shared: PKCS#11 login state belongs to the process, not to a session or a provider
 * instance. A second provider on a token this JVM already logged in to skips C_Login, so a wrong
 * PIN would be accepted silently; and a logout by one instance would log out all others. Here the
 * first open logs in, later opens must present the same PIN (compared in constant time), and the
 * last close logs out.
 */
final class TokenSession {
  /** Guarded by TokenSession.class. */
  private static final Map<String, TokenSession> OPEN = new HashMap<>();

  private final String registryKey;
  private final String description;
  private final Provider provider;
  private final KeyStore keyStore;
  private final char[] pin;

  /**
   * Serializes mutations and refreshes, so a refreshed view always reflects whole mutations of this
   * JVM.
   */
  private final ReentrantLock lock = new ReentrantLock();

  /** Key handles (no material: P11Key objects are object handles) by label. */
  private final Map<String, SecretKey> handles = new ConcurrentHashMap<>();

  private volatile TokenView view = TokenView.EMPTY;
  private volatile long refreshedAtNanos;
  private int refs; // guarded by TokenSession.class

  private TokenSession(
      String registryKey, String description, Provider provider, KeyStore keyStore, char[] pin) {
    this.registryKey = registryKey;
    this.description = description;
    this.provider = provider;
    this.keyStore = keyStore;
    this.pin = pin;
  }

  /**
   * Returns the session of a token, logging in if this JVM has none. {@code pin} is copied.
   *
   * @param registryKey identifies the token: library path plus slot selection
   */
  static TokenSession acquire(
      String registryKey, String configText, String description, char[] pin) {
    synchronized (TokenSession.class) {
      TokenSession existing = OPEN.get(registryKey);
      if (existing != null) {
        if (!samePin(existing.pin, pin)) {
          throw new KeyServiceException(
              "login to "
                  + description
                  + " failed: wrong user PIN (this JVM is already logged in to the token with another PIN)");
        }
        existing.refs++;
        return existing;
      }
      Provider provider = configure(configText, description);
      char[] copy = pin.clone();
      try {
        KeyStore keyStore = KeyStore.getInstance("PKCS11", provider);
        keyStore.load(null, copy);
        TokenSession session = new TokenSession(registryKey, description, provider, keyStore, copy);
        session.refresh();
        session.refs = 1;
        OPEN.put(registryKey, session);
        return session;
      } catch (IOException | GeneralSecurityException | ProviderException e) {
        Arrays.fill(copy, '\0');
        logoutQuietly(provider);
        String why = Pkcs11Errors.describe(e);
        if (Pkcs11Errors.unavailable(e)) {
          throw new KeyServiceUnavailableException(
              "login to " + description + " failed: " + why, e);
        }
        throw new KeyServiceException("login to " + description + " failed: " + why, e);
      } catch (RuntimeException e) {
        Arrays.fill(copy, '\0');
        logoutQuietly(provider);
        throw e;
      }
    }
  }

  private static Provider configure(String configText, String description) {
    Provider base = Security.getProvider("SunPKCS11");
    if (base == null) {
      throw new KeyServiceException(
          "cannot open "
              + description
              + ": this JDK has no SunPKCS11 provider (module jdk.crypto.cryptoki)");
    }
    try {
      return base.configure("--" + configText);
    } catch (RuntimeException e) { // InvalidParameterException, ProviderException
      String why = Pkcs11Errors.describe(e);
      String hint = Pkcs11Errors.loadHint(e);
      if (Pkcs11Errors.unavailable(e)) {
        throw new KeyServiceUnavailableException(
            "cannot open " + description + ": " + why + hint, e);
      }
      throw new KeyServiceException("cannot open " + description + ": " + why + hint, e);
    }
  }

  /** Drops one reference; the last one logs out and wipes the PIN. */
  void release() {
    // Logout under the registry lock: login state is per process, so a concurrent acquire of the
    // same token must
    // not log in between our removal and our logout.
    synchronized (TokenSession.class) {
      if (--refs > 0) {
        return;
      }
      OPEN.remove(registryKey, this);
      lock.lock();
      try {
        handles.clear();
        view = TokenView.EMPTY;
        Arrays.fill(pin, '\0');
        logoutQuietly(provider);
      } finally {
        lock.unlock();
      }
    }
  }

  String description() {
    return description;
  }

  Provider provider() {
    return provider;
  }

  ReentrantLock lock() {
    return lock;
  }

  /** The current view, re-read from the token first if older than {@code maxAge}. */
  TokenView view(Duration maxAge) {
    if (System.nanoTime() - refreshedAtNanos <= maxAge.toNanos()) {
      return view;
    }
    lock.lock();
    try {
      if (System.nanoTime() - refreshedAtNanos <= maxAge.toNanos()) {
        return view; // another thread refreshed while we waited
      }
      return refresh();
    } finally {
      lock.unlock();
    }
  }

  /** Re-reads the labels of the token's objects (other processes may have changed them). */
  TokenView refresh() {
    lock.lock();
    try {
      // KeyStore.load re-logs in only if the token logged us out, then re-maps every CKA_LABEL.
      keyStore.load(null, pin);
      Set<String> labels = new HashSet<>(Collections.list(keyStore.aliases()));
      handles.keySet().retainAll(labels);
      TokenView fresh = TokenView.of(labels);
      view = fresh;
      refreshedAtNanos = System.nanoTime();
      return fresh;
    } catch (IOException | GeneralSecurityException | ProviderException e) {
      throw failure("cannot read the objects of " + description, e);
    } finally {
      lock.unlock();
    }
  }

  /**
   * The handle of a secret key object.
   *
   * @throws ObjectGoneException if no object has this label any more (deleted by another process)
   */
  SecretKey key(String label) {
    SecretKey cached = handles.get(label);
    if (cached != null) {
      return cached;
    }
    try {
      if (keyStore.getKey(label, null) instanceof SecretKey key) {
        handles.put(label, key);
        return key;
      }
      throw new ObjectGoneException(label);
    } catch (UnrecoverableKeyException e) {
      throw failure("cannot read token object '" + label + "' of " + description, e);
    } catch (GeneralSecurityException | ProviderException e) {
      if (Pkcs11Errors.is(e, "CKR_OBJECT_HANDLE_INVALID", "CKR_KEY_HANDLE_INVALID")) {
        throw new ObjectGoneException(label);
      }
      throw failure("cannot read token object '" + label + "' of " + description, e);
    }
  }

  void forget(String label) {
    handles.remove(label);
  }

  /**
   * Stores a key generated in this token as a persistent object: SunPKCS11 does C_CopyObject with
   * CKA_TOKEN=true, CKA_PRIVATE=true and CKA_LABEL=label; the copy keeps CKA_SENSITIVE=true and
   * CKA_EXTRACTABLE=false.
   */
  void store(String label, SecretKey generated) {
    lock.lock();
    try {
      keyStore.setEntry(label, new KeyStore.SecretKeyEntry(generated), null);
    } catch (GeneralSecurityException | ProviderException e) {
      throw failure("cannot store token object '" + label + "' on " + description, e);
    } finally {
      lock.unlock();
    }
  }

  /** C_DestroyObject on the object labelled {@code label}. */
  void delete(String label) {
    lock.lock();
    try {
      handles.remove(label);
      keyStore.deleteEntry(label);
    } catch (GeneralSecurityException | ProviderException e) {
      throw failure("cannot delete token object '" + label + "' on " + description, e);
    } finally {
      lock.unlock();
    }
  }

  static KeyServiceException failure(String what, Throwable e) {
    String message = what + ": " + Pkcs11Errors.describe(e);
    return Pkcs11Errors.unavailable(e)
        ? new KeyServiceUnavailableException(message, e)
        : new KeyServiceException(message, e);
  }

  private static void logoutQuietly(Provider provider) {
    if (provider instanceof AuthProvider auth) {
      try {
        auth.logout();
      } catch (LoginException | RuntimeException e) {
        // Nothing to do: the session ends with the process at the latest.
      }
    }
  }

  /** Constant-time comparison of two PINs (as UTF-8), wiping the encoded copies. */
  private static boolean samePin(char[] a, char[] b) {
    byte[] x = utf8(a);
    byte[] y = utf8(b);
    try {
      return MessageDigest.isEqual(x, y);
    } finally {
      Arrays.fill(x, (byte) 0);
      Arrays.fill(y, (byte) 0);
    }
  }

  private static byte[] utf8(char[] chars) {
    ByteBuffer encoded = StandardCharsets.UTF_8.encode(CharBuffer.wrap(chars));
    byte[] bytes = Arrays.copyOfRange(encoded.array(), encoded.position(), encoded.limit());
    Arrays.fill(encoded.array(), (byte) 0);
    return bytes;
  }

  /** A token object disappeared under us; the caller refreshes its view and retries once. */
  static final class ObjectGoneException extends RuntimeException {
    ObjectGoneException(String label) {
      super("token object '" + label + "' no longer exists", null, false, false);
    }
  }
}
