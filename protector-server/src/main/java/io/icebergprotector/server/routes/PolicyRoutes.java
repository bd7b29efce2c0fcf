/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.server.routes;

import io.icebergprotector.kms.KeyGrants;
import io.icebergprotector.kms.wire.Endpoints;
import io.icebergprotector.kms.wire.Envelope;
import io.icebergprotector.kms.wire.ProtectorFields;
import io.icebergprotector.policy.Digests;
import io.icebergprotector.policy.Principal;
import io.icebergprotector.server.http.Exchange;
import io.icebergprotector.server.policy.ServedPolicy;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeSet;
import java.util.UUID;

/**
 * What the server's policy says to a caller: {@code GET /v1/protector/policy}, {@code GET
 * /v1/protector/whoami} and {@code POST /v1/protector/declassify}.
 *
 * <p>{@code declassify} names its source in the body: authenticate (401), read and check the body
 * against the policy (413/400 naming the field), then authorize (403, the same body as every 403);
 * allowed or denied, the audit line carries source, columns, destination and query id.
 */
final class PolicyRoutes {
  /**
   * Admins get the policy file as it is. Everyone else gets it restricted to their own roles: the
   * same decisions for them, and no other user, group or role named. Every answer carries the
   * content digest of the whole policy ({@code X-Protector-Policy-Digest}), which a catalog with a
   * local copy compares, and an ETag of the text served; a request whose {@code If-None-Match}
   * names that ETag gets 304 with no body, so catalogs can poll cheaply.
   */
  void readPolicy(Exchange x) {
    x.op("read-policy");
    x.requireMethod("GET");
    x.authenticate();
    Principal principal = x.caller().principal();
    ServedPolicy p = x.served();
    String text;
    String etag;
    if (x.grants().admin()) {
      text = p.text();
      etag = quoted(p.textDigest()); // digested once, when the file was read
    } else {
      text = p.policy().restrictedTo(principal).toHocon();
      etag = quoted(Digests.sha256Hex(text));
    }
    x.header("ETag", etag);
    x.header(Endpoints.POLICY_DIGEST_HEADER, p.digest());
    if (matchesEtag(x.requestHeader("If-None-Match"), etag)) {
      x.sendEmpty(304);
      return;
    }
    x.send(200, "text/plain; charset=utf-8", text.getBytes(StandardCharsets.UTF_8));
  }

  /** Whether an {@code If-None-Match} value (one tag, a list, or *) names {@code etag}. */
  static boolean matchesEtag(String ifNoneMatch, String etag) {
    if (ifNoneMatch == null) {
      return false;
    }
    for (String tag : ifNoneMatch.split(",")) {
      String t = tag.trim();
      if (t.startsWith("W/")) {
        t = t.substring(2);
      }
      if (t.equals("*") || t.equals(etag)) {
        return true;
      }
    }
    return false;
  }

  private static String quoted(String digest) {
    return "\"" + digest + "\"";
  }

  /**
   * Authorizes and audits one write of clear values of protected columns to a destination that does
   * not protect them. The body names the source entry; its {@code declassify} roles decide.
   */
  void declassify(Exchange x) {
    x.op("declassify");
    x.requireMethod("POST");
    x.authenticate();
    Map<String, Object> body = x.readJson(false);
    DeclassifyRequest request;
    try {
      request = DeclassifyRequest.parse(body, x.served().policy());
    } catch (IllegalArgumentException e) {
      throw x.badRequest(null, null, e.getMessage());
    }
    x.details().putAll(request.auditDetails());
    if (!x.served().authorizer().canDeclassify(x.caller().principal(), request.entry())) {
      throw x.deny(null, "no role in the declassify list of " + request.entry().name());
    }
    String auditId = UUID.randomUUID().toString();
    Instant now = Instant.now();
    x.time(now);
    x.details().put(ProtectorFields.AUDIT_ID, auditId);
    x.auditOk(null, null);
    Map<String, Object> receipt = new LinkedHashMap<>();
    receipt.put(ProtectorFields.AUDIT_ID, auditId);
    receipt.put(ProtectorFields.TIME, now.toString());
    receipt.put(ProtectorFields.PRINCIPAL, x.caller().principal().user());
    receipt.put(ProtectorFields.ENTRY, request.entry().name());
    receipt.put(ProtectorFields.COLUMNS, request.columns());
    x.sendJson(200, Envelope.data(receipt));
  }

  void whoami(Exchange x) {
    x.op("whoami");
    x.requireMethod("GET");
    x.authenticate();
    KeyGrants g = x.grants();
    Map<String, Object> data = new LinkedHashMap<>();
    data.put(ProtectorFields.PRINCIPAL, x.caller().principal().user());
    data.put(ProtectorFields.GROUPS, new ArrayList<>(x.caller().principal().groups()));
    data.put(ProtectorFields.ROLES, new ArrayList<>(g.roles()));
    data.put(ProtectorFields.WRAPPABLE_KEYS, new ArrayList<>(new TreeSet<>(g.wrappable())));
    // what this request could unwrap: mask-only keys only through a trusted runtime
    data.put(
        ProtectorFields.UNWRAPPABLE_KEYS,
        new ArrayList<>(
            new TreeSet<>(x.releasesMaskOnlyKeys() ? g.unwrappable() : g.clearUnwrappable())));
    data.put(ProtectorFields.ADMIN, g.admin());
    data.put(ProtectorFields.AUTH, x.caller().method());
    data.put(ProtectorFields.POLICY_DIGEST, x.served().digest());
    x.sendJson(200, Envelope.data(data));
  }
}
