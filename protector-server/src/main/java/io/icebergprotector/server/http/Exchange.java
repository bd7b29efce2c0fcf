/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.server.http;

import io.icebergprotector.kms.KeyGrants;
import io.icebergprotector.kms.wire.Endpoints;
import io.icebergprotector.kms.wire.Envelope;
import io.icebergprotector.kms.wire.JsonCodec;
import io.icebergprotector.policy.KeyIds;
import io.icebergprotector.server.audit.AuditLog;
import io.icebergprotector.server.auth.AuthenticationException;
import io.icebergprotector.server.auth.Caller;
import io.icebergprotector.server.policy.ServedPolicy;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * One request and its answer, as every route handles it: the checks (method, authentication and the
 * caller's rate limit, key-name syntax, authorization), the body (size limit, strict UTF-8 and
 * JSON), the audit line with its metric, and the reply. Refusals come back as an {@link HttpError}
 * for the route to throw, after their audit line is written; the {@link Router} answers them.
 *
 * <p>A route names what it serves first ({@link #route}, {@link #op}, {@link #rawKey}), so that
 * every later audit line and metric carries it.
 */
public final class Exchange {
  private static final System.Logger LOG = System.getLogger(Exchange.class.getName());
  private static final int CLIP = 40;

  private final HttpCall call;
  private final Exchanges shared;
  private final ServedPolicy served; // the policy this request is decided under, start to end
  private final String method;
  private final String path;
  private final String query;
  private final String client;
  private final Map<String, String> responseHeaders = new LinkedHashMap<>();
  private byte[] responseBody = new byte[0];
  private int status = 500;
  private String route = "unmatched";
  private String op;
  private String rawKey;
  private Caller caller;
  private String runtime; // the trusted runtime acting for the caller, when one is attested
  private boolean bodyRead;
  private long bodyLimit;
  private Instant time; // when set, the time of the audit line (and of a receipt)
  private Map<String, Object> details; // extra audit members of the operation

  Exchange(HttpCall call, Exchanges shared, ServedPolicy served) {
    this.call = call;
    this.shared = shared;
    this.served = served;
    this.method = call.method().toUpperCase(Locale.ROOT);
    this.path = call.rawPath() == null ? "" : call.rawPath();
    this.query = call.rawQuery();
    this.client = call.clientAddress() == null ? "-" : call.clientAddress();
    this.bodyLimit = shared.maxBodyBytes;
  }

  // ---- what is served ------------------------------------------------------------------------

  /** The request method, upper case. */
  public String method() {
    return method;
  }

  /** The path as sent, still percent-encoded. */
  String path() {
    return path;
  }

  /** The query as sent, still percent-encoded; null when there is none. */
  public String query() {
    return query;
  }

  /** The first value of a request header; null when absent. */
  public String requestHeader(String name) {
    return call.header(name);
  }

  /** The route template of the metrics (e.g. {@code /v1/transit/encrypt/{key}}). */
  public void route(String template) {
    this.route = template;
  }

  String route() {
    return route;
  }

  /** The operation the audit lines and metrics name (e.g. {@code unwrap}). */
  public void op(String operation) {
    this.op = operation;
  }

  public String op() {
    return op;
  }

  /** The key name as the path gives it, for audit lines before it is checked. */
  public void rawKey(String key) {
    this.rawKey = key;
  }

  /** Token batches may carry larger bodies: {@code limits.max-batch-body-size}. */
  public void useBatchBodyLimit() {
    this.bodyLimit = shared.maxBatchBodyBytes;
  }

  /** The policy this request is decided under, from start to end. */
  public ServedPolicy served() {
    return served;
  }

  /** The authenticated caller; null before {@link #authenticate}. */
  public Caller caller() {
    return caller;
  }

  /** What the policy grants the authenticated caller. */
  public KeyGrants grants() {
    return served.authorizer().grants(caller.principal());
  }

  /** Extra members of the audit lines of this request, in order; written after the key. */
  public Map<String, Object> details() {
    if (details == null) {
      details = new LinkedHashMap<>();
    }
    return details;
  }

  /** The time the audit line states (and a receipt repeats); now when not set. */
  public void time(Instant at) {
    this.time = at;
  }

  // ---- checks --------------------------------------------------------------------------------

  public void requireMethod(String allowed) {
    if (!method.equals(allowed)) {
      throw methodNotAllowed(allowed);
    }
  }

  public HttpError methodNotAllowed(String allowed) {
    header("Allow", allowed);
    return new HttpError(405, "method " + method + " not allowed here");
  }

  /**
   * Authenticates the token of {@code X-Vault-Token} or {@code Authorization: Bearer} (401), then
   * takes one request of the caller's rate limit (429); both refusals are audited.
   */
  public void authenticate() {
    String token = call.header(Endpoints.TOKEN_HEADER);
    if (token == null) {
      String authorization = call.header("Authorization");
      if (authorization != null && authorization.regionMatches(true, 0, "Bearer ", 0, 7)) {
        token = authorization.substring(7).strip();
      }
    }
    try {
      caller = shared.authenticator.authenticate(token == null ? null : token.strip());
    } catch (AuthenticationException e) {
      shared.metrics.authFailure(e.getMessage());
      String reason = "authentication failed: " + e.getMessage();
      record(rawKey, null, op, "deny", reason, 401);
      header("WWW-Authenticate", "Bearer realm=\"iceberg-protector\"");
      throw new HttpError(401, reason);
    }
    if (!shared.rateLimits.tryAcquire(caller.principal())) {
      String reason = shared.rateLimits.refusal(caller.principal());
      shared.metrics.rateLimited();
      record(rawKey, null, op, "deny", reason, 429);
      header("Retry-After", Long.toString(shared.rateLimits.retryAfterSeconds()));
      throw new HttpError(429, reason);
    }
    String runtimeToken = call.header(Endpoints.RUNTIME_TOKEN_HEADER);
    if (runtimeToken != null) {
      try {
        runtime = shared.runtimes.authenticate(runtimeToken);
      } catch (AuthenticationException e) {
        shared.metrics.authFailure(e.getMessage());
        String reason = "runtime authentication failed: " + e.getMessage();
        record(rawKey, null, op, "deny", reason, 401);
        header("WWW-Authenticate", "Bearer realm=\"iceberg-protector\"");
        throw new HttpError(401, reason);
      }
      details().put("runtime", runtime);
    }
  }

  /**
   * The trusted runtime acting for the caller ({@code token:<name>}, {@code jwt:<sub>}), or null.
   */
  public String runtime() {
    return runtime;
  }

  /** The key name of the path, when the path has the route's shape and the name is valid (400). */
  public String keyName(boolean shapeOk) {
    if (!shapeOk || !KeyIds.isValid(rawKey)) {
      throw badRequest(null, null, "invalid key name: must be " + KeyIds.RULE);
    }
    return rawKey;
  }

  public void requireAdmin(String key) {
    authorize(KeyGrants.Operation.ADMIN, key);
  }

  /**
   * The shared rule decides; a refusal is audited with its reason and answered with the one 403.
   */
  public void authorize(KeyGrants.Operation operation, String key) {
    if (!grants().allows(operation, key)) {
      throw deny(key, operation.refusal());
    }
    requireRuntimeIfMasksOnly(operation, key);
  }

  /**
   * Refuses (403, audited) an allowed {@code operation} that would release a key the caller uses
   * only to mask ({@link KeyGrants#masksOnly}) to anyone but a trusted runtime acting for it:
   * holding the key, the caller would read the values behind its masks. Single-user servers ({@code
   * auth.release-mask-keys-to-principals}) release it to the caller's own token.
   */
  public void requireRuntimeIfMasksOnly(KeyGrants.Operation operation, String key) {
    if (!releasesMaskOnlyKeys() && grants().masksOnly(operation, key)) {
      throw deny(key, MASKS_ONLY_REFUSAL);
    }
  }

  /** Whether this request gets the keys its principal uses only to mask. */
  public boolean releasesMaskOnlyKeys() {
    return runtime != null || shared.runtimes.releasesMaskKeysToPrincipals();
  }

  private static final String MASKS_ONLY_REFUSAL =
      "masked access only: a key the principal uses only to mask is released to a trusted runtime"
          + " acting for it (X-Protector-Runtime-Token), never to the principal's own token";

  /** Audits a refusal with its reason; the answer is the same 403 whatever the reason. */
  public HttpError deny(String key, String reason) {
    record(key, null, op, "deny", reason, 403);
    return new HttpError(403, "permission denied");
  }

  /** Audits a bad request (of the path's key when {@code key} is null) and answers its 400. */
  public HttpError badRequest(String key, Integer version, String message) {
    record(key != null ? key : rawKey, version, op, "error", message, 400);
    return new HttpError(400, message);
  }

  /** A caller's text as messages quote it: at most 40 characters. */
  public static String clip(String s) {
    return s.length() > CLIP ? s.substring(0, CLIP) + "..." : s;
  }

  // ---- body ----------------------------------------------------------------------------------

  /** The body as a JSON object; an empty body is an empty object only when allowed (400). */
  public Map<String, Object> readJson(boolean emptyAllowed) {
    byte[] bytes = readBody();
    if (bytes.length == 0) {
      if (emptyAllowed) {
        return new LinkedHashMap<>();
      }
      throw emptyBody();
    }
    String text;
    try {
      text = strictUtf8(bytes);
    } catch (CharacterCodingException e) {
      throw badRequest(null, null, "request body is not valid UTF-8");
    }
    try {
      return JsonCodec.parseObject(text);
    } catch (IllegalArgumentException e) {
      throw malformedJson(e);
    }
  }

  /** The 400 of a request whose body is empty where a JSON object is required. */
  public HttpError emptyBody() {
    return badRequest(null, null, "request body is empty: a JSON object is required");
  }

  /** The 400 of a body the JSON reader refused, with the reader's message. */
  public HttpError malformedJson(IllegalArgumentException e) {
    return badRequest(null, null, "malformed JSON: " + e.getMessage());
  }

  /** UTF-8 text; malformed or unmappable input is refused, never replaced. */
  public static String strictUtf8(byte[] bytes) throws CharacterCodingException {
    return StandardCharsets.UTF_8
        .newDecoder()
        .onMalformedInput(CodingErrorAction.REPORT)
        .onUnmappableCharacter(CodingErrorAction.REPORT)
        .decode(ByteBuffer.wrap(bytes))
        .toString();
  }

  /** The body, within the route's size limit (413, and the connection closes). */
  public byte[] readBody() {
    bodyRead = true;
    String length = call.header("Content-Length");
    if (length != null) {
      long declared;
      try {
        declared = Long.parseLong(length.trim());
      } catch (NumberFormatException e) {
        throw new HttpError(400, "invalid Content-Length", true);
      }
      if (declared > bodyLimit) {
        throw tooLarge();
      }
    }
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    byte[] chunk = new byte[8192];
    try (InputStream in = call.body()) {
      int n;
      while ((n = in.read(chunk)) > 0) {
        if (out.size() + n > bodyLimit) {
          throw tooLarge();
        }
        out.write(chunk, 0, n);
      }
    } catch (IOException e) {
      throw new HttpError(400, "cannot read request body", true);
    }
    return out.toByteArray();
  }

  private HttpError tooLarge() {
    String message =
        "request body larger than "
            + bodyLimit
            + " bytes"
            + (bodyLimit == shared.maxBatchBodyBytes && bodyLimit != shared.maxBodyBytes
                ? " (limits.max-batch-body-size)"
                : " (limits.max-body-size)");
    record(rawKey, null, op, "error", message, 413);
    return new HttpError(413, message, true); // unread body: do not reuse the connection
  }

  /** A required non-empty string member of the body (400 naming it). */
  public String stringField(String key, Map<String, Object> body, String field) {
    Object value = body.get(field);
    if (!(value instanceof String) || ((String) value).isEmpty()) {
      throw missingString(key, field);
    }
    return (String) value;
  }

  /** The 400 of a missing or empty string member. */
  public HttpError missingString(String key, String field) {
    return badRequest(
        key, null, "field '" + field + "' is required and must be a non-empty string");
  }

  /** A required base64 member of the body, decoded (400 naming it). */
  public byte[] base64Field(String key, Map<String, Object> body, String field) {
    String text = stringField(key, body, field);
    try {
      return Base64.getDecoder().decode(text);
    } catch (IllegalArgumentException e) {
      throw badRequest(key, null, "field '" + field + "' is not valid base64");
    }
  }

  /**
   * Reads and drops an unread request body (up to the size limit) before an early answer. The JDK
   * HTTPS server can otherwise leave the keep-alive connection stuck, so the client's next request
   * on it would hang. Returns false if the body could not be consumed: then the connection closes.
   */
  private void finishRequestBody() {
    if (!bodyRead && !discardBody()) {
      header("Connection", "close");
    }
  }

  private boolean discardBody() {
    bodyRead = true;
    String length = call.header("Content-Length");
    try {
      if (length != null && Long.parseLong(length.trim()) > bodyLimit) {
        return false;
      }
    } catch (NumberFormatException e) {
      return false;
    }
    try (InputStream in = call.body()) {
      byte[] chunk = new byte[8192];
      long total = 0;
      int n;
      while ((n = in.read(chunk)) > 0) {
        total += n;
        if (total > bodyLimit) {
          return false;
        }
      }
      return true;
    } catch (IOException e) {
      return false;
    }
  }

  // ---- audit ---------------------------------------------------------------------------------

  /**
   * Audits the allowed operation before its answer goes out; when the line cannot be written the
   * request fails (500) instead: nothing is released that the log does not name.
   */
  public void auditOk(String key, Integer version) {
    try {
      shared.audit.record(
          new AuditLog.Event(
              principalName(),
              authOf(),
              op,
              key,
              version,
              "allow",
              null,
              200,
              client,
              time,
              details));
      shared.metrics.operation(op, "allow");
    } catch (UncheckedIOException e) {
      shared.metrics.auditError();
      shared.metrics.operation(op, "error");
      LOG.log(System.Logger.Level.ERROR, "audit write failed; refusing " + op, e);
      throw new HttpError(500, "audit log unavailable");
    }
  }

  /**
   * Records a refusal or error; a failing audit write does not turn a refusal into anything else.
   */
  public void record(
      String key, Integer version, String operation, String decision, String reason, int status) {
    String named = operation == null ? "unknown" : operation;
    shared.metrics.operation(named, decision);
    try {
      shared.audit.record(
          new AuditLog.Event(
              principalName(),
              authOf(),
              named,
              key,
              version,
              decision,
              reason,
              status,
              client,
              null,
              details));
    } catch (UncheckedIOException e) {
      shared.metrics.auditError();
      LOG.log(System.Logger.Level.ERROR, "audit write failed", e);
    }
  }

  private String principalName() {
    return caller == null ? null : caller.principal().user();
  }

  private String authOf() {
    return caller == null ? null : caller.method();
  }

  // ---- replies -------------------------------------------------------------------------------

  /** Sets a response header. */
  public void header(String name, String value) {
    responseHeaders.put(name, value);
  }

  public void sendJson(int status, Map<String, Object> body) {
    send(status, "application/json", JsonCodec.write(body).getBytes(StandardCharsets.UTF_8));
  }

  public void send(int status, String contentType, byte[] body) {
    this.status = status;
    finishRequestBody();
    header("Content-Type", contentType);
    header("Cache-Control", "no-store");
    header("X-Content-Type-Options", "nosniff");
    this.responseBody = body;
  }

  public void sendEmpty(int status) {
    this.status = status;
    finishRequestBody();
    header("Cache-Control", "no-store");
    this.responseBody = new byte[0];
  }

  /**
   * The Vault-style error answer; a 403 names the caller's own principal (the same for any key).
   */
  void sendError(int status, String message, boolean close) {
    Map<String, Object> body = Envelope.error(message);
    if (status == 403 && caller != null) {
      body.put(Envelope.PRINCIPAL, caller.principal().user());
    }
    if (close) {
      header("Connection", "close");
    }
    sendJson(status, body);
  }

  int status() {
    return status;
  }

  Reply reply() {
    return new Reply(status, responseHeaders, responseBody);
  }
}
