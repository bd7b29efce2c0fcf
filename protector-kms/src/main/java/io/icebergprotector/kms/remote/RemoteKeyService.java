/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.kms.remote;

import static io.icebergprotector.policy.Preconditions.checkArgument;

import io.icebergprotector.kms.KeyAccessDeniedException;
import io.icebergprotector.kms.KeyInfo;
import io.icebergprotector.kms.KeyNotFoundException;
import io.icebergprotector.kms.KeyService;
import io.icebergprotector.kms.KeyServiceException;
import io.icebergprotector.kms.token.TokenKey;
import io.icebergprotector.kms.token.TokenMode;
import io.icebergprotector.kms.token.Tokenizer;
import io.icebergprotector.kms.wire.Endpoints;
import io.icebergprotector.kms.wire.JsonCodec;
import io.icebergprotector.kms.wire.KeyMetadata;
import io.icebergprotector.kms.wire.ProtectorFields;
import io.icebergprotector.kms.wire.TokenFields;
import io.icebergprotector.kms.wire.TransitFields;
import io.icebergprotector.policy.ProtectionMethod;
import java.net.URI;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.LongSupplier;
import javax.net.ssl.SSLContext;

/**
 * A {@link KeyService} backed by the Iceberg Protector key server, or by HashiCorp Vault / OpenBao
 * Transit for the wrap, unwrap, hmac and key metadata calls.
 *
 * <p>This class is the API: paths, request bodies, answers and the cache. Requests go through a
 * {@code KeyServerTransport}: one pooled HTTP client, the token in {@code X-Vault-Token}, retries
 * with backoff on connection errors, timeouts and 5xx (create and rotate only when the connection
 * could not be made, so a lost response cannot rotate a key twice), failover to replicas, and 4xx
 * answers mapped to the {@link KeyServiceException} family, never retried. Unwrapped and derived
 * keys are cached for a short TTL (copies, wiped on eviction). The token appears in no message, log
 * line or {@link #toString()}.
 *
 * <pre>{@code
 * KeyService kms = RemoteKeyService.builder()
 *     .url("https://keys.example.com:8200")
 *     .token(token)
 *     .trustedCertificate(Path.of("/etc/protector/server.pem"))
 *     .build();
 * }</pre>
 */
public final class RemoteKeyService implements KeyService {
  private static final String UNWRAP = KeyServerTransport.UNWRAP;
  private static final String DECLASSIFY = "declassify";
  private static final String DERIVE = "derive";
  private static final String TOKEN_KEY = "token-key";

  private final KeyServerTransport transport;
  private final String shownUrl; // for messages: scheme://host:port, comma-separated
  private final String mount;
  private final UnwrapCache cache;
  private final int tokenBatchValues;
  private final long tokenBatchChars;

  private RemoteKeyService(Builder b, KeyServerTransport transport) {
    this.transport = transport;
    this.shownUrl = transport.shownUrl();
    this.mount = b.mount;
    this.cache = new UnwrapCache(b.cacheTtl.toNanos(), b.cacheMaxEntries, b.nanoClock);
    this.tokenBatchValues = b.tokenBatchValues;
    this.tokenBatchChars = b.tokenBatchChars;
  }

  public static Builder builder() {
    return new Builder();
  }

  /** The server base URL requests go to now, e.g. {@code https://127.0.0.1:8200}. */
  public URI url() {
    return transport.url();
  }

  /** Every server this client may use, in order (the first, then the replicas). */
  public List<URI> urls() {
    return transport.urls();
  }

  // ---- KeyService ----------------------------------------------------------------------------

  @Override
  public KeyInfo createKey(String keyId) {
    Map<String, Object> data =
        transport.call(
            "POST",
            keysPath(keyId),
            JsonCodec.object(TransitFields.TYPE, TransitFields.KEY_TYPE),
            "create",
            keyId,
            false);
    return data != null && data.containsKey(KeyMetadata.LATEST_VERSION)
        ? toKeyInfo(keyId, data)
        : describeKey(keyId);
  }

