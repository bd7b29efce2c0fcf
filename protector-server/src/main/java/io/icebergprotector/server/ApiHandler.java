package io.icebergprotector.server;

import io.icebergprotector.kms.KeyAlreadyExistsException;
import io.icebergprotector.kms.KeyDestroyedException;
import io.icebergprotector.kms.KeyGrants;
import io.icebergprotector.kms.KeyInfo;
import io.icebergprotector.kms.KeyIntegrityException;
import io.icebergprotector.kms.KeyNotFoundException;
import io.icebergprotector.kms.KeyService;
import io.icebergprotector.kms.KeyServiceException;
import io.icebergprotector.kms.KeyServiceUnavailableException;
import io.icebergprotector.kms.KeyVersionRetiredException;
import io.icebergprotector.kms.TokenKeysUnsupportedException;
import io.icebergprotector.kms.WrappedKey;
import io.icebergprotector.kms.token.TokenException;
import io.icebergprotector.kms.token.TokenKey;
import io.icebergprotector.kms.token.TokenMode;
import io.icebergprotector.kms.token.Tokenizer;
import io.icebergprotector.kms.wire.JsonCodec;
import io.icebergprotector.policy.ColumnPolicy;
import io.icebergprotector.policy.Digests;
import io.icebergprotector.policy.KeyIds;
import io.icebergprotector.policy.Principal;
import io.icebergprotector.policy.ProtectionMethod;
import io.icebergprotector.server.audit.AuditLog;
import io.icebergprotector.server.audit.Metrics;
import io.icebergprotector.server.auth.AuthenticationException;
import io.icebergprotector.server.auth.Caller;
import io.icebergprotector.server.auth.CallerRateLimits;
import io.icebergprotector.server.auth.TokenAuthenticator;
import io.icebergprotector.server.config.ServerConfig;
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
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.UUID;

/**
 * The HTTP API. Routing works on the raw (still percent-encoded) path, so an encoded slash or dot
 * can never turn into a path step: a key name is one segment following {@link KeyIds#RULE}.
 *
 * <p>Order of checks on key routes: authenticate (401), the caller's rate limit (429), key-name
 * syntax (400), authorize (403), then read the body (413/400), then touch the key store.
 * Authorization looks only at the name, so a 403 is byte-for-byte the same whether the key exists
 * or not.
 *
 * <p>{@code POST /v1/protector/declassify} names its source in the body: authenticate (401), read
 * and check the body against the policy (413/400 naming the field), then authorize (403, the same
 * body as every 403); allowed or denied, the audit line carries source, columns, destination and
 * query id.
 *
 * <p>The token routes {@code POST /v1/protector/token-key/<key>}, {@code /encode/<key>} and {@code
 * /decode/<key>} name their token domain in the body as well: authenticate (401), key-name syntax
 * (400), read the body (413/400 naming the field), authorize key and domain (403, the same body as
 * every 403), then check the method against the policy's (400) and touch the key store. One audit
 * line per request: a batch's line carries domain, method and the count of values, never a value.
 */
final class ApiHandler {
  private static final System.Logger LOG = System.getLogger(ApiHandler.class.getName());
  private static final String TRANSIT = "/v1/transit/";
  private static final String PROTECTOR = "/v1/protector/";
  private static final String KEY_TYPE = "aes256-gcm96";
  static final String POLICY_DIGEST_HEADER = "X-Protector-Policy-Digest";

  private final KeyService keys;
  private volatile ServedPolicy served;
  private final TokenAuthenticator authenticator;
  private final CallerRateLimits rateLimits;
  private final AuditLog audit;
  private final Metrics metrics;
  private final long maxBodyBytes;
  private final long maxBatchBodyBytes;
  private final int maxBatchValues;
  private final boolean autoCreateKeys;
  private final boolean metricsRequireAuth;
  private final Map<String, Route> exact;
  private final Map<String, Route> transit;
  private final Map<String, Route> protector;

  ApiHandler(
      KeyService keys,
      ServedPolicy policy,
      TokenAuthenticator authenticator,
      AuditLog audit,
      Metrics metrics,
      ServerConfig config) {
    this.keys = keys;
    this.served = policy;
    this.authenticator = authenticator;
    this.rateLimits = new CallerRateLimits(config.rateLimit());
    this.audit = audit;
    this.metrics = metrics;
    this.maxBodyBytes = config.maxBodyBytes();
    this.maxBatchBodyBytes = config.maxBatchBodyBytes();
    this.maxBatchValues = config.maxBatchValues();
    this.autoCreateKeys = config.autoCreateKeys();
    this.metricsRequireAuth = config.metricsRequireAuth();
    this.exact = exactRoutes();
    this.transit = transitRoutes();
    this.protector = protectorRoutes();
  }

  /** The policy that requests starting now are decided under. */
  ServedPolicy served() {
    return served;
  }

  /** Serves {@code policy} to every request that starts from now on. */
  void install(ServedPolicy policy) {
    this.served = policy;
  }

  /** The answer to one request, for the transport to send. */
  record Reply(int status, Map<String, String> headers, byte[] body) {}

  /** Per-request state. */
  private static final class Request {
    final HttpCall call;
    final String method;
    final String path;
    final String query;
    final String client;
    final Map<String, String> responseHeaders = new LinkedHashMap<>();
    byte[] responseBody = new byte[0];
    String route = "unmatched";
    String op;
    String rawKey;
    Caller caller;
    int status = 500;
    boolean bodyRead;
    long bodyLimit;
    Instant time; // when set, the time of the audit line (and of a receipt)
    Map<String, Object> details; // extra audit members of the operation
    ServedPolicy served; // the policy this request is decided under, from start to end

