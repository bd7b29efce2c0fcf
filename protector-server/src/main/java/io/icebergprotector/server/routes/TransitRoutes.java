/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.server.routes;

import io.icebergprotector.kms.KeyAlreadyExistsException;
import io.icebergprotector.kms.KeyGrants;
import io.icebergprotector.kms.KeyInfo;
import io.icebergprotector.kms.KeyNotFoundException;
import io.icebergprotector.kms.KeyService;
import io.icebergprotector.kms.KeyServiceException;
import io.icebergprotector.kms.WrappedKey;
import io.icebergprotector.kms.wire.Endpoints;
import io.icebergprotector.kms.wire.Envelope;
import io.icebergprotector.kms.wire.JsonCodec;
import io.icebergprotector.kms.wire.TransitFields;
import io.icebergprotector.server.http.Exchange;
import java.nio.charset.CharacterCodingException;
import java.util.Arrays;
import java.util.Base64;
import java.util.Map;

/**
 * Vault Transit's key operations: {@code POST /v1/transit/encrypt/<key>} (wrap), {@code
 * /decrypt/<key>} (unwrap) and {@code /hmac/<key>[/<algorithm>]} (derive).
 *
 * <p>Order of checks: authenticate (401), the caller's rate limit (429), key-name syntax (400),
 * authorize (403), then read the body (413/400), then touch the key store. Authorization looks only
 * at the name, so a 403 is byte-for-byte the same whether the key exists or not.
 */
final class TransitRoutes {
  private final KeyService keys;
  private final KeyFailures failures;
  private final boolean autoCreateKeys;

  TransitRoutes(KeyService keys, KeyFailures failures, boolean autoCreateKeys) {
    this.keys = keys;
    this.failures = failures;
    this.autoCreateKeys = autoCreateKeys;
  }

  /** encrypt, decrypt and hmac of {@code /v1/transit/<action>/<key>[/<algorithm>]}. */
  void keyOperation(Exchange x, String action, String[] parts) {
    x.route(RouteTable.TRANSIT + action + "/{key}");
    x.op(
        action.equals(Endpoints.ENCRYPT)
            ? "wrap"
            : action.equals(Endpoints.DECRYPT) ? "unwrap" : "hmac");
    x.requireMethod("POST");
    x.rawKey(parts.length > 1 ? parts[1] : "");
    String algorithm = null;
    boolean shapeOk = parts.length == 2 || (action.equals(Endpoints.HMAC) && parts.length == 3);
    if (action.equals(Endpoints.HMAC) && parts.length == 3) {
      algorithm = parts[2];
    }
    x.authenticate();
    String key = x.keyName(shapeOk);
    if (action.equals(Endpoints.ENCRYPT)) {
      encrypt(x, key);
    } else if (action.equals(Endpoints.DECRYPT)) {
      decrypt(x, key);
    } else {
      hmac(x, key, algorithm);
    }
  }

  private void encrypt(Exchange x, String key) {
    x.authorize(KeyGrants.Operation.WRAP, key);
    Map<String, Object> body = x.readJson(false);
    rejectBatch(x, key, body);
    byte[] plaintext = x.base64Field(key, body, TransitFields.PLAINTEXT);
    if (plaintext.length == 0) {
      throw x.badRequest(key, null, "field 'plaintext' must not be empty");
    }
    try {
      String ciphertext;
      try {
        ciphertext = keys.wrapKey(plaintext, key);
      } catch (KeyNotFoundException e) {
        if (!autoCreateKeys) {
          throw e;
        }
        autoCreate(x, key);
        ciphertext = keys.wrapKey(plaintext, key);
      }
      int version = WrappedKey.parse(ciphertext).version();
      x.auditOk(key, version);
      x.sendJson(
          200,
          Envelope.data(
              JsonCodec.object(
                  TransitFields.CIPHERTEXT, ciphertext, TransitFields.KEY_VERSION, version)));
    } catch (KeyServiceException | IllegalArgumentException e) {
      throw failures.of(x, key, null, e);
    } finally {
      Arrays.fill(plaintext, (byte) 0);
    }
  }

  private void autoCreate(Exchange x, String key) {
    try {
      KeyInfo info = keys.createKey(key);
      x.record(key, info.latestVersion(), "create", "allow", "auto-created on first wrap", 200);
    } catch (KeyAlreadyExistsException raced) {
      // another request created it first
    }
  }