  @Override
  public KeyInfo rotateKey(String keyId) {
    Map<String, Object> data =
        transport.call(
            "POST",
            keysPath(keyId) + "/" + Endpoints.ROTATE,
            JsonCodec.object(),
            "rotate",
            keyId,
            false);
    return data != null && data.containsKey(KeyMetadata.LATEST_VERSION)
        ? toKeyInfo(keyId, data)
        : describeKey(keyId);
  }

  /** Vault's {@code POST /v1/<mount>/keys/<key>/config} with {@code min_decryption_version}. */
  @Override
  public KeyInfo setMinDecryptionVersion(String keyId, int minDecryptionVersion) {
    Map<String, Object> data =
        transport.call(
            "POST",
            keysPath(keyId) + "/" + Endpoints.CONFIG,
            JsonCodec.object(TransitFields.MIN_DECRYPTION_VERSION, minDecryptionVersion),
            "retire",
            keyId,
            false);
    // Data keys of retired versions must not be served from this process's cache either (other
    // processes
    // holding them drop them within the cache TTL).
    cache.invalidate(keyId);
    return data != null && data.containsKey(KeyMetadata.LATEST_VERSION)
        ? toKeyInfo(keyId, data)
        : describeKey(keyId);
  }

  @Override
  public void destroyKey(String keyId) {
    cache.invalidate(keyId);
    transport.call("DELETE", keysPath(keyId), null, "destroy", keyId, true);
    cache.invalidate(keyId);
  }

  @Override
  public List<KeyInfo> listKeys() {
    Map<String, Object> data;
    try {
      data =
          transport.call(
              "GET", transitPath(Endpoints.KEYS) + "?list=true", null, "list", null, true);
    } catch (KeyNotFoundException e) {
      return List.of(); // Vault answers 404 when there are no keys
    }
    List<KeyInfo> infos = new ArrayList<>();
    Object names = data == null ? null : data.get(TransitFields.KEYS);
    if (names instanceof Collection) {
      for (Object name : (Collection<?>) names) {
        infos.add(describeKey(String.valueOf(name)));
      }
    }
    return infos;
  }

  @Override
  public KeyInfo describeKey(String keyId) {
    return toKeyInfo(keyId, transport.call("GET", keysPath(keyId), null, "describe", keyId, true));
  }

  @Override
  public String wrapKey(byte[] plaintext, String keyId) {
    Objects.requireNonNull(plaintext, "plaintext");
    Map<String, Object> data =
        transport.call(
            "POST",
            transitPath(Endpoints.ENCRYPT) + "/" + segment(keyId),
            JsonCodec.object(
                TransitFields.PLAINTEXT, Base64.getEncoder().encodeToString(plaintext)),
            "wrap",
            keyId,
            true);
    String ciphertext = data == null ? null : stringField(data, TransitFields.CIPHERTEXT);
    if (ciphertext == null || !ciphertext.startsWith("vault:v")) {
      throw new KeyServiceException(
          "key service at " + shownUrl + " returned no ciphertext for key '" + keyId + "'");
    }
    return ciphertext;
  }

  @Override
  public byte[] unwrapKey(String wrapped, String keyId) {
    Objects.requireNonNull(wrapped, "wrapped");
    byte[] cached = cache.get(UNWRAP, keyId, wrapped);
    if (cached != null) {
      return cached;
    }
    Map<String, Object> data =
        transport.call(
            "POST",
            transitPath(Endpoints.DECRYPT) + "/" + segment(keyId),
            JsonCodec.object(TransitFields.CIPHERTEXT, wrapped),
            "unwrap",
            keyId,
            true);
    byte[] plaintext =
        decodeBase64(
            data == null ? null : stringField(data, TransitFields.PLAINTEXT),
            TransitFields.PLAINTEXT,
            keyId);
    cache.put(UNWRAP, keyId, wrapped, plaintext);
    return plaintext;
  }