    Request(HttpCall call) {
      this.call = call;
      this.method = call.method().toUpperCase(Locale.ROOT);
      this.path = call.rawPath() == null ? "" : call.rawPath();
      this.query = call.rawQuery();
      this.client = call.clientAddress() == null ? "-" : call.clientAddress();
    }

    Request(HttpCall call, long bodyLimit) {
      this(call);
      this.bodyLimit = bodyLimit;
    }

    String principalName() {
      return caller == null ? null : caller.principal().user();
    }

    void header(String name, String value) {
      responseHeaders.put(name, value);
    }
  }

  /** Serves one request; never throws. The audit line (if any) is written before this returns. */
  Reply handle(HttpCall call) {
    long start = System.nanoTime();
    Request r = new Request(call, maxBodyBytes);
    r.served = served;
    try {
      dispatch(r);
    } catch (HttpError e) {
      sendError(r, e.status, e.getMessage(), e.closeConnection);
    } catch (RuntimeException | Error e) {
      LOG.log(System.Logger.Level.ERROR, "internal error on " + r.method + " " + r.route, e);
      sendError(r, 500, "internal error", true);
    } finally {
      metrics.request(r.route, r.method, r.status, System.nanoTime() - start);
    }
    return new Reply(r.status, r.responseHeaders, r.responseBody);
  }

  // ---- routing -------------------------------------------------------------------------------

  /**
   * Serves one route. {@code tail} is the raw path below the route's prefix split at '/' (empty for
   * an exact route); the route checks the method, authenticates and decides everything else.
   */
  @FunctionalInterface
  private interface Route {
    void serve(Request r, String[] tail);
  }

  /** Exact paths: the route table. A new endpoint is one more line here. */
  private Map<String, Route> exactRoutes() {
    Map<String, Route> m = new LinkedHashMap<>();
    m.put("/health", (r, tail) -> health(r));
    m.put("/metrics", (r, tail) -> metricsPage(r));
    m.put("/v1/protector/policy", (r, tail) -> readPolicy(r));
    m.put("/v1/protector/declassify", (r, tail) -> declassify(r));
    m.put("/v1/protector/whoami", (r, tail) -> whoami(r));
    return m;
  }

  /** Prefix routes under {@code /v1/transit/<action>}: the key name (and more) follows. */
  private Map<String, Route> transitRoutes() {
    Map<String, Route> m = new LinkedHashMap<>();
    m.put("encrypt", (r, tail) -> keyOperation(r, "encrypt", tail));
    m.put("decrypt", (r, tail) -> keyOperation(r, "decrypt", tail));
    m.put("hmac", (r, tail) -> keyOperation(r, "hmac", tail));
    m.put("keys", this::keysRoute);
    return m;
  }

  /** Prefix routes under {@code /v1/protector/<action>}: the key name follows. */
  private Map<String, Route> protectorRoutes() {
    Map<String, Route> m = new LinkedHashMap<>();
    m.put("token-key", this::tokenKey);
    m.put("encode", (r, tail) -> tokenBatch(r, tail, true));
    m.put("decode", (r, tail) -> tokenBatch(r, tail, false));
    return m;
  }

  private void dispatch(Request r) {
    Route route = exact.get(r.path);
    if (route != null) {
      r.route = r.path;
      route.serve(r, new String[0]);
      return;
    }
    if (r.path.startsWith(TRANSIT)) {
      String[] parts = r.path.substring(TRANSIT.length()).split("/", -1);
      route = transit.get(parts[0]);
      if (route != null) {
        route.serve(r, parts);
        return;
      }
    }
    if (r.path.startsWith(PROTECTOR)) {
      String[] parts = r.path.substring(PROTECTOR.length()).split("/", -1);
      route = protector.get(parts[0]);
      if (route != null) {
        route.serve(r, parts);
        return;
      }
    }
    throw new HttpError(404, "unsupported path");
  }

  private void health(Request r) {
    requireMethod(r, "GET");
    sendJson(r, 200, JsonCodec.object("status", "ok"));
  }

  private void metricsPage(Request r) {
    requireMethod(r, "GET");
    if (metricsRequireAuth) {
      r.op = "metrics";
      authenticate(r);
    }
    send(r, 200, Metrics.CONTENT_TYPE, metrics.render().getBytes(StandardCharsets.UTF_8));
  }

  /** encrypt, decrypt and hmac of {@code /v1/transit/<action>/<key>[/<algorithm>]}. */
  private void keyOperation(Request r, String action, String[] parts) {
    r.route = TRANSIT + action + "/{key}";
    r.op = action.equals("encrypt") ? "wrap" : action.equals("decrypt") ? "unwrap" : "hmac";
    requireMethod(r, "POST");
    r.rawKey = parts.length > 1 ? parts[1] : "";
    String algorithm = null;
    boolean shapeOk = parts.length == 2 || (action.equals("hmac") && parts.length == 3);
    if (action.equals("hmac") && parts.length == 3) {
      algorithm = parts[2];
    }
    authenticate(r);
    String key = keyName(r, shapeOk);
    if (action.equals("encrypt")) {
      encrypt(r, key);
    } else if (action.equals("decrypt")) {
      decrypt(r, key);
    } else {
      hmac(r, key, algorithm);
    }
  }

