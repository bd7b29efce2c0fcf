/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.kms.remote;

import static io.icebergprotector.policy.Preconditions.checkArgument;
import static io.icebergprotector.policy.Preconditions.checkState;

import io.icebergprotector.kms.KeyAccessDeniedException;
import io.icebergprotector.kms.KeyAlreadyExistsException;
import io.icebergprotector.kms.KeyDestroyedException;
import io.icebergprotector.kms.KeyIntegrityException;
import io.icebergprotector.kms.KeyNotFoundException;
import io.icebergprotector.kms.KeyServiceException;
import io.icebergprotector.kms.KeyServiceUnavailableException;
import io.icebergprotector.kms.KeyVersionRetiredException;
import io.icebergprotector.kms.TokenKeysUnsupportedException;
import io.icebergprotector.kms.wire.Endpoints;
import io.icebergprotector.kms.wire.Envelope;
import io.icebergprotector.kms.wire.JsonCodec;
import java.io.IOException;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.UnknownHostException;
import java.net.http.HttpClient;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLException;

/**
 * The HTTP transport of {@link RemoteKeyService}: one {@link HttpClient} (connections pooled and
 * reused) to the key server and its replicas, the token on every request, retries and failover, and
 * the mapping of refusals to the {@link KeyServiceException} family.
 *
 * <p>Idempotent calls are retried with exponential backoff and jitter on connection errors,
 * timeouts and 5xx, moving to the next replica on each such failure; other calls only when the
 * connection could not be made, so a lost response cannot rotate a key twice. A 429 is retried
 * after the server's {@code Retry-After}, since the server did nothing with the request. Other 4xx
 * answers are never retried: every replica would answer the same. The token appears in no message,
 * log line or {@code toString()}.
 */
final class KeyServerTransport {
  // Logged under the client's name, which operators configure their logging by.
  private static final System.Logger LOG = System.getLogger(RemoteKeyService.class.getName());
  private static final Pattern IPV4_LITERAL = Pattern.compile("\\d{1,3}(\\.\\d{1,3}){3}");
  // URLs already warned about as plain HTTP: one warning per URL and JVM, however many clients.
  private static final Set<String> WARNED_INSECURE = ConcurrentHashMap.newKeySet();
  private static final int MAX_ERROR_TEXT = 300;

  /** The operation name under which a 400 means a retired version or a failed integrity check. */
  static final String UNWRAP = "unwrap";

  /** Why a masked reader's unwrap may be refused, and what the deployment can do. */
  static final String MASK_ONLY_HINT =
      " (if the principal reads the columns under this key only masked, the key server releases"
          + " the key only to a trusted runtime acting for it: the cluster's"
          + " protector.runtime-token-file; or auth.release-mask-keys-to-principals = true on a"
          + " server for single-user clusters)";

  private final List<URI> endpoints; // the first, then replicas to fail over to
  private final AtomicInteger current = new AtomicInteger(); // the endpoint requests go to
  private final String shownUrl; // for messages: scheme://host:port, comma-separated
  private final String token;
  private final String runtimeToken; // null unless this client is a trusted runtime
  private final HttpClient http;
  private final Duration requestTimeout;
  private final int maxAttempts;
  private final long initialBackoffMillis;
  private final long maxBackoffMillis;
  private volatile boolean closed;

  private KeyServerTransport(Builder b, SSLContext sslContext) {
    this.endpoints = List.copyOf(b.urls);
    this.shownUrl = shown(endpoints);
    this.token = b.token;
    this.runtimeToken = b.runtimeToken;
    this.requestTimeout = b.requestTimeout;
    this.maxAttempts = b.maxAttempts;
    this.initialBackoffMillis = b.initialBackoff.toMillis();
    this.maxBackoffMillis = b.maxBackoff.toMillis();
    HttpClient.Builder hb =
        HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(b.connectTimeout)
            .followRedirects(HttpClient.Redirect.NEVER); // never forward the token to another host
    if (sslContext != null) {
      hb.sslContext(sslContext);
    }
    this.http = hb.build();
  }

  static Builder builder() {
    return new Builder();
  }

  /** The server base URL requests go to now, e.g. {@code https://127.0.0.1:8200}. */
  URI url() {
    return endpoints.get(current.get());
  }

  /** Every server this transport may use, in order (the first, then the replicas). */
  List<URI> urls() {
    return endpoints;
  }