  @Override
  public byte[] deriveKey(String keyId, String context) {
    Objects.requireNonNull(context, "context");
    byte[] cached = cache.get(DERIVE, keyId, context);
    if (cached != null) {
      return cached;
    }
    String input = Base64.getEncoder().encodeToString(context.getBytes(StandardCharsets.UTF_8));
    Map<String, Object> data =
        transport.call(
            "POST",
            transitPath(Endpoints.HMAC) + "/" + segment(keyId),
            JsonCodec.object(TransitFields.INPUT, input, TransitFields.KEY_VERSION, 1),
            "derive",
            keyId,
            true);
    String hmac = data == null ? null : stringField(data, TransitFields.HMAC);
    if (hmac == null || !hmac.startsWith(TransitFields.HMAC_PREFIX)) {
      throw new KeyServiceException(
          "key service at " + shownUrl + " returned no hmac for key '" + keyId + "'");
    }
    byte[] derived =
        decodeBase64(hmac.substring(TransitFields.HMAC_PREFIX.length()), "hmac", keyId);
    cache.put(DERIVE, keyId, context, derived);
    return derived;
  }

  /**
   * The caller's identity, roles and usable keys ({@code GET /v1/protector/whoami}; not on Vault).
   */
  public WhoAmI whoami() {
    Map<String, Object> data = transport.call("GET", Endpoints.WHOAMI, null, "whoami", null, true);
    if (data == null) {
      throw new KeyServiceException("key service at " + shownUrl + " returned no whoami data");
    }
    return new WhoAmI(
        stringField(data, ProtectorFields.PRINCIPAL),
        strings(data.get(ProtectorFields.GROUPS)),
        strings(data.get(ProtectorFields.ROLES)),
        strings(data.get(ProtectorFields.WRAPPABLE_KEYS)),
        strings(data.get(ProtectorFields.UNWRAPPABLE_KEYS)),
        Boolean.TRUE.equals(data.get(ProtectorFields.ADMIN)),
        data.get(ProtectorFields.POLICY_DIGEST) instanceof String d ? d : null);
  }

  /**
   * The policy text the server enforces ({@code GET /v1/protector/policy}), for {@code
   * Policy.parse}: the whole file for the server's admin roles, otherwise the policy restricted to
   * the caller's own roles (the same decisions for the caller, nobody else named).
   */
  public String fetchPolicyText() {
    return fetchPolicy(null).text();
  }

  /**
   * The policy the server enforces, as {@link #fetchPolicyText()}, with its ETag and the content
   * digest of the server's whole policy. With {@code etag} (of an earlier answer) the server
   * answers "not modified" without a body when its policy is unchanged.
   */
  public PolicyResponse fetchPolicy(String etag) {
    HttpResponse<String> r =
        transport.send(
            "GET",
            Endpoints.POLICY,
            null,
            "read policy",
            null,
            true,
            etag == null ? Map.of() : Map.of("If-None-Match", etag));
    String served = r.headers().firstValue("ETag").orElse(null);
    String digest = r.headers().firstValue(Endpoints.POLICY_DIGEST_HEADER).orElse(null);
    return r.statusCode() == 304
        ? new PolicyResponse(null, served == null ? etag : served, digest)
        : new PolicyResponse(r.body(), served, digest);
  }