  private void keysRoute(Request r, String[] parts) {
    if (parts.length == 1 || (parts.length == 2 && parts[1].isEmpty())) {
      r.route = TRANSIT + "keys";
      r.op = "list";
      boolean list =
          r.method.equals("LIST") || (r.method.equals("GET") && "list=true".equals(r.query));
      if (!list) {
        throw methodNotAllowed(r, "LIST, GET ?list=true");
      }
      authenticate(r);
      requireAdmin(r, null);
      List<String> names = new ArrayList<>();
      for (KeyInfo info : keys.listKeys()) {
        names.add(info.id());
      }
      auditOk(r, null, null);
      sendJson(r, 200, JsonCodec.object("data", JsonCodec.object("keys", names)));
      return;
    }
    r.rawKey = parts[1];
    boolean action = parts.length == 3 && (parts[2].equals("rotate") || parts[2].equals("config"));
    if (parts.length == 3 && parts[2].equals("rotate")) {
      r.route = TRANSIT + "keys/{key}/rotate";
      r.op = "rotate";
      requireMethod(r, "POST");
    } else if (parts.length == 3 && parts[2].equals("config")) {
      // Vault's key config; only min_decryption_version is supported (keys retire).
      r.route = TRANSIT + "keys/{key}/config";
      r.op = "retire";
      requireMethod(r, "POST");
    } else {
      r.route = TRANSIT + "keys/{key}";
      switch (r.method) {
        case "GET":
          r.op = "read";
          break;
        case "POST":
          r.op = "create";
          break;
        case "DELETE":
          r.op = "destroy";
          break;
        default:
          throw methodNotAllowed(r, "GET, POST, DELETE");
      }
    }
    authenticate(r);
    String key = keyName(r, parts.length == 2 || action);
    requireAdmin(r, key);
    try {
      switch (r.op) {
        case "create":
          {
            Map<String, Object> body = readJson(r, true);
            String type = JsonCodec.string(body, "type");
            if (type != null && !type.equals(KEY_TYPE)) {
              throw badRequest(
                  r, key, null, "unsupported key type '" + clip(type) + "': only " + KEY_TYPE);
            }
            KeyInfo info = keys.createKey(key);
            auditOk(r, key, info.latestVersion());
            sendJson(r, 200, JsonCodec.object("data", keyInfoJson(info)));
            return;
          }
        case "rotate":
          {
            KeyInfo info = keys.rotateKey(key);
            auditOk(r, key, info.latestVersion());
            sendJson(r, 200, JsonCodec.object("data", keyInfoJson(info)));
            return;
          }
        case "retire":
          {
            int minimum = minDecryptionVersion(r, key, readJson(r, false));
            KeyInfo info;
            try {
              info = keys.setMinDecryptionVersion(key, minimum);
            } catch (IllegalArgumentException e) {
              // The store's message names the key and versions only; the client needs it to fix the
              // request.
              throw badRequest(r, key, minimum, e.getMessage());
            }
            auditOk(r, key, info.minDecryptionVersion());
            sendJson(r, 200, JsonCodec.object("data", keyInfoJson(info)));
            return;
          }
        case "read":
          {
            KeyInfo info = keys.describeKey(key);
            auditOk(r, key, null);
            sendJson(r, 200, JsonCodec.object("data", keyInfoJson(info)));
            return;
          }
        default:
          { // destroy
            keys.destroyKey(key);
            auditOk(r, key, null);
            r.status = 204;
            sendEmpty(r, 204);
          }
      }
    } catch (KeyServiceException | IllegalArgumentException e) {
      throw keyFailure(r, key, null, e);
    }
  }

