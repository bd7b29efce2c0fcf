/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.server.routes;

import io.icebergprotector.kms.KeyAlreadyExistsException;
import io.icebergprotector.kms.KeyDestroyedException;
import io.icebergprotector.kms.KeyIntegrityException;
import io.icebergprotector.kms.KeyNotFoundException;
import io.icebergprotector.kms.KeyService;
import io.icebergprotector.kms.KeyServiceUnavailableException;
import io.icebergprotector.kms.KeyVersionRetiredException;
import io.icebergprotector.kms.TokenKeysUnsupportedException;
import io.icebergprotector.kms.token.TokenException;
import io.icebergprotector.server.http.Exchange;
import io.icebergprotector.server.http.HttpError;

/**
 * Maps a key-store failure to a client-safe, audited error. Store messages (which name files) never
 * reach clients.
 */
final class KeyFailures {
  private static final System.Logger LOG = System.getLogger(KeyFailures.class.getName());

  private final KeyService keys;

  KeyFailures(KeyService keys) {
    this.keys = keys;
  }

  /**
   * The error of {@code e}, thrown by the key store while serving {@code key} ({@code version} when
   * the request named one), after its audit line.
   */
  HttpError of(Exchange x, String key, Integer version, RuntimeException e) {
    int status;
    String message;
    if (e instanceof HttpError) {
      return (HttpError) e;
    } else if (e instanceof TokenKeysUnsupportedException) {
      status = 501;
      message =
          "this key server's key backend cannot derive token keys (a PKCS#11 token keeps its keys"
              + " unextractable): serve token domains from a key server with keys.type = local";
    } else if (e instanceof TokenException) {
      status = 400;
      message = e.getMessage(); // names the domain and the reason, never a value
    } else if (e instanceof KeyIntegrityException) {
      status = 400;
      message =
          "ciphertext failed the integrity check (tampered, truncated, or wrapped under another key)";
    } else if (e instanceof KeyVersionRetiredException) {
      // Names key and versions only; a client must learn why an old file no longer decrypts.
      status = 400;
      message = e.getMessage();
    } else if (e instanceof KeyDestroyedException) {
      status = 410;
      message = "key '" + key + "' was destroyed";
    } else if (e instanceof KeyAlreadyExistsException) {
      status = 409;
      message = "key '" + key + "' already exists";
    } else if (e instanceof KeyNotFoundException) {
      if (version != null && keyExists(key)) {
        status = 400;
        message = "unknown key version " + version + " of key '" + key + "'";
      } else {
        status = 404;
        message = "key '" + key + "' not found";
      }
    } else if (e instanceof KeyServiceUnavailableException) {
      LOG.log(
          System.Logger.Level.ERROR,
          "key store unavailable during " + x.op() + " of key '" + key + "'",
          e);
      status = 503;
      message = "key store unavailable";
    } else if (e instanceof IllegalArgumentException) {
      status = 400;
      message = "invalid request";
    } else {
      LOG.log(
          System.Logger.Level.ERROR,
          "key store failure during " + x.op() + " of key '" + key + "'",
          e);
      status = 500;
      message = "internal error";
    }
    x.record(key, version, x.op(), "error", message, status);
    return new HttpError(status, message);
  }

  private boolean keyExists(String key) {
    try {
      return !keys.describeKey(key).destroyed();
    } catch (RuntimeException e) {
      return false;
    }
  }
}