  private void decrypt(Exchange x, String key) {
    x.authorize(KeyGrants.Operation.UNWRAP, key);
    Map<String, Object> body = x.readJson(false);
    rejectBatch(x, key, body);
    String ciphertext = x.stringField(key, body, TransitFields.CIPHERTEXT);
    int version;
    try {
      version = WrappedKey.parse(ciphertext).version();
    } catch (IllegalArgumentException e) {
      throw x.badRequest(key, null, "invalid ciphertext: " + e.getMessage());
    }
    byte[] plaintext = null;
    try {
      plaintext = keys.unwrapKey(ciphertext, key);
      String encoded = Base64.getEncoder().encodeToString(plaintext);
      x.auditOk(key, version);
      x.sendJson(200, Envelope.data(JsonCodec.object(TransitFields.PLAINTEXT, encoded)));
    } catch (KeyServiceException | IllegalArgumentException e) {
      throw failures.of(x, key, version, e);
    } finally {
      if (plaintext != null) {
        Arrays.fill(plaintext, (byte) 0);
      }
    }
  }

  private void hmac(Exchange x, String key, String algorithm) {
    KeyGrants grants = x.grants();
    if (grants.allows(KeyGrants.Operation.DERIVE, key)) {
      x.requireRuntimeIfMasksOnly(KeyGrants.Operation.DERIVE, key);
    } else if (grants.allows(KeyGrants.Operation.HASH_MASK_KEY, key)) {
      x.requireRuntimeIfMasksOnly(KeyGrants.Operation.HASH_MASK_KEY, key);
    } else {
      throw x.deny(key, KeyGrants.Operation.DERIVE.refusal());
    }
    Map<String, Object> body = x.readJson(false);
    rejectBatch(x, key, body);
    String algo;
    try {
      algo = algorithm != null ? algorithm : JsonCodec.string(body, TransitFields.ALGORITHM);
    } catch (IllegalArgumentException e) {
      // a non-string algorithm is the caller's mistake: 400 naming the field, never a 500
      throw x.badRequest(key, null, e.getMessage());
    }
    if (algo != null && !algo.equals("sha2-256")) {
      throw x.badRequest(
          key, null, "unsupported hmac algorithm '" + Exchange.clip(algo) + "': only sha2-256");
    }
    Long requested;
    try {
      requested = JsonCodec.integer(body, TransitFields.KEY_VERSION);
    } catch (IllegalArgumentException e) {
      throw x.badRequest(key, null, e.getMessage());
    }
    if (requested != null && requested != 0 && requested != 1) {
      // derived keys are always from version 1 so that hash masks survive rotation
      throw x.badRequest(
          key, null, "unknown key version " + requested + " for hmac: only version 1 is supported");
    }
    byte[] input = x.base64Field(key, body, TransitFields.INPUT);
    String context;
    try {
      context = Exchange.strictUtf8(input);
    } catch (CharacterCodingException e) {
      throw x.badRequest(key, 1, "input must be base64 of UTF-8 text");
    } finally {
      Arrays.fill(input, (byte) 0);
    }
    // the protector's own mask keys: only the hash-mask key, only to whoever masks with it
    KeyGrants.Operation rule = KeyGrants.derivation(context);
    if (rule == null) {
      throw x.deny(key, "the context is reserved for the key server's own keys");
    }
    if (!grants.allows(rule, key)) {
      throw x.deny(key, rule.refusal());
    }
    byte[] mac = null;
    try {
      mac = keys.deriveKey(key, context);
      String out = TransitFields.HMAC_PREFIX + Base64.getEncoder().encodeToString(mac);
      x.auditOk(key, 1);
      x.sendJson(200, Envelope.data(JsonCodec.object(TransitFields.HMAC, out)));
    } catch (KeyServiceException | IllegalArgumentException e) {
      throw failures.of(x, key, 1, e);
    } finally {
      if (mac != null) {
        Arrays.fill(mac, (byte) 0);
      }
    }
  }

  private static void rejectBatch(Exchange x, String key, Map<String, Object> body) {
    if (body.containsKey(TransitFields.BATCH_INPUT)) {
      throw x.badRequest(key, null, "batch_input is not supported");
    }
  }
}