  /**
   * The token key of ({@code keyId}, {@code version}, {@code domain}) from the key server ({@code
   * POST /v1/protector/token-key/<key>}; not on Vault), which releases it only to writers, clear
   * and masked roles of a column of that key and domain, and audits every release. Cached like
   * unwrapped keys (a copy, wiped on eviction).
   */
  @Override
  public TokenKey deriveTokenKey(
      String keyId, int version, String domain, ProtectionMethod.Kind kind) {
    Objects.requireNonNull(domain, "domain");
    Objects.requireNonNull(kind, "kind");
    String kindName = kind.name().toLowerCase(java.util.Locale.ROOT);
    String context = version + "\u0000" + kindName + "\u0000" + domain;
    byte[] cached = cache.get(TOKEN_KEY, keyId, context);
    if (cached != null) {
      return cachedTokenKey(keyId, domain, kind, cached);
    }
    Map<String, Object> data;
    try {
      data =
          transport.call(
              "POST",
              Endpoints.PROTECTOR + Endpoints.TOKEN_KEY + "/" + segment(keyId),
              JsonCodec.object(
                  TokenFields.DOMAIN,
                  domain,
                  TokenFields.VERSION,
                  version,
                  TokenFields.METHOD,
                  kindName),
              "derive the token key of token domain '" + domain + "'",
              keyId,
              true);
    } catch (KeyNotFoundException e) {
      throw noTokenEndpoints(e);
    }
    Long answered = data == null ? null : JsonCodec.integer(data, TokenFields.KEY_VERSION);
    byte[] key =
        decodeBase64(data == null ? null : stringField(data, TokenFields.KEY), "token key", keyId);
    if (answered == null || answered < 1 || (version > 0 && answered != version)) {
      Arrays.fill(key, (byte) 0);
      throw new KeyServiceException(
          "key service at "
              + shownUrl
              + " answered key version "
              + answered
              + " for token domain '"
              + domain
              + "' of key '"
              + keyId
              + "' (asked for "
              + (version == LATEST_VERSION ? "the latest" : "version " + version)
              + ")");
    }
    byte[] entry = new byte[4 + key.length];
    java.nio.ByteBuffer.wrap(entry).putInt(answered.intValue()).put(key);
    cache.put(TOKEN_KEY, keyId, context, entry);
    Arrays.fill(entry, (byte) 0);
    try {
      return TokenKey.of(keyId, answered.intValue(), domain, kind, key);
    } catch (IllegalArgumentException e) {
      Arrays.fill(key, (byte) 0);
      throw new KeyServiceException(
          "key service at " + shownUrl + " sent a bad token key: " + e.getMessage());
    }
  }

  private static TokenKey cachedTokenKey(
      String keyId, String domain, ProtectionMethod.Kind kind, byte[] entry) {
    java.nio.ByteBuffer in = java.nio.ByteBuffer.wrap(entry);
    int version = in.getInt();
    byte[] key = Arrays.copyOfRange(entry, 4, entry.length);
    Arrays.fill(entry, (byte) 0);
    return TokenKey.of(keyId, version, domain, kind, key);
  }

  /**
   * {@link TokenMode#SERVER}: a tokenizer that sends each batch to the key server ({@code POST
   * /v1/protector/encode/<key>} and {@code /decode/<key>}), where the token key stays; {@link
   * TokenMode#LOCAL}: the token key from {@link #deriveTokenKey}, tokenizing in this process.
   */
  @Override
  public Tokenizer tokenizer(
      String keyId, int version, String domain, ProtectionMethod method, TokenMode mode) {
    if (mode == TokenMode.SERVER) {
      Objects.requireNonNull(domain, "domain");
      checkArgument(
          version >= 0, "Cannot tokenize domain '%s' with key version %s", domain, version);
      segment(keyId); // refuses an empty key id now rather than at the first batch
      return new RemoteTokenizer(
          this, keyId, version, domain, method, tokenBatchValues, tokenBatchChars);
    }
    return KeyService.super.tokenizer(keyId, version, domain, method, mode);
  }

  /** One token batch request of {@link RemoteTokenizer}: the answer's body. */
  String tokenBatch(String action, String keyId, byte[] body, String op) {
    try {
      return transport
          .send(
              "POST",
              Endpoints.PROTECTOR + action + "/" + segment(keyId),
              body,
              op,
              keyId,
              true,
              Map.of())
          .body();
    } catch (KeyNotFoundException e) {
      throw noTokenEndpoints(e);
    }
  }