  /** For messages: scheme://host:port of each server, comma-separated. */
  String shownUrl() {
    return shownUrl;
  }

  /** Refuses every later request. */
  void close() {
    closed = true;
  }

  private static String shown(List<URI> uris) {
    return uris.stream()
        .map(u -> u.toString().replaceFirst("/$", ""))
        .collect(Collectors.joining(", "));
  }

  /**
   * Sends the following requests to the next endpoint, unless another thread already moved on from
   * {@code failed}.
   */
  private void failOver(int failed) {
    if (endpoints.size() > 1) {
      current.compareAndSet(failed, (failed + 1) % endpoints.size());
    }
  }

  /**
   * Sends a JSON body (or none) and returns the answer's {@code data} object; null for an empty
   * answer. {@code op} and {@code keyId} name the call in messages.
   */
  Map<String, Object> call(
      String method,
      String path,
      Map<String, Object> body,
      String op,
      String keyId,
      boolean idempotent) {
    byte[] bytes = body == null ? null : JsonCodec.write(body).getBytes(StandardCharsets.UTF_8);
    HttpResponse<String> response = send(method, path, bytes, op, keyId, idempotent, Map.of());
    String text = response.body();
    if (response.statusCode() == 204 || text == null || text.isBlank()) {
      return null;
    }
    try {
      return JsonCodec.object(JsonCodec.parseObject(text), Envelope.DATA);
    } catch (IllegalArgumentException e) {
      throw new KeyServiceException(
          "key service at "
              + shownUrl
              + " sent an unreadable response to "
              + op
              + (keyId == null ? "" : " for key '" + keyId + "'")
              + ": "
              + e.getMessage());
    }
  }