  private int minDecryptionVersion(Request r, String key, Map<String, Object> body) {
    for (String field : body.keySet()) {
      if (!field.equals("min_decryption_version")) {
        throw badRequest(
            r,
            key,
            null,
            "unsupported key config field '" + clip(field) + "': only min_decryption_version");
      }
    }
    Long value;
    try {
      value = JsonCodec.integer(body, "min_decryption_version");
    } catch (IllegalArgumentException e) {
      throw badRequest(r, key, null, e.getMessage());
    }
    if (value == null || value < 1 || value > Integer.MAX_VALUE) {
      throw badRequest(
          r,
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

  // ---- key operations ------------------------------------------------------------------------

  private void encrypt(Request r, String key) {
    authorize(r, KeyGrants.Operation.WRAP, key);
    Map<String, Object> body = readJson(r, false);
    rejectBatch(r, key, body);
    byte[] plaintext = base64Field(r, key, body, "plaintext");
    if (plaintext.length == 0) {
      throw badRequest(r, key, null, "field 'plaintext' must not be empty");
    }
    try {
      String ciphertext;
      try {
        ciphertext = keys.wrap(key, plaintext);
      } catch (KeyNotFoundException e) {
        if (!autoCreateKeys) {
          throw e;
        }
        autoCreate(r, key);
        ciphertext = keys.wrap(key, plaintext);
      }
      int version = WrappedKey.parse(ciphertext).version();
      auditOk(r, key, version);
      sendJson(
          r,
          200,
          JsonCodec.object(
              "data", JsonCodec.object("ciphertext", ciphertext, "key_version", version)));
    } catch (KeyServiceException | IllegalArgumentException e) {
      throw keyFailure(r, key, null, e);
    } finally {
      Arrays.fill(plaintext, (byte) 0);
    }
  }

  private void autoCreate(Request r, String key) {
    try {
      KeyInfo info = keys.createKey(key);
      record(r, key, info.latestVersion(), "create", "allow", "auto-created on first wrap", 200);
    } catch (KeyAlreadyExistsException raced) {
      // another request created it first
    }
  }

  private void decrypt(Request r, String key) {
    authorize(r, KeyGrants.Operation.UNWRAP, key);
    Map<String, Object> body = readJson(r, false);
    rejectBatch(r, key, body);
    String ciphertext = stringField(r, key, body, "ciphertext");
    int version;
    try {
      version = WrappedKey.parse(ciphertext).version();
    } catch (IllegalArgumentException e) {
      throw badRequest(r, key, null, "invalid ciphertext: " + e.getMessage());
    }
    byte[] plaintext = null;
    try {
      plaintext = keys.unwrap(key, ciphertext);
      String encoded = Base64.getEncoder().encodeToString(plaintext);
      auditOk(r, key, version);
      sendJson(r, 200, JsonCodec.object("data", JsonCodec.object("plaintext", encoded)));
    } catch (KeyServiceException | IllegalArgumentException e) {
      throw keyFailure(r, key, version, e);
    } finally {
      if (plaintext != null) {
        Arrays.fill(plaintext, (byte) 0);
      }
    }
  }

  private void hmac(Request r, String key, String algorithm) {
    KeyGrants grants = r.served.authorizer().grants(r.caller.principal());
    if (!grants.allows(KeyGrants.Operation.DERIVE, key)
        && !grants.allows(KeyGrants.Operation.HASH_MASK_KEY, key)) {
      throw deny(r, key, KeyGrants.Operation.DERIVE.refusal());
    }
    Map<String, Object> body = readJson(r, false);
    rejectBatch(r, key, body);
    String algo = algorithm != null ? algorithm : JsonCodec.string(body, "algorithm");
    if (algo != null && !algo.equals("sha2-256")) {
      throw badRequest(
          r, key, null, "unsupported hmac algorithm '" + clip(algo) + "': only sha2-256");
    }
    Long requested;
    try {
      requested = JsonCodec.integer(body, "key_version");
    } catch (IllegalArgumentException e) {
      throw badRequest(r, key, null, e.getMessage());
    }
    if (requested != null && requested != 0 && requested != 1) {
      // derived keys are always from version 1 so that hash masks survive rotation
      throw badRequest(
          r,
          key,
          null,
          "unknown key version " + requested + " for hmac: only version 1 is supported");
    }
    byte[] input = base64Field(r, key, body, "input");
    String context;
    try {
      context =
          StandardCharsets.UTF_8
              .newDecoder()
              .onMalformedInput(CodingErrorAction.REPORT)
              .onUnmappableCharacter(CodingErrorAction.REPORT)
              .decode(ByteBuffer.wrap(input))
              .toString();
    } catch (CharacterCodingException e) {
      throw badRequest(r, key, 1, "input must be base64 of UTF-8 text");
    } finally {
      Arrays.fill(input, (byte) 0);
    }
    // the protector's own mask keys: only the hash-mask key, only to whoever masks with it
    KeyGrants.Operation rule = KeyGrants.derivation(context);
    if (rule == null) {
      throw deny(r, key, "the context is reserved for the key server's own keys");
    }
    if (!grants.allows(rule, key)) {
      throw deny(r, key, rule.refusal());
    }
    byte[] mac = null;
    try {
      mac = keys.deriveKey(key, context);
      String out = "vault:v1:" + Base64.getEncoder().encodeToString(mac);
      auditOk(r, key, 1);
      sendJson(r, 200, JsonCodec.object("data", JsonCodec.object("hmac", out)));
    } catch (KeyServiceException | IllegalArgumentException e) {
      throw keyFailure(r, key, 1, e);
    } finally {
      if (mac != null) {
        Arrays.fill(mac, (byte) 0);
      }
    }
  }

  /**
   * Admins get the policy file as it is. Everyone else gets it restricted to their own roles: the
   * same decisions for them, and no other user, group or role named. Every answer carries the
   * content digest of the whole policy ({@code X-Protector-Policy-Digest}), which a catalog with a
   * local copy compares, and an ETag of the text served; a request whose {@code If-None-Match}
   * names that ETag gets 304 with no body, so catalogs can poll cheaply.
   */
  private void readPolicy(Request r) {
    r.op = "read-policy";
    requireMethod(r, "GET");
    authenticate(r);
    Principal principal = r.caller.principal();
    ServedPolicy p = r.served;
    String text;
    String etag;
    if (p.authorizer().grants(principal).admin()) {
      text = p.text();
      etag = quoted(p.textDigest()); // digested once, when the file was read
    } else {
      text = p.policy().restrictedTo(principal).toHocon();
      etag = etag(text);
    }
    r.header("ETag", etag);
    r.header(POLICY_DIGEST_HEADER, p.digest());
    if (matchesEtag(r.call.header("If-None-Match"), etag)) {
      sendEmpty(r, 304);
      return;
    }
    send(r, 200, "text/plain; charset=utf-8", text.getBytes(StandardCharsets.UTF_8));
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

  /**
   * Authorizes and audits one write of clear values of protected columns to a destination that does
   * not protect them. The body names the source entry; its {@code declassify} roles decide.
   */
  private void declassify(Request r) {
    r.op = "declassify";
    requireMethod(r, "POST");
    authenticate(r);
    Map<String, Object> body = readJson(r, false);
    DeclassifyRequest request;
    try {
      request = DeclassifyRequest.parse(body, r.served.policy());
    } catch (IllegalArgumentException e) {
      throw badRequest(r, null, null, e.getMessage());
    }
    r.details = new LinkedHashMap<>(request.auditDetails());
    if (!r.served.authorizer().canDeclassify(r.caller.principal(), request.entry())) {
      throw deny(r, null, "no role in the declassify list of " + request.entry().name());
    }
    String auditId = UUID.randomUUID().toString();
    r.time = Instant.now();
    r.details.put("audit_id", auditId);
    auditOk(r, null, null);
    Map<String, Object> receipt = new LinkedHashMap<>();
    receipt.put("audit_id", auditId);
    receipt.put("time", r.time.toString());
    receipt.put("principal", r.caller.principal().user());
    receipt.put("entry", request.entry().name());
    receipt.put("columns", request.columns());
    sendJson(r, 200, JsonCodec.object("data", receipt));
  }

  private void whoami(Request r) {
    r.op = "whoami";
    requireMethod(r, "GET");
    authenticate(r);
    KeyGrants g = r.served.authorizer().grants(r.caller.principal());
    Map<String, Object> data = new LinkedHashMap<>();
    data.put("principal", r.caller.principal().user());
    data.put("groups", new ArrayList<>(r.caller.principal().groups()));
    data.put("roles", new ArrayList<>(g.roles()));
    data.put("wrappable_keys", new ArrayList<>(new TreeSet<>(g.wrappable())));
    data.put("unwrappable_keys", new ArrayList<>(new TreeSet<>(g.unwrappable())));
    data.put("admin", g.admin());
    data.put("auth", r.caller.method());
    data.put("policy_digest", r.served.digest());
    sendJson(r, 200, JsonCodec.object("data", data));
  }

  // ---- tokens --------------------------------------------------------------------------------

  /**
   * Releases the token key of (key, version, domain, method kind) to a caller the token-key rule
   * allows (clear readers of a column of that key and domain; the key detokenizes the whole
   * domain): {@code local} token mode through the key server. Audited like an unwrap.
   */
  private void tokenKey(Request r, String[] parts) {
    r.route = PROTECTOR + "token-key/{key}";
    r.op = "token-key";
    requireMethod(r, "POST");
    r.rawKey = parts.length > 1 ? parts[1] : "";
    authenticate(r);
    String key = keyName(r, parts.length == 2);
    Map<String, Object> body = readJson(r, false);
    String domain = stringField(r, key, body, "domain");
    int version = versionField(r, key, body);
    String kindText = stringField(r, key, body, "method");
    r.details = new LinkedHashMap<>();
    r.details.put("domain", domain);
    KeyGrants grants = r.served.authorizer().grants(r.caller.principal());
    if (!grants.allowsTokenKey(key, domain)) {
      throw deny(r, key, KeyGrants.Operation.TOKEN_KEY.refusal());
    }
    ProtectionMethod.Kind policyKind =
        r.served.policy().tokenDomain(domain).orElseThrow().method().kind();
    if (!kindText.equalsIgnoreCase(policyKind.name())) {
      throw badRequest(
          r,
          key,
          null,
          "field 'method' is '"
              + clip(kindText)
              + "', but token domain '"
              + domain
              + "' is "
              + policyKind.name().toLowerCase(Locale.ROOT)
              + " in the server's policy");
    }
    r.details.put("method", policyKind.name().toLowerCase(Locale.ROOT));
    byte[] bytes = null;
    try (TokenKey tk = keys.deriveTokenKey(key, version, domain, policyKind)) {
      bytes = tk.exportBytes();
      auditOk(r, key, tk.version());
      Map<String, Object> data = new LinkedHashMap<>();
      data.put("key", Base64.getEncoder().encodeToString(bytes));
      data.put("key_version", tk.version());
      data.put("domain", domain);
      data.put("method", policyKind.name().toLowerCase(Locale.ROOT));
      sendJson(r, 200, JsonCodec.object("data", data));
    } catch (KeyServiceException | IllegalArgumentException e) {
      throw keyFailure(r, key, version == KeyService.LATEST_VERSION ? null : version, e);
    } finally {
      if (bytes != null) {
        Arrays.fill(bytes, (byte) 0);
      }
    }
  }

  /**
   * Tokenizes ({@code encode}) or detokenizes ({@code decode}) a batch of values in the style of
   * Vault's transform {@code batch_input}: {@code {"domain", "method", "version", "encoding",
   * "batch_input": [{"value": ...}, ...]}} answers {@code {"data": {"key_version", "batch_results":
   * [{"encoded_value"|"decoded_value": ...} | {"error": "batch_input[i]: ..."}, ...]}}} in order.
   * Null values stay null. The token key never leaves the server.
   */
  private void tokenBatch(Request r, String[] parts, boolean encode) {
    String action = encode ? "encode" : "decode";
    r.route = PROTECTOR + action + "/{key}";
    r.op = action;
    requireMethod(r, "POST");
    r.rawKey = parts.length > 1 ? parts[1] : "";
    r.bodyLimit = maxBatchBodyBytes;
    authenticate(r);
    String key = keyName(r, parts.length == 2);
    TokenBatch in = readBatch(r);
    String domain = requiredString(r, key, in.domain, "domain");
    String methodSpec = requiredString(r, key, in.method, "method");
    int version = versionOf(r, key, in.version);
    boolean binary = binaryEncoding(r, key, in.encoding);
    if (in.values == null) {
      throw badRequest(
          r, key, null, "field 'batch_input' is required and must be an array of {\"value\": ...}");
    }
    List<Object> items = in.values;
    r.details = new LinkedHashMap<>();
    r.details.put("domain", domain);
    r.details.put("count", items.size());
    KeyGrants grants = r.served.authorizer().grants(r.caller.principal());
    boolean namesColumn = !TokenBatch.absent(in.table) || !TokenBatch.absent(in.column);
    TokenColumnView view = encode || !namesColumn ? null : columnView(r, key, domain, in, grants);
    boolean allowed =
        encode
            ? grants.allowsEncode(key, domain)
            : namesColumn ? view != null && view.readable() : grants.allowsDecode(key, domain);
    if (!allowed) {
      throw deny(
          r, key, (encode ? KeyGrants.Operation.ENCODE : KeyGrants.Operation.DECODE).refusal());
    }
    if (items.size() > maxBatchValues) {
      String message =
          "batch_input has "
              + items.size()
              + " values, more than limits.max-batch-values = "
              + maxBatchValues;
      record(r, key, null, r.op, "error", message, 413);
      throw new HttpError(413, message);
    }
    if (items.isEmpty()) {
      throw badRequest(r, key, null, "field 'batch_input' is empty");
    }
    if (in.badItem >= 0) {
      throw badRequest(
          r, key, null, "batch_input[" + in.badItem + "] must be an object {\"value\": ...}");
    }
    ColumnPolicy column = r.served.policy().tokenDomain(domain).orElseThrow();
    ProtectionMethod method;
    try {
      method = ProtectionMethod.parse(methodSpec);
    } catch (IllegalArgumentException e) {
      throw badRequest(r, key, null, "field 'method': " + e.getMessage());
    }
    if (!method.equals(column.method())) {
      throw badRequest(
          r,
          key,
          null,
          "field 'method' is '"
              + clip(method.spec())
              + "', but token domain '"
              + domain
              + "' is "
              + column.method().spec()
              + " in the server's policy");
    }
    r.details.put("method", method.spec());
    if (binary && method.kind() != ProtectionMethod.Kind.DETERMINISTIC) {
      throw badRequest(r, key, null, "encoding base64 (binary values) needs method deterministic");
    }
    String outField = encode ? "encoded_value" : "decoded_value";
    int n = items.size();
    Object[] results = new Object[n];
    String[] itemErrors = new String[n];
    int errors = 0;
    int tokenVersion;
    try (Tokenizer tokenizer = keys.tokenizer(key, version, domain, method, TokenMode.LOCAL)) {
      tokenVersion = tokenizer.version();
      for (int i = 0; i < n; i++) {
        Object value = items.get(i);
        if (value == null) {
          continue;
        }
        try {
          results[i] = transform(tokenizer, method, binary, encode, value);
        } catch (TokenException | IllegalArgumentException e) {
          errors++;
          itemErrors[i] = "batch_input[" + i + "]: " + e.getMessage();
        }
      }
      if (view != null) {
        view.apply(results, binary, keys, key); // a masked reader's values never leave in clear
      }
    } catch (KeyServiceException | IllegalArgumentException e) {
      throw keyFailure(r, key, version == KeyService.LATEST_VERSION ? null : version, e);
    }
    if (errors > 0) {
      r.details.put("errors", errors);
    }
    auditOk(r, key, tokenVersion);
    metrics.tokenValues(action, method.kind().name().toLowerCase(Locale.ROOT), (long) n - errors);
    String mask = view != null && view.mask() != null ? view.mask().spec() : null;
    send(
        r,
        200,
        "application/json",
        TokenBatch.answer(tokenVersion, mask, outField, results, itemErrors));
  }

  /**
   * The view a decode request asks for when it names the table column it reads ({@code table},
   * {@code column}, optional {@code value_type} int or long); null, after the audit details name
   * the column, when the policy has no such tokenized column of the key and domain.
   */
  private TokenColumnView columnView(
      Request r, String key, String domain, TokenBatch in, KeyGrants grants) {
    String table = requiredString(r, key, in.table, "table");
    String column = requiredString(r, key, in.column, "column");
    boolean ints = false;
    if (!TokenBatch.absent(in.valueType)) {
      ints = "int".equals(in.valueType);
      if (!ints && !"long".equals(in.valueType)) {
        throw badRequest(r, key, null, "field 'value_type' must be int or long");
      }
    }
    TokenColumnView view =
        TokenColumnView.of(r.served.policy(), grants.roles(), key, domain, table, column, ints)
            .orElse(null);
    // the policy's name of the column; a caller's name the policy lacks is clipped
    r.details.put("column", view != null ? view.name() : clip(table + "." + column));
    if (view != null && view.mask() != null) {
      r.details.put("view", "masked");
      r.details.put("mask", view.mask().spec());
    }
    return view;
  }

  /**
   * One value through the tokenizer. @throws IllegalArgumentException naming what the value should
   * be (never quoting it)
   */
  private static Object transform(
      Tokenizer tokenizer, ProtectionMethod method, boolean binary, boolean encode, Object value) {
    if (method.numeric()) {
      if (!(value instanceof Long)) {
        throw new IllegalArgumentException("value must be an integer for method " + method.spec());
      }
      long v = (Long) value;
      return encode ? tokenizer.protect(v) : tokenizer.unprotect(v);
    }
    if (!(value instanceof String)) {
      throw new IllegalArgumentException(
          "value must be a string for method "
              + method.spec()
              + (binary ? " (base64 of the bytes)" : ""));
    }
    if (binary) {
      byte[] in;
      try {
        in = Base64.getDecoder().decode((String) value);
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException("value is not valid base64");
      }
      byte[] out = encode ? tokenizer.protect(in) : tokenizer.unprotect(in);
      return Base64.getEncoder().encodeToString(out);
    }
    return encode ? tokenizer.protect((String) value) : tokenizer.unprotect((String) value);
  }

  /** The body of a token batch, read as a stream (400 for malformed JSON). */
  private TokenBatch readBatch(Request r) {
    byte[] bytes = readBody(r);
    if (bytes.length == 0) {
      throw badRequest(r, null, null, "request body is empty: a JSON object is required");
    }
    try {
      return TokenBatch.parse(bytes);
    } catch (IllegalArgumentException e) {
      throw badRequest(r, null, null, "malformed JSON: " + e.getMessage());
    }
  }

  private String requiredString(Request r, String key, Object member, String field) {
    String value = TokenBatch.string(member);
    if (value == null) {
      throw badRequest(
          r, key, null, "field '" + field + "' is required and must be a non-empty string");
    }
    return value;
  }

  /** The token-key body's optional {@code version}: 0 or absent for the latest version. */
  private int versionField(Request r, String key, Map<String, Object> body) {
    return versionOf(r, key, body.containsKey("version") ? body.get("version") : null);
  }

  /** An optional {@code version}: 0 or absent for the latest version. */
  private int versionOf(Request r, String key, Object member) {
    if (TokenBatch.absent(member)) {
      return KeyService.LATEST_VERSION;
    }
    if (!(member instanceof Long) || (Long) member < 0 || (Long) member > Integer.MAX_VALUE) {
      throw badRequest(
          r,
          key,
          null,
          "field 'version' must be a version number of key '" + key + "', or 0 for the latest");
    }
    return Math.toIntExact((Long) member);
  }

  /** The optional {@code encoding}: utf-8 (strings, the default) or base64 (binary values). */
  private boolean binaryEncoding(Request r, String key, Object encoding) {
    if (TokenBatch.absent(encoding) || "utf-8".equals(encoding)) {
      return false;
    }
    if ("base64".equals(encoding)) {
      return true;
    }
    throw badRequest(r, key, null, "field 'encoding' must be utf-8 or base64");
  }

  // ---- checks --------------------------------------------------------------------------------

  private void authenticate(Request r) {
    String token = r.call.header("X-Vault-Token");
    if (token == null) {
      String authorization = r.call.header("Authorization");
      if (authorization != null && authorization.regionMatches(true, 0, "Bearer ", 0, 7)) {
        token = authorization.substring(7).strip();
      }
    }
    try {
      r.caller = authenticator.authenticate(token == null ? null : token.strip());
    } catch (AuthenticationException e) {
      metrics.authFailure(e.getMessage());
      String reason = "authentication failed: " + e.getMessage();
      record(r, r.rawKey, null, r.op, "deny", reason, 401);
      r.header("WWW-Authenticate", "Bearer realm=\"iceberg-protector\"");
      throw new HttpError(401, reason);
    }
    if (!rateLimits.tryAcquire(r.caller.principal())) {
      String reason = rateLimits.refusal(r.caller.principal());
      metrics.rateLimited();
      record(r, r.rawKey, null, r.op, "deny", reason, 429);
      r.header("Retry-After", Long.toString(rateLimits.retryAfterSeconds()));
      throw new HttpError(429, reason);
    }
  }

  private String keyName(Request r, boolean shapeOk) {
    String key = r.rawKey;
    if (!shapeOk || !KeyIds.isValid(key)) {
      throw badRequest(r, null, null, "invalid key name: must be " + KeyIds.RULE);
    }
    return key;
  }

  private void requireAdmin(Request r, String key) {
    authorize(r, KeyGrants.Operation.ADMIN, key);
  }

  /**
   * The shared rule decides; a refusal is audited with its reason and answered with the one 403.
   */
  private void authorize(Request r, KeyGrants.Operation operation, String key) {
    if (!r.served.authorizer().grants(r.caller.principal()).allows(operation, key)) {
      throw deny(r, key, operation.refusal());
    }
  }

  private static void requireMethod(Request r, String method) {
    if (!r.method.equals(method)) {
      throw methodNotAllowed(r, method);
    }
  }

  private static HttpError methodNotAllowed(Request r, String allowed) {
    r.header("Allow", allowed);
    return new HttpError(405, "method " + r.method + " not allowed here");
  }

  private void rejectBatch(Request r, String key, Map<String, Object> body) {
    if (body.containsKey("batch_input")) {
      throw badRequest(r, key, null, "batch_input is not supported");
    }
  }

  private HttpError deny(Request r, String key, String reason) {
    record(r, key, null, r.op, "deny", reason, 403);
    return new HttpError(403, "permission denied");
  }

  private HttpError badRequest(Request r, String key, Integer version, String message) {
    record(r, key != null ? key : r.rawKey, version, r.op, "error", message, 400);
    return new HttpError(400, message);
  }

  /**
   * Maps a key-store failure to a client-safe error. Store messages (which name files) never reach
   * clients.
   */
  private HttpError keyFailure(Request r, String key, Integer version, RuntimeException e) {
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
          "key store unavailable during " + r.op + " of key '" + key + "'",
          e);
      status = 503;
      message = "key store unavailable";
    } else if (e instanceof IllegalArgumentException) {
      status = 400;
      message = "invalid request";
    } else {
      LOG.log(
          System.Logger.Level.ERROR,
          "key store failure during " + r.op + " of key '" + key + "'",
          e);
      status = 500;
      message = "internal error";
    }
    record(r, key, version, r.op, "error", message, status);
    return new HttpError(status, message);
  }

  private boolean keyExists(String key) {
    try {
      return !keys.describeKey(key).destroyed();
    } catch (RuntimeException e) {
      return false;
    }
  }

  // ---- body ----------------------------------------------------------------------------------

  private Map<String, Object> readJson(Request r, boolean emptyAllowed) {
    byte[] bytes = readBody(r);
    if (bytes.length == 0) {
      if (emptyAllowed) {
        return new LinkedHashMap<>();
      }
      throw badRequest(r, null, null, "request body is empty: a JSON object is required");
    }
    String text;
    try {
      text =
          StandardCharsets.UTF_8
              .newDecoder()
              .onMalformedInput(CodingErrorAction.REPORT)
              .onUnmappableCharacter(CodingErrorAction.REPORT)
              .decode(ByteBuffer.wrap(bytes))
              .toString();
    } catch (CharacterCodingException e) {
      throw badRequest(r, null, null, "request body is not valid UTF-8");
    }
    try {
      return JsonCodec.parseObject(text);
    } catch (IllegalArgumentException e) {
      throw badRequest(r, null, null, "malformed JSON: " + e.getMessage());
    }
  }

  /**
   * Reads and drops an unread request body (up to the size limit) before an early answer. The JDK
   * HTTPS server can otherwise leave the keep-alive connection stuck, so the client's next request
   * on it would hang. Returns false if the body could not be consumed: then the connection closes.
   */
  private void finishRequestBody(Request r) {
    if (!r.bodyRead && !discardBody(r)) {
      r.header("Connection", "close");
    }
  }

  private boolean discardBody(Request r) {
    r.bodyRead = true;
    String length = r.call.header("Content-Length");
    try {
      if (length != null && Long.parseLong(length.trim()) > r.bodyLimit) {
        return false;
      }
    } catch (NumberFormatException e) {
      return false;
    }
    try (InputStream in = r.call.body()) {
      byte[] chunk = new byte[8192];
      long total = 0;
      int n;
      while ((n = in.read(chunk)) > 0) {
        total += n;
        if (total > r.bodyLimit) {
          return false;
        }
      }
      return true;
    } catch (IOException e) {
      return false;
    }
  }

  private byte[] readBody(Request r) {
    r.bodyRead = true;
    String length = r.call.header("Content-Length");
    if (length != null) {
      long declared;
      try {
        declared = Long.parseLong(length.trim());
      } catch (NumberFormatException e) {
        throw new HttpError(400, "invalid Content-Length", true);
      }
      if (declared > r.bodyLimit) {
        throw tooLarge(r);
      }
    }
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    byte[] chunk = new byte[8192];
    try (InputStream in = r.call.body()) {
      int n;
      while ((n = in.read(chunk)) > 0) {
        if (out.size() + n > r.bodyLimit) {
          throw tooLarge(r);
        }
        out.write(chunk, 0, n);
      }
    } catch (IOException e) {
      throw new HttpError(400, "cannot read request body", true);
    }
    return out.toByteArray();
  }

  private HttpError tooLarge(Request r) {
    String message =
        "request body larger than "
            + r.bodyLimit
            + " bytes"
            + (r.bodyLimit == maxBatchBodyBytes && r.bodyLimit != maxBodyBytes
                ? " (limits.max-batch-body-size)"
                : " (limits.max-body-size)");
    record(r, r.rawKey, null, r.op, "error", message, 413);
    return new HttpError(413, message, true); // unread body: do not reuse the connection
  }

  private String stringField(Request r, String key, Map<String, Object> body, String field) {
    Object value = body.get(field);
    if (!(value instanceof String) || ((String) value).isEmpty()) {
      throw badRequest(
          r, key, null, "field '" + field + "' is required and must be a non-empty string");
    }
    return (String) value;
  }

  private byte[] base64Field(Request r, String key, Map<String, Object> body, String field) {
    String text = stringField(r, key, body, field);
    try {
      return Base64.getDecoder().decode(text);
    } catch (IllegalArgumentException e) {
      throw badRequest(r, key, null, "field '" + field + "' is not valid base64");
    }
  }

  // ---- audit and responses -------------------------------------------------------------------

  private void auditOk(Request r, String key, Integer version) {
    try {
      audit.record(
          new AuditLog.Event(
              r.principalName(),
              authOf(r),
              r.op,
              key,
              version,
              "allow",
              null,
              200,
              r.client,
              r.time,
              r.details));
      metrics.operation(r.op, "allow");
    } catch (UncheckedIOException e) {
      metrics.auditError();
      metrics.operation(r.op, "error");
      LOG.log(System.Logger.Level.ERROR, "audit write failed; refusing " + r.op, e);
      throw new HttpError(500, "audit log unavailable");
    }
  }

  /**
   * Records a refusal or error; a failing audit write does not turn a refusal into anything else.
   */
  private void record(
      Request r,
      String key,
      Integer version,
      String op,
      String decision,
      String reason,
      int status) {
    metrics.operation(op == null ? "unknown" : op, decision);
    try {
      audit.record(
          new AuditLog.Event(
              r.principalName(),
              authOf(r),
              op == null ? "unknown" : op,
              key,
              version,
              decision,
              reason,
              status,
              r.client,
              null,
              r.details));
    } catch (UncheckedIOException e) {
      metrics.auditError();
      LOG.log(System.Logger.Level.ERROR, "audit write failed", e);
    }
  }

  private static String authOf(Request r) {
    return r.caller == null ? null : r.caller.method();
  }

  private static Map<String, Object> keyInfoJson(KeyInfo info) {
    long created = info.createdAt().getEpochSecond();
    Map<String, Object> versions =
        new TreeMap<>((a, b) -> Integer.compare(Integer.parseInt(a), Integer.parseInt(b)));
    for (int v : info.versions()) {
      versions.put(
          Integer.toString(v), created); // per-version times are not tracked: the key's creation
    }
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("name", info.id());
    m.put("type", KEY_TYPE);
    m.put("latest_version", info.latestVersion());
    m.put("min_decryption_version", info.minDecryptionVersion());
    m.put("min_encryption_version", 0);
    m.put("keys", versions);
    m.put("deletion_allowed", true);
    m.put("exportable", false);
    m.put("supports_encryption", !info.destroyed());
    m.put("supports_decryption", !info.destroyed());
    m.put("supports_derivation", false);
    m.put("supports_signing", false);
    m.put("destroyed", info.destroyed());
    return m;
  }

  private void sendError(Request r, int status, String message, boolean close) {
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("errors", List.of(message));
    if (status == 403 && r.caller != null) {
      body.put("principal", r.caller.principal().user()); // the caller's own name: same for any key
    }
    if (close) {
      r.header("Connection", "close");
    }
    sendJson(r, status, body);
  }

  private void sendJson(Request r, int status, Map<String, Object> body) {
    send(r, status, "application/json", JsonCodec.write(body).getBytes(StandardCharsets.UTF_8));
  }

  private void send(Request r, int status, String contentType, byte[] body) {
    r.status = status;
    finishRequestBody(r);
    r.header("Content-Type", contentType);
    r.header("Cache-Control", "no-store");
    r.header("X-Content-Type-Options", "nosniff");
    r.responseBody = body;
  }

  private void sendEmpty(Request r, int status) {
    r.status = status;
    finishRequestBody(r);
    r.header("Cache-Control", "no-store");
    r.responseBody = new byte[0];
  }

  private static String etag(String text) {
    return quoted(Digests.sha256Hex(text));
  }

  private static String quoted(String digest) {
    return "\"" + digest + "\"";
  }

  private static String clip(String s) {
    return s.length() > 40 ? s.substring(0, 40) + "..." : s;
  }
}