  /** A 404 of the path itself: the server predates the token endpoints (or is Vault). */
  private KeyServiceException noTokenEndpoints(KeyNotFoundException e) {
    if (e.getMessage() != null && e.getMessage().startsWith("unsupported path")) {
      return new KeyServiceException(
          "key service at "
              + shownUrl
              + " has no token endpoints (is it an Iceberg Protector key server of this version?)");
    }
    return e;
  }

  /** For messages: scheme://host:port of the server. */
  String shownUrl() {
    return shownUrl;
  }

  /**
   * Asks the key server to allow and audit one write of clear values of protected {@code columns}
   * of {@code source} (a table name or path prefix of the policy) to {@code destination}, a place
   * that does not protect them ({@code POST /v1/protector/declassify}; not on Vault). The server
   * checks the source entry's {@code declassify} roles against the token's principal and writes an
   * audit line either way. Not retried once the request may have reached the server.
   *
   * <p>Only the protector's server answers this, so it lives here and not on {@link KeyService}:
   * with a local keystore there is nobody to ask, and the engine logs the write itself.
   *
   * @return the receipt of the audit line
   * @throws DeclassificationDeniedException if no role of the principal may declassify the source
   * @throws KeyServiceException if the server rejects the request (naming the field) or does not
   *     offer declassification
   */
  public DeclassifyReceipt authorizeDeclassification(
      String source, List<String> columns, String destination, String queryId) {
    Objects.requireNonNull(source, "source");
    Objects.requireNonNull(columns, "columns");
    Objects.requireNonNull(destination, "destination");
    Objects.requireNonNull(queryId, "queryId");
    Map<String, Object> body =
        JsonCodec.object(
            ProtectorFields.SOURCE,
            source,
            ProtectorFields.COLUMNS,
            List.copyOf(columns),
            ProtectorFields.DESTINATION,
            destination,
            ProtectorFields.QUERY_ID,
            queryId);
    Map<String, Object> data;
    try {
      data = transport.call("POST", Endpoints.DECLASSIFY, body, DECLASSIFY, null, false);
    } catch (KeyAccessDeniedException e) {
      throw new DeclassificationDeniedException(e.principal(), source, columns, shownUrl);
    } catch (KeyNotFoundException e) {
      throw new KeyServiceException(
          "key service at "
              + shownUrl
              + " does not offer declassification (is it an Iceberg Protector key server?): "
              + e.getMessage());
    }
    try {
      checkArgument(data != null, "Empty answer");
      String auditId = JsonCodec.string(data, ProtectorFields.AUDIT_ID);
      String time = JsonCodec.string(data, ProtectorFields.TIME);
      checkArgument(auditId != null && time != null, "No audit_id or time");
      return new DeclassifyReceipt(
          auditId,
          Instant.parse(time),
          JsonCodec.string(data, ProtectorFields.PRINCIPAL),
          JsonCodec.string(data, ProtectorFields.ENTRY),
          strings(data.get(ProtectorFields.COLUMNS)));
    } catch (RuntimeException e) {
      throw new KeyServiceException(
          "key service at "
              + shownUrl
              + " sent an unreadable declassification receipt: "
              + e.getMessage());
    }
  }

  /** Drops and wipes cached key material. The instance cannot be used afterwards. */
  @Override
  public void close() {
    transport.close();
    cache.clear();
  }

  @Override
  public String toString() {
    return "RemoteKeyService{url=" + shownUrl + ", mount=" + mount + "}";
  }

  // ---- HTTP ----------------------------------------------------------------------------------

  private String keysPath(String keyId) {
    return transitPath(Endpoints.KEYS) + "/" + segment(keyId);
  }

  /** {@code /v1/<mount>/<action>}. */
  private String transitPath(String action) {
    return Endpoints.transit(mount) + action;
  }

  // ---- parsing -------------------------------------------------------------------------------

