/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.server.routes;

import io.icebergprotector.kms.KeyInfo;
import io.icebergprotector.kms.KeyService;
import io.icebergprotector.kms.KeyServiceException;
import io.icebergprotector.kms.wire.Endpoints;
import io.icebergprotector.kms.wire.Envelope;
import io.icebergprotector.kms.wire.JsonCodec;
import io.icebergprotector.kms.wire.KeyMetadata;
import io.icebergprotector.kms.wire.TransitFields;
import io.icebergprotector.server.http.Exchange;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Vault Transit's key administration, for the server's admin roles: {@code LIST /v1/transit/keys}
 * (or {@code GET ?list=true}), {@code GET|POST|DELETE /v1/transit/keys/<key>} (read, create,
 * destroy), {@code POST /keys/<key>/rotate} and {@code POST /keys/<key>/config} (retire versions
 * below {@code min_decryption_version}).
 *
 * <p>Order of checks: authenticate (401), the caller's rate limit (429), key-name syntax (400),
 * authorize (403), then read the body (413/400), then touch the key store. Authorization looks only
 * at the name, so a 403 is byte-for-byte the same whether the key exists or not.
 */
final class KeyAdminRoutes {
  private final KeyService keys;
  private final KeyFailures failures;

  KeyAdminRoutes(KeyService keys, KeyFailures failures) {
    this.keys = keys;
    this.failures = failures;
  }

  /** Everything under {@code /v1/transit/keys}. */
  void keys(Exchange x, String[] parts) {
    if (parts.length == 1 || (parts.length == 2 && parts[1].isEmpty())) {
      list(x);
      return;
    }
    x.rawKey(parts[1]);
    boolean action =
        parts.length == 3
            && (parts[2].equals(Endpoints.ROTATE) || parts[2].equals(Endpoints.CONFIG));
    if (parts.length == 3 && parts[2].equals(Endpoints.ROTATE)) {
      x.route(RouteTable.TRANSIT + "keys/{key}/rotate");
      x.op("rotate");
      x.requireMethod("POST");
    } else if (parts.length == 3 && parts[2].equals(Endpoints.CONFIG)) {
      // Vault's key config; only min_decryption_version is supported (keys retire).
      x.route(RouteTable.TRANSIT + "keys/{key}/config");
      x.op("retire");
      x.requireMethod("POST");
    } else {
      x.route(RouteTable.TRANSIT + "keys/{key}");
      switch (x.method()) {
        case "GET":
          x.op("read");
          break;
        case "POST":
          x.op("create");
          break;
        case "DELETE":
          x.op("destroy");
          break;
        default:
          throw x.methodNotAllowed("GET, POST, DELETE");
      }
    }
    x.authenticate();
    String key = x.keyName(parts.length == 2 || action);
    x.requireAdmin(key);
    try {
      switch (x.op()) {
        case "create":
          {
            Map<String, Object> body = x.readJson(true);
            String type = JsonCodec.string(body, TransitFields.TYPE);
            if (type != null && !type.equals(TransitFields.KEY_TYPE)) {
              throw x.badRequest(
                  key,
                  null,
                  "unsupported key type '"
                      + Exchange.clip(type)
                      + "': only "
                      + TransitFields.KEY_TYPE);
            }
            KeyInfo info = keys.createKey(key);
            x.auditOk(key, info.latestVersion());
            x.sendJson(200, Envelope.data(KeyMetadata.of(info)));
            return;
          }
        case "rotate":
          {
            KeyInfo info = keys.rotateKey(key);
            x.auditOk(key, info.latestVersion());
            x.sendJson(200, Envelope.data(KeyMetadata.of(info)));
            return;
          }
        case "retire":
          {
            int minimum = minDecryptionVersion(x, key, x.readJson(false));
            KeyInfo info;
            try {
              info = keys.setMinDecryptionVersion(key, minimum);
            } catch (IllegalArgumentException e) {
              // The store's message names the key and versions only; the client needs it to fix the
              // request.
              throw x.badRequest(key, minimum, e.getMessage());
            }
            x.auditOk(key, info.minDecryptionVersion());
            x.sendJson(200, Envelope.data(KeyMetadata.of(info)));
            return;
          }
        case "read":
          {
            KeyInfo info = keys.describeKey(key);
            x.auditOk(key, null);
            x.sendJson(200, Envelope.data(KeyMetadata.of(info)));
            return;
          }
        default:
          { // destroy
            keys.destroyKey(key);
            x.auditOk(key, null);
            x.sendEmpty(204);
          }
      }
    } catch (KeyServiceException | IllegalArgumentException e) {
      throw failures.of(x, key, null, e);
    }
  }

  private void list(Exchange x) {
    x.route(RouteTable.TRANSIT + "keys");
    x.op("list");
    boolean list =
        x.method().equals("LIST") || (x.method().equals("GET") && "list=true".equals(x.query()));
    if (!list) {
      throw x.methodNotAllowed("LIST, GET ?list=true");
    }
    x.authenticate();
    x.requireAdmin(null);
    List<String> names = new ArrayList<>();
    for (KeyInfo info : keys.listKeys()) {
      names.add(info.id());
    }
    x.auditOk(null, null);
    x.sendJson(200, Envelope.data(JsonCodec.object(TransitFields.KEYS, names)));
  }

  private static int minDecryptionVersion(Exchange x, String key, Map<String, Object> body) {
    for (String field : body.keySet()) {
      if (!field.equals(TransitFields.MIN_DECRYPTION_VERSION)) {
        throw x.badRequest(
            key,
            null,
            "unsupported key config field '"
                + Exchange.clip(field)
                + "': only min_decryption_version");
      }
    }
    Long value;
    try {
      value = JsonCodec.integer(body, TransitFields.MIN_DECRYPTION_VERSION);
    } catch (IllegalArgumentException e) {
      throw x.badRequest(key, null, e.getMessage());
    }
    if (value == null || value < 1 || value > Integer.MAX_VALUE) {
      throw x.badRequest(
          key,
          null,
          "field 'min_decryption_version' must be a version number of key '"
              + key
              + "' (got "
              + value
              + ")");
    }
    return Math.toIntExact(value);
  }
}