  /**
   * Sends one request, retrying and failing over as the class describes, and returns a 2xx or 304
   * answer.
   *
   * @throws KeyServiceException of the kind the server's refusal names
   * @throws KeyServiceUnavailableException when no attempt got an answer
   */
  HttpResponse<String> send(
      String method,
      String path,
      byte[] body,
      String op,
      String keyId,
      boolean idempotent,
      Map<String, String> headers) {
    checkState(!closed, "RemoteKeyService is closed");
    HttpRequest.Builder rb =
        HttpRequest.newBuilder(endpoints.get(0).resolve(path))
            .timeout(requestTimeout)
            .header(Endpoints.TOKEN_HEADER, token)
            .header("X-Vault-Request", "true")
            .header("Accept", "application/json");
    if (runtimeToken != null) {
      rb.header(Endpoints.RUNTIME_TOKEN_HEADER, runtimeToken);
    }
    headers.forEach(rb::header);
    if (body != null) {
      rb.header("Content-Type", "application/json")
          .method(method, HttpRequest.BodyPublishers.ofByteArray(body));
    } else {
      rb.method(method, HttpRequest.BodyPublishers.noBody());
    }
    HttpRequest request = rb.build();

    String lastProblem = null;
    Throwable lastCause = null;
    long retryAfterMillis = 0;
    for (int attempt = 1; attempt <= maxAttempts; attempt++) {
      if (attempt > 1) {
        pause(Math.max(retryAfterMillis, backoffMillis(attempt)));
        retryAfterMillis = 0;
      }
      int endpoint = current.get();
      URI base = endpoints.get(endpoint);
      String at = endpoints.size() == 1 ? "" : base.getRawAuthority() + ": ";
      HttpRequest toEndpoint =
          endpoint == 0
              ? request
              : HttpRequest.newBuilder(request, (name, value) -> true)
                  .uri(base.resolve(path))
                  .build();
      HttpResponse<String> response;
      try {
        response =
            http.send(toEndpoint, HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new KeyServiceUnavailableException(
            "interrupted while calling key service at " + shownUrl, e);
      } catch (IOException e) {
        if (isTlsFailure(e)) {
          // a certificate or protocol problem will not heal by retrying
          throw new KeyServiceUnavailableException(
              "TLS connection to key service at " + shownUrl + " failed: " + safeMessage(e), e);
        }
        boolean notSent = e instanceof ConnectException || e instanceof HttpConnectTimeoutException;
        lastProblem = at + describe(e);
        lastCause = e;
        failOver(endpoint);
        if (notSent || idempotent) {
          continue;
        }
        break;
      }
      int status = response.statusCode();
      if ((status >= 200 && status < 300) || status == 304) { // 304: only to If-None-Match
        return response;
      }
      if (status == 429) {
        // refused before it did anything, so any operation may be sent again, when the server says
        lastProblem = "HTTP 429" + errorText(response.body());
        lastCause = null;
        retryAfterMillis = retryAfterMillis(response);
        continue;
      }
      if (status >= 500 && status != 501) { // 501: this server cannot, and neither will a replica
        lastProblem = at + "HTTP " + status + errorText(response.body());
        lastCause = null;
        failOver(endpoint);
        if (idempotent) {
          continue;
        }
        break;
      }
      throw mapClientError(status, response.body(), op, keyId);
    }
    String message =
        "key service at "
            + shownUrl
            + " is unavailable ("
            + op
            + (keyId == null ? "" : " key '" + keyId + "'")
            + "): "
            + lastProblem;
    throw lastCause == null
        ? new KeyServiceUnavailableException(message)
        : new KeyServiceUnavailableException(message, lastCause);
  }

  private long backoffMillis(int attempt) {
    long exp = initialBackoffMillis << Math.min(attempt - 2, 20);
    long cap = Math.min(maxBackoffMillis, exp);
    // "equal jitter": at least half the step, so retries still spread out but never hammer
    return cap / 2 + ThreadLocalRandom.current().nextLong(cap / 2 + 1);
  }

  /** The server's Retry-After (whole seconds), at most a minute; 0 when absent or malformed. */
  private static long retryAfterMillis(HttpResponse<String> response) {
    try {
      long seconds =
          Long.parseLong(response.headers().firstValue("Retry-After").orElse("0").trim());
      return Math.min(Math.max(seconds, 0), 60) * 1000;
    } catch (NumberFormatException e) {
      return 0;
    }
  }

  private void pause(long delay) {
    try {
      Thread.sleep(delay);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new KeyServiceUnavailableException(
          "interrupted while retrying key service at " + shownUrl, e);
    }
  }

  private KeyServiceException mapClientError(int status, String body, String op, String keyId) {
    String detail = firstError(body);
    String forKey = keyId == null ? "" : " for key '" + keyId + "'";
    switch (status) {
      case 401:
        {
          String cause =
              detail == null
                  ? "token rejected"
                  : detail.replaceFirst("^authentication failed: ", "");
          return new KeyAuthenticationException(
              "authentication failed: " + cause + " (key service at " + shownUrl + ")");
        }
      case 403:
        {
          String principal = null;
          try {
            principal = JsonCodec.string(JsonCodec.parseObject(body), Envelope.PRINCIPAL);
          } catch (RuntimeException e) {
            // Vault's 403 bodies carry no principal
          }
          return new KeyAccessDeniedException(
              principal == null ? "(token holder)" : principal,
              keyId == null ? "(none)" : keyId,
              op,
              runtimeToken == null && (UNWRAP.equals(op) || "derive".equals(op))
                  ? MASK_ONLY_HINT
                  : "");
        }
      case 404:
        return new KeyNotFoundException((detail == null ? "not found" : detail) + forKey);
      case 501:
        return new TokenKeysUnsupportedException(
            op + forKey + " refused by key service at " + shownUrl + ": " + detail);
      case 409:
        return new KeyAlreadyExistsException(
            (detail == null ? "key already exists" : detail) + forKey);
      case 410:
        return new KeyDestroyedException((detail == null ? "key was destroyed" : detail) + forKey);
      case 400:
        if (UNWRAP.equals(op) && detail != null && isRetiredVersion(detail)) {
          return new KeyVersionRetiredException(detail);
        }
        if (UNWRAP.equals(op)) {
          return new KeyIntegrityException(
              "cannot unwrap" + forKey + ": " + (detail == null ? "HTTP 400" : detail));
        }
        return new KeyServiceException(
            op + forKey + " rejected: " + (detail == null ? "HTTP 400" : detail));
      default:
        return new KeyServiceException(
            op
                + forKey
                + " rejected by key service at "
                + shownUrl
                + ": HTTP "
                + status
                + (detail == null ? "" : ": " + detail));
    }
  }

  /**
   * Our server names the key and versions; Vault says "... version is disallowed by policy (too
   * old)".
   */
  private static boolean isRetiredVersion(String detail) {
    return detail.contains("is retired (minimum decryption version")
        || detail.contains("disallowed by policy");
  }

  private static boolean isTlsFailure(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof SSLException) {
        return true;
      }
    }
    return false;
  }

  private static String describe(IOException e) {
    return e.getClass().getSimpleName() + (e.getMessage() == null ? "" : ": " + safeMessage(e));
  }

  private static String safeMessage(Throwable e) {
    String m = String.valueOf(e.getMessage());
    return m.length() > MAX_ERROR_TEXT ? m.substring(0, MAX_ERROR_TEXT) + "..." : m;
  }

  private static String errorText(String body) {
    String detail = firstError(body);
    return detail == null ? "" : ": " + detail;
  }

  /** The server's {@code errors} joined, truncated; null when the body is not a Vault error. */
  private static String firstError(String body) {
    if (body == null || body.isBlank()) {
      return null;
    }
    try {
      Object errors = JsonCodec.parseObject(body).get(Envelope.ERRORS);
      if (errors instanceof Collection && !((Collection<?>) errors).isEmpty()) {
        StringBuilder sb = new StringBuilder();
        for (Object e : (Collection<?>) errors) {
          if (sb.length() > 0) {
            sb.append("; ");
          }
          sb.append(String.valueOf(e).strip());
        }
        String s = sb.toString();
        return s.length() > MAX_ERROR_TEXT ? s.substring(0, MAX_ERROR_TEXT) + "..." : s;
      }
    } catch (RuntimeException e) {
      // not JSON: fall through
    }
    return null;
  }

  // ---- builder -------------------------------------------------------------------------------

  /**
   * The transport's settings, checked as they are set; {@link RemoteKeyService.Builder} documents
   * each and hands them on.
   */
  static final class Builder {
    private final List<URI> urls = new ArrayList<>();
    private String token;
    private String runtimeToken;
    private Path trustStore;
    private char[] trustStorePassword;
    private Path trustedCertificate;
    private SSLContext sslContext;
    private Duration connectTimeout = Duration.ofSeconds(5);
    private Duration requestTimeout = Duration.ofSeconds(30);
    private int maxAttempts = 4;
    private Duration initialBackoff = Duration.ofMillis(100);
    private Duration maxBackoff = Duration.ofSeconds(2);
    private boolean allowInsecureHttp;

    private Builder() {}

    void url(String url) {
      Objects.requireNonNull(url, "url");
      List<URI> parsed = new ArrayList<>();
      for (String part : url.split(",", -1)) {
        checkArgument(!part.isBlank(), "Empty key service url in '%s'", url);
        try {
          parsed.add(new URI(part.strip()));
        } catch (URISyntaxException e) {
          throw new IllegalArgumentException("Invalid key service url: " + part.strip(), e);
        }
      }
      urls(parsed);
    }

    void urls(List<URI> uris) {
      checkArgument(!uris.isEmpty(), "Cannot use key service: no url");
      urls.clear();
      for (URI uri : uris) {
        add(uri);
      }
      checkArgument(
          new HashSet<>(urls).size() == urls.size(),
          "Cannot use key service urls %s: a url is listed twice",
          uris);
    }

    void url(URI uri) {
      urls.clear();
      add(uri);
    }

    private void add(URI uri) {
      Objects.requireNonNull(uri, "url");
      String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
      checkArgument(
          scheme.equals("https") || scheme.equals("http"),
          "Key service url must be https:// (or http:// on loopback): %s",
          uri);
      checkArgument(uri.getHost() != null, "Key service url has no host: %s", uri);
      checkArgument(
          uri.getUserInfo() == null, "Key service url must not carry credentials; use token()");
      urls.add(URI.create(scheme + "://" + uri.getRawAuthority() + "/"));
    }

    void allowInsecureHttp(boolean allow) {
      this.allowInsecureHttp = allow;
    }

    void runtimeToken(String runtimeToken) {
      Objects.requireNonNull(runtimeToken, "runtimeToken");
      String t = runtimeToken.strip();
      checkArgument(
          !t.isEmpty() && t.chars().noneMatch(c -> c < 0x21 || c > 0x7e),
          "Invalid runtime credential: it must be one line of printable ASCII");
      this.runtimeToken = t;
    }

    void token(String token) {
      Objects.requireNonNull(token, "token");
      String t = token.strip();
      checkArgument(!t.isEmpty(), "Token must not be empty");
      for (int i = 0; i < t.length(); i++) {
        char c = t.charAt(i);
        if (c < 0x21 || c > 0x7e) {
          // never echo the token; say only what is wrong with it
          throw new IllegalArgumentException(
              "Token contains a character not allowed in an HTTP header");
        }
      }
      this.token = t;
    }

    void trustStore(Path path, char[] password) {
      this.trustStore = Objects.requireNonNull(path, "trust store path");
      this.trustStorePassword = password == null ? null : password.clone();
    }

    void trustedCertificate(Path certificateFile) {
      this.trustedCertificate = Objects.requireNonNull(certificateFile, "certificate file");
    }

    void sslContext(SSLContext context) {
      this.sslContext = Objects.requireNonNull(context, "sslContext");
    }

    void connectTimeout(Duration timeout) {
      this.connectTimeout = positive(timeout, "connect timeout");
    }

    void requestTimeout(Duration timeout) {
      this.requestTimeout = positive(timeout, "request timeout");
    }

    void maxAttempts(int attempts) {
      checkArgument(attempts >= 1 && attempts <= 20, "Max attempts must be in 1..20: %s", attempts);
      this.maxAttempts = attempts;
    }

    void retryBackoff(Duration initial, Duration max) {
      this.initialBackoff = positive(initial, "initial backoff");
      this.maxBackoff = positive(max, "max backoff");
      checkArgument(
          max.compareTo(initial) >= 0, "Max backoff %s is below initial backoff %s", max, initial);
    }

    KeyServerTransport build() {
      checkState(!urls.isEmpty(), "RemoteKeyService needs a url");
      checkState(
          token != null,
          "RemoteKeyService needs a token (read one from a file or variable with SecretRef)");
      urls.forEach(this::checkPlainHttp);
      SSLContext ssl = sslContext;
      try {
        if (ssl == null && trustedCertificate != null) {
          ssl = TrustContexts.certificates(trustedCertificate);
        } else if (ssl == null && trustStore != null) {
          ssl = TrustContexts.trustStore(trustStore, trustStorePassword);
        }
      } finally {
        if (trustStorePassword != null) {
          Arrays.fill(trustStorePassword, '\0');
          trustStorePassword = null;
        }
      }
      return new KeyServerTransport(this, ssl);
    }

    /** Plain HTTP would send the token in clear: only to loopback, or when explicitly allowed. */
    private void checkPlainHttp(URI url) {
      if (!url.getScheme().equals("http") || isLoopback(url.getHost())) {
        return;
      }
      String shown = url.toString().replaceFirst("/$", "");
      checkArgument(
          allowInsecureHttp,
          "Refusing plain http:// to key service at %s: the token would "
              + "cross the network in clear; use https://, or set "
              + "allow-insecure-http (catalog option "
              + "protector.kms.allow-insecure-http = true, CLI "
              + "--allow-insecure-http) if the network in between is trusted",
          shown);
      if (WARNED_INSECURE.add(shown)) {
        LOG.log(
            System.Logger.Level.WARNING,
            "allow-insecure-http: talking plain http:// to key service at "
                + shown
                + "; tokens and unwrapped keys cross the network unencrypted");
      }
    }

    /**
     * Whether {@code host} is a loopback address literal, or {@code localhost} resolving only to
     * loopback. Other names are never resolved: DNS could point them anywhere.
     */
    static boolean isLoopback(String host) {
      String h =
          host.startsWith("[") && host.endsWith("]") ? host.substring(1, host.length() - 1) : host;
      try {
        if (h.equalsIgnoreCase("localhost")) {
          InetAddress[] all = InetAddress.getAllByName(h);
          return all.length > 0 && Arrays.stream(all).allMatch(InetAddress::isLoopbackAddress);
        }
        if (IPV4_LITERAL.matcher(h).matches() || h.contains(":")) {
          return InetAddress.getByName(h).isLoopbackAddress(); // a literal: parsed, not looked up
        }
      } catch (UnknownHostException e) {
        return false;
      }
      return false;
    }

    private static Duration positive(Duration d, String what) {
      checkArgument(
          d != null && !d.isZero() && !d.isNegative(),
          "Invalid %s: must be positive, got %s",
          what,
          d);
      return d;
    }
  }
}