  private KeyInfo toKeyInfo(String keyId, Map<String, Object> data) {
    if (data == null) {
      throw new KeyServiceException(
          "key service at " + shownUrl + " returned no metadata for key '" + keyId + "'");
    }
    try {
      return KeyMetadata.read(keyId, data);
    } catch (RuntimeException e) {
      throw new KeyServiceException(
          "key service at "
              + shownUrl
              + " returned unreadable metadata for key '"
              + keyId
              + "': "
              + e.getMessage());
    }
  }

  private String stringField(Map<String, Object> data, String field) {
    try {
      return JsonCodec.string(data, field);
    } catch (IllegalArgumentException e) {
      throw new KeyServiceException(
          "key service at " + shownUrl + " sent a bad '" + field + "' field");
    }
  }

  private byte[] decodeBase64(String text, String field, String keyId) {
    if (text == null) {
      throw new KeyServiceException(
          "key service at " + shownUrl + " returned no " + field + " for key '" + keyId + "'");
    }
    try {
      return Base64.getDecoder().decode(text);
    } catch (IllegalArgumentException e) {
      throw new KeyServiceException(
          "key service at "
              + shownUrl
              + " returned bad base64 "
              + field
              + " for key '"
              + keyId
              + "'");
    }
  }

  private static List<String> strings(Object value) {
    List<String> out = new ArrayList<>();
    if (value instanceof Collection) {
      for (Object o : (Collection<?>) value) {
        out.add(String.valueOf(o));
      }
    }
    return out;
  }

  /** Percent-encodes one path segment (RFC 3986 unreserved characters pass). */
  static String segment(String keyId) {
    checkArgument(keyId != null && !keyId.isEmpty(), "Key id must not be empty");
    StringBuilder sb = new StringBuilder();
    for (byte b : keyId.getBytes(StandardCharsets.UTF_8)) {
      char c = (char) (b & 0xff);
      if ((c >= 'a' && c <= 'z')
          || (c >= 'A' && c <= 'Z')
          || (c >= '0' && c <= '9')
          || c == '-'
          || c == '_'
          || c == '~'
          || (c == '.' && !keyId.equals(".") && !keyId.equals(".."))) {
        sb.append(c);
      } else {
        sb.append('%')
            .append(Character.toUpperCase(Character.forDigit((b >> 4) & 0xf, 16)))
            .append(Character.toUpperCase(Character.forDigit(b & 0xf, 16)));
      }
    }
    return sb.toString();
  }

  // ---- builder -------------------------------------------------------------------------------

  /**
   * Builds a {@link RemoteKeyService}; {@link #url} and one of the token setters are required. The
   * connection settings go to the {@code KeyServerTransport}, checked as they are set.
   */
  public static final class Builder {
    private final KeyServerTransport.Builder transport = KeyServerTransport.builder();
    private String mount = Endpoints.TRANSIT_MOUNT;
    private Duration cacheTtl = Duration.ofSeconds(60);
    private int cacheMaxEntries = 10_000;
    private LongSupplier nanoClock = System::nanoTime;
    private int tokenBatchValues = 10_000;
    private long tokenBatchChars = 1L << 20;

    private Builder() {}

    /**
     * Server token mode: the most values one encode/decode request carries (default 10,000, the
     * server's default {@code limits.max-batch-values}); larger batches are split.
     */
    public Builder tokenBatchValues(int values) {
      checkArgument(
          values >= 1 && values <= 1_000_000,
          "Token batch values must be in 1..1000000: %s",
          values);
      this.tokenBatchValues = values;
      return this;
    }

    /**
     * Base URL of the key server (or Vault), e.g. {@code https://127.0.0.1:8200}; any path is
     * ignored. Plain {@code http://} is accepted only to a loopback address (127.0.0.0/8, ::1, or
     * {@code localhost} when it resolves to loopback), unless {@link #allowInsecureHttp} is set.
     * Several URLs separated by commas name replicas serving the same keys: requests go to the
     * first, and move to the next on a connection error or a 5xx answer.
     */
    public Builder url(String url) {
      transport.url(url);
      return this;
    }

    /** The server and its replicas, in the order requests try them (see {@link #url(String)}). */
    public Builder urls(List<URI> uris) {
      transport.urls(uris);
      return this;
    }

    public Builder url(URI uri) {
      transport.url(uri);
      return this;
    }

    /**
     * Allows plain {@code http://} to a host that is not loopback. The token and every unwrapped
     * key then cross the network unencrypted: only for a network you trust end to end (e.g. a
     * sidecar proxy that adds TLS). Building such a client logs a warning naming the URL.
     */
    public Builder allowInsecureHttp(boolean allow) {
      transport.allowInsecureHttp(allow);
      return this;
    }

    /**
     * Transit mount path on Vault; {@code transit} by default (the key server serves only that).
     */
    public Builder mount(String mount) {
      String m = Objects.requireNonNull(mount, "mount").replaceAll("^/+|/+$", "");
      checkArgument(!m.isEmpty() && !m.contains(".."), "Invalid transit mount: %s", mount);
      this.mount = m;
      return this;
    }

    /**
     * The bearer token, sent in {@code X-Vault-Token}. Read it from a file or an environment
     * variable with {@link io.icebergprotector.kms.SecretRef#read()}, which has the one rule for
     * token files (the whole file, trimmed, one line).
     */
    public Builder token(String token) {
      transport.token(token);
      return this;
    }

    /**
     * The credential of a trusted runtime, sent in {@code X-Protector-Runtime-Token} beside the
     * principal's token: the client is a shared cluster's runtime acting for that principal, and
     * gets the keys the principal may use only to mask (the key server checks and audits both).
     */
    public Builder runtimeToken(String runtimeToken) {
      transport.runtimeToken(runtimeToken);
      return this;
    }

    /** Trusts the certificates of a PKCS12 or JKS trust store instead of the JDK's default CAs. */
    public Builder trustStore(Path path, char[] password) {
      transport.trustStore(path, password);
      return this;
    }

    /**
     * Trusts exactly the certificate(s) in a PEM or DER file, e.g. the server's self-signed cert.
     */
    public Builder trustedCertificate(Path certificateFile) {
      transport.trustedCertificate(certificateFile);
      return this;
    }

    /** A ready SSLContext; overrides trustStore / trustedCertificate. */
    public Builder sslContext(SSLContext context) {
      transport.sslContext(context);
      return this;
    }

    public Builder connectTimeout(Duration timeout) {
      transport.connectTimeout(timeout);
      return this;
    }

    public Builder requestTimeout(Duration timeout) {
      transport.requestTimeout(timeout);
      return this;
    }

    /** Total attempts per call including the first (1 = no retries); default 4. */
    public Builder maxAttempts(int attempts) {
      transport.maxAttempts(attempts);
      return this;
    }

    /**
     * Backoff doubles from {@code initial} up to {@code max}, with jitter. Defaults 100 ms and 2 s.
     */
    public Builder retryBackoff(Duration initial, Duration max) {
      transport.retryBackoff(initial, max);
      return this;
    }

    /**
     * How long unwrapped keys are cached; {@link Duration#ZERO} disables the cache. Default 60 s.
     */
    public Builder cacheTtl(Duration ttl) {
      checkArgument(ttl != null && !ttl.isNegative(), "Cache TTL must be >= 0: %s", ttl);
      this.cacheTtl = ttl;
      return this;
    }

    public Builder cacheMaxEntries(int entries) {
      checkArgument(entries >= 0, "Cache size must be >= 0: %s", entries);
      this.cacheMaxEntries = entries;
      return this;
    }

    /** For tests: a nanosecond clock for the cache TTL. */
    Builder nanoClock(LongSupplier clock) {
      this.nanoClock = Objects.requireNonNull(clock);
      return this;
    }

    public RemoteKeyService build() {
      return new RemoteKeyService(this, transport.build());
    }
  }
}
