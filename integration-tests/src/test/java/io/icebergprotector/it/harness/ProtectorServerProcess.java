/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.it.harness;

import io.icebergprotector.kms.KeyAlreadyExistsException;
import io.icebergprotector.kms.remote.RemoteKeyService;
import io.icebergprotector.kms.wire.JsonCodec;
import io.icebergprotector.policy.Digests;
import io.icebergprotector.testing.ManagedProcess;
import io.icebergprotector.testing.SelfSignedTls;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.GeneralSecurityException;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import javax.net.ssl.SSLContext;

/**
 * The Iceberg Protector key server ({@code io.icebergprotector.server.ProtectorServer}) in its own
 * JVM on a loopback port, set up the way an operator would:
 *
 * <ul>
 *   <li>a self-signed TLS certificate made with the JDK's {@code keytool} (SAN 127.0.0.1 and
 *       localhost); clients trust its PEM ({@link #certificate()});
 *   <li>a master keystore created on first start, holding the keys an admin creates through the
 *       Transit admin API ({@link #createKeys});
 *   <li>personal access tokens, one file per token ({@link #tokenFile}, mode 600); only their
 *       SHA-256 (computed as the server's {@code TokenAuthenticator} does) is in the config;
 *   <li>HS256 JWT verification with a shared secret ({@link #jwt}), and optionally against an
 *       identity provider's JWKS URL ({@link Builder#jwksUrl});
 *   <li>an audit file with {@code sync = fsync} ({@link #auditEvents()}).
 * </ul>
 *
 * It binds port 0 and prints {@code protector-server listening on https://127.0.0.1:PORT}; after a
 * {@link #stop()} the next {@link #start()} binds the same port again, so clients configured with
 * {@link #url()} keep working.
 */
public final class ProtectorServerProcess implements AutoCloseable {
  public static final String JWT_ISSUER = "https://idp.it.test/";
  public static final String JWT_AUDIENCE = "iceberg-protector";
  private static final Duration STARTUP_TIMEOUT = Duration.ofSeconds(60);
  private static final Pattern LISTENING =
      Pattern.compile("protector-server listening on (https://127\\.0\\.0\\.1:(\\d+))");
  private static final String TLS_PASSWORD_ENV = "IT_PROTECTOR_TLS_PASSWORD";
  private static final String PASSPHRASE_ENV = "IT_PROTECTOR_KEYSTORE_PASSPHRASE";
  private static final String PORT_ENV = "IT_PROTECTOR_PORT";

  private final String name;
  private final Path dir;
  private final Path certificate;
  private final Path configFile;
  private final Path auditFile;
  private final String classpath;
  private final Map<String, String> env = new LinkedHashMap<>();
  private final Map<String, Path> tokenFiles = new LinkedHashMap<>();
  private final Map<String, Path> runtimeFiles = new LinkedHashMap<>();
  private final byte[] jwtSecret;
  private final SSLContext trusting;
  private ManagedProcess process;
  private int starts;
  private int port;

  private ProtectorServerProcess(Builder b) {
    this.name = b.name;
    this.dir = b.dir;
    this.classpath = readClasspath();
    SecureRandom random = new SecureRandom();
    try {
      Files.createDirectories(dir);
      Path secrets = Files.createDirectories(dir.resolve("secrets"));
      Path tokens = Files.createDirectories(dir.resolve("tokens"));

      // TLS: the server reads the keystore password from the environment, as in production.
      String tlsPassword = "tls-" + randomText(random, 12);
      env.put(TLS_PASSWORD_ENV, tlsPassword);
      Path tlsKeystore = secrets.resolve("server-tls.p12");
      this.certificate = dir.resolve("server.pem");
      SelfSignedTls.create(tlsKeystore, tlsPassword, certificate);
      this.trusting = SelfSignedTls.trusting(certificate);

      env.put(PASSPHRASE_ENV, "keys-" + randomText(random, 24));

      // HS256 secret: the server uses the UTF-8 bytes of the file's text (>= 32 bytes).
      String secretText = randomText(random, 32);
      this.jwtSecret = secretText.getBytes(StandardCharsets.UTF_8);
      writePrivate(secrets.resolve("jwt-secret"), secretText);

      StringBuilder tokenConfig = new StringBuilder();
      for (TokenSpec t : b.tokens) {
        String token = "ipt_" + randomText(random, 32);
        Path file = tokens.resolve(t.name + ".token");
        writePrivate(file, token + "\n");
        tokenFiles.put(t.name, file);
        tokenConfig
            .append("      { name = \"")
            .append(t.name)
            .append("\", sha256 = \"")
            .append(Digests.sha256Hex(token))
            .append("\", principal = \"")
            .append(t.principal)
            .append("\", groups = ")
            .append(quoted(t.groups))
            .append(" }\n");
      }

      StringBuilder runtimeConfig = new StringBuilder();
      for (String runtime : b.runtimes) {
        String credential = "ipt_" + randomText(random, 32);
        Path file = tokens.resolve("runtime-" + runtime + ".token");
        writePrivate(file, credential + "\n");
        runtimeFiles.put(runtime, file);
        runtimeConfig
            .append("      { name = \"")
            .append(runtime)
            .append("\", sha256 = \"")
            .append(Digests.sha256Hex(credential))
            .append("\" }\n");
      }

      Files.writeString(dir.resolve("policy.conf"), b.policy, StandardCharsets.UTF_8);
      this.auditFile = dir.resolve("audit/audit.log");
      this.configFile = dir.resolve("server.conf");
      Files.writeString(
          configFile,
          String.join(
              "\n",
              "protector-server {",
              // port 0 on the first start; the harness pins the bound port for restarts
              "  bind { host = \"127.0.0.1\", port = 0, port = ${?" + PORT_ENV + "} }",
              "  tls { keystore = \""
                  + dir.relativize(tlsKeystore)
                  + "\", password-env = \""
                  + TLS_PASSWORD_ENV
                  + "\" }",
              "  keys {",
              "    keystore = \"secrets/keys.p12\"",
              "    passphrase-env = \"" + PASSPHRASE_ENV + "\"",
              "    create-if-missing = true",
              "    auto-create = false",
              "  }",
              "  policy = \"policy.conf\"",
              // tests edit the policy: short, so a change applies within a second
              "  policy-reload-interval = 1s",
              "  admin-roles = " + quoted(b.adminRoles),
              "  auth {",
              "    tokens = [",
              tokenConfig.toString(),
              "    ]",
              "    jwt {",
              "      enabled = true",
              "      issuer = \"" + JWT_ISSUER + "\"",
              "      audience = [\"" + JWT_AUDIENCE + "\"]",
              "      hs256-secret-file = \"secrets/jwt-secret\"",
              "      clock-skew = 5s",
              jwksConfig(b),
              "    }",
              "    runtimes { tokens = [",
              runtimeConfig.toString(),
              "    ] }",
              // one principal per Spark JVM, as on single-user clusters, unless a test says the
              // server serves shared clusters (trusted runtimes only get mask-only keys)
              "    release-mask-keys-to-principals = " + b.releaseMaskKeysToPrincipals,
              "  }",
              "  audit { file = \"audit/audit.log\", sync = fsync }",
              "  limits { worker-threads = 8 }",
              "}",
              ""),
          StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot prepare " + name + " in " + dir, e);
    }
  }

  public static Builder builder(String name, Path dir) {
    return new Builder(name, dir);
  }

  /**
   * A second server process on this one's keystore file (the replica design: mutations take the
   * keystore's file lock, and each server reloads the file when it changed), with the same TLS
   * certificate, policy and credentials, and an audit log of its own in {@code replicaDir}. Not
   * started.
   */
  public ProtectorServerProcess replica(String replicaName, Path replicaDir) {
    return new ProtectorServerProcess(this, replicaName, replicaDir);
  }

  private ProtectorServerProcess(ProtectorServerProcess primary, String name, Path dir) {
    this.name = name;
    this.dir = dir;
    this.classpath = primary.classpath;
    this.certificate = primary.certificate;
    this.trusting = primary.trusting;
    this.jwtSecret = primary.jwtSecret;
    this.env.putAll(primary.env);
    this.tokenFiles.putAll(primary.tokenFiles);
    this.auditFile = dir.resolve("audit/audit.log");
    this.configFile = dir.resolve("server.conf");
    Path shared = primary.dir.toAbsolutePath();
    try {
      Files.createDirectories(dir);
      Files.writeString(
          configFile,
          String.join(
              "\n",
              "include file(\"" + primary.configFile.toAbsolutePath() + "\")",
              "protector-server {",
              "  tls.keystore = \"" + shared.resolve("secrets/server-tls.p12") + "\"",
              "  keys.keystore = \"" + shared.resolve("secrets/keys.p12") + "\"",
              "  policy = \"" + shared.resolve("policy.conf") + "\"",
              "  auth.jwt.hs256-secret-file = \"" + shared.resolve("secrets/jwt-secret") + "\"",
              "  audit.file = \"audit/audit.log\"",
              "}",
              ""),
          StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot prepare " + name + " in " + dir, e);
    }
  }

  /** Kills the JVM at once (SIGKILL): no shutdown hook runs, as when a host is lost. */
  public synchronized void kill() {
    if (process != null && process.isAlive()) {
      ProcessHandle.of(process.pid()).ifPresent(ProcessHandle::destroyForcibly);
      process.awaitExit(Duration.ofSeconds(30));
    }
  }

  /**
   * Starts the server JVM (again, on the same port, after {@link #stop()}); see {@link
   * #awaitReady}.
   */
  public synchronized ProtectorServerProcess start() {
    if (process != null && process.isAlive()) {
      throw new IllegalStateException(name + " is already running");
    }
    starts++;
    Map<String, String> processEnv = new LinkedHashMap<>(env);
    if (port > 0) {
      processEnv.put(PORT_ENV, Integer.toString(port));
    }
    this.process =
        ManagedProcess.builder(starts == 1 ? name : name + "#" + starts)
            .command(
                List.of(
                    ManagedProcess.javaExecutable(),
                    "-Xmx128m",
                    "-XX:TieredStopAtLevel=1",
                    "-XX:+UseSerialGC",
                    "-cp",
                    classpath,
                    "io.icebergprotector.server.ProtectorServer",
                    "--config",
                    configFile.toString()))
            .env(processEnv)
            .workDir(dir)
            .logFile(ItPaths.logsDir().resolve(name + (starts == 1 ? "" : "." + starts) + ".log"))
            .build()
            .start();
    return this;
  }

  /** Waits for the listening line in the log and a 200 from {@code GET /health} over TLS. */
  public ProtectorServerProcess awaitReady() {
    HttpClient http = httpClient();
    process.awaitHealthy(
        STARTUP_TIMEOUT,
        () -> {
          if (port == 0) {
            Matcher m =
                LISTENING.matcher(Files.readString(process.logFile(), StandardCharsets.UTF_8));
            if (!m.find()) {
              return false;
            }
            port = Integer.parseInt(m.group(2));
          }
          HttpRequest health =
              HttpRequest.newBuilder(URI.create(url() + "/health"))
                  .timeout(Duration.ofSeconds(5))
                  .build();
          return http.send(health, HttpResponse.BodyHandlers.discarding()).statusCode() == 200;
        });
    return this;
  }

  /** Stops the JVM (SIGTERM: its shutdown hook closes the audit log and keystore). */
  public synchronized void stop() {
    if (process != null) {
      process.stop();
    }
  }

  public boolean isRunning() {
    return process != null && process.isAlive();
  }

  /** {@code https://127.0.0.1:PORT}, known once {@link #awaitReady()} returned. */
  public String url() {
    if (port == 0) {
      throw new IllegalStateException(name + " has not reported its port yet");
    }
    return "https://127.0.0.1:" + port;
  }

  /** The server's self-signed certificate (PEM), what clients put in their trust store option. */
  public Path certificate() {
    return certificate;
  }

  /**
   * Replaces the server's policy file with {@code policy} in one step (written beside it, then
   * moved over it), as an operator's deployment does: the server re-reads the file every second and
   * would otherwise see it empty or half-written, and refuse that (audited as a policy error).
   */
  public void replacePolicy(String policy) {
    Path file = policyFile();
    Path staged = file.resolveSibling(file.getFileName() + ".staged");
    try {
      Files.writeString(staged, policy, StandardCharsets.UTF_8);
      Files.move(staged, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot replace " + file, e);
    }
  }

  /** The policy file the server reads (and re-reads every second while it runs). */
  public Path policyFile() {
    return dir.resolve("policy.conf");
  }

  public Path auditFile() {
    return auditFile;
  }

  public ManagedProcess process() {
    return process;
  }

  /** Every log file this server wrote (one per start). */
  public List<Path> logFiles() {
    List<Path> files = new ArrayList<>();
    for (int i = 1; i <= starts; i++) {
      files.add(ItPaths.logsDir().resolve(name + (i == 1 ? "" : "." + i) + ".log"));
    }
    return files;
  }

  /** The file holding the personal access token called {@code tokenName}. */
  public Path tokenFile(String tokenName) {
    Path file = tokenFiles.get(tokenName);
    if (file == null) {
      throw new IllegalArgumentException(
          "No token '" + tokenName + "'; tokens: " + tokenFiles.keySet());
    }
    return file;
  }

  /** The raw token of {@code tokenName} (for leak checks and direct API calls). */
  public String token(String tokenName) {
    try {
      return Files.readString(tokenFile(tokenName), StandardCharsets.UTF_8).strip();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Every raw token this server accepts. */
  /** The credential file of trusted runtime {@code runtime} (for its catalogs). */
  public Path runtimeTokenFile(String runtime) {
    Path file = runtimeFiles.get(runtime);
    if (file == null) {
      throw new IllegalArgumentException(
          "No runtime '" + runtime + "'; runtimes: " + runtimeFiles.keySet());
    }
    return file;
  }

  public List<String> tokens() {
    return tokenFiles.keySet().stream().map(this::token).collect(Collectors.toList());
  }

  /**
   * An HS256 JWT for {@code subject} from the configured issuer and audience, expiring at {@code
   * expires}.
   */
  public String jwt(String subject, List<String> groups, Instant expires) {
    Base64.Encoder b64 = Base64.getUrlEncoder().withoutPadding();
    long now = Instant.now().getEpochSecond();
    Map<String, Object> claims = new LinkedHashMap<>();
    claims.put("iss", JWT_ISSUER);
    claims.put("aud", JWT_AUDIENCE);
    claims.put("sub", subject);
    claims.put("groups", List.copyOf(groups));
    claims.put("iat", Math.min(now, expires.getEpochSecond() - 60));
    claims.put("exp", expires.getEpochSecond());
    String signingInput =
        b64.encodeToString(
                JsonCodec.write(JsonCodec.object("alg", "HS256", "typ", "JWT"))
                    .getBytes(StandardCharsets.UTF_8))
            + "."
            + b64.encodeToString(JsonCodec.write(claims).getBytes(StandardCharsets.UTF_8));
    try {
      Mac mac = Mac.getInstance("HmacSHA256");
      mac.init(new SecretKeySpec(jwtSecret, "HmacSHA256"));
      return signingInput
          + "."
          + b64.encodeToString(mac.doFinal(signingInput.getBytes(StandardCharsets.US_ASCII)));
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("HS256 is not available", e);
    }
  }

  /**
   * Writes {@code token} to a new file (mode 600) under this server's directory, for a catalog
   * option.
   */
  public Path writeTokenFile(String fileName, String token) {
    Path file = dir.resolve("tokens").resolve(fileName);
    writePrivate(file, token + "\n");
    return file;
  }

  /**
   * A PKCS12 trust store holding the server's certificate, protected by the password in environment
   * variable {@code passwordEnv} (as a user's {@code protector.kms.trust-store} with {@code
   * protector.kms.trust-store-password-env}).
   */
  public Path pkcs12TrustStore(String passwordEnv) {
    Path file = dir.resolve("truststore.p12");
    try {
      Files.deleteIfExists(file);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    SelfSignedTls.keytool(
        Map.of(),
        "-importcert",
        "-noprompt",
        "-alias",
        "protector-server",
        "-file",
        certificate.toString(),
        "-storetype",
        "PKCS12",
        "-keystore",
        file.toString(),
        "-storepass:env",
        passwordEnv);
    return file;
  }

  /** A client of the running server as the holder of {@code tokenName}. */
  public RemoteKeyService client(String tokenName) {
    return RemoteKeyService.builder()
        .url(url())
        .token(token(tokenName))
        .trustedCertificate(certificate)
        .connectTimeout(Duration.ofSeconds(2))
        .requestTimeout(Duration.ofSeconds(10))
        .build();
  }

  /** Creates master keys through the Transit admin API ({@code POST /v1/transit/keys/<key>}). */
  public void createKeys(String adminTokenName, Collection<String> keyIds) {
    try (RemoteKeyService admin = client(adminTokenName)) {
      for (String keyId : keyIds) {
        try {
          admin.createKey(keyId);
        } catch (KeyAlreadyExistsException e) {
          // created by an earlier start
        }
      }
    }
  }

  /** The audit log's JSON lines, parsed, oldest first (fsync'ed before each response). */
  public List<Map<String, Object>> auditEvents() {
    if (!Files.exists(auditFile)) {
      return List.of();
    }
    try {
      return Files.readAllLines(auditFile, StandardCharsets.UTF_8).stream()
          .filter(line -> !line.isBlank())
          .map(JsonCodec::parseObject)
          .collect(Collectors.toList());
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read " + auditFile, e);
    }
  }

  /** A TLS context trusting exactly this server's certificate. */
  public SSLContext sslContext() {
    return trusting;
  }

  /** An HTTP client trusting exactly this server's certificate. */
  public HttpClient httpClient() {
    return HttpClient.newBuilder()
        .version(HttpClient.Version.HTTP_1_1)
        .sslContext(trusting)
        .connectTimeout(Duration.ofSeconds(2))
        .build();
  }

  @Override
  public void close() {
    stop();
  }

  @Override
  public String toString() {
    return name
        + (process == null
            ? "[not started]"
            : "[" + process + (port > 0 ? " at " + url() : "") + "]");
  }

  // ------------------------------------------------------------------ helpers

  private static String readClasspath() {
    Path file = ItPaths.protectorServerClasspathFile();
    try {
      return Files.readString(file, StandardCharsets.UTF_8).trim();
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read " + file, e);
    }
  }

  private static String randomText(SecureRandom random, int bytes) {
    byte[] raw = new byte[bytes];
    random.nextBytes(raw);
    return Base64.getUrlEncoder().withoutPadding().encodeToString(raw);
  }

  private static void writePrivate(Path file, String text) {
    try {
      Files.deleteIfExists(file);
      try {
        Files.createFile(
            file,
            PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
      } catch (UnsupportedOperationException e) {
        Files.createFile(file); // not a POSIX file system
      }
      Files.writeString(file, text, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot write " + file, e);
    }
  }

  private static String quoted(Collection<String> values) {
    return values.stream().map(v -> "\"" + v + "\"").collect(Collectors.joining(", ", "[", "]"));
  }

  private static String jwksConfig(Builder b) {
    if (b.jwksUrl == null) {
      return "";
    }
    return String.join(
        "\n",
        "      jwks-url = \"" + b.jwksUrl + "\"",
        "      jwks-cache-lifetime = " + b.jwksCacheLifetime.toMillis() + "ms",
        // tests rotate the provider's keys: a token of an unknown key id refetches at once
        "      jwks-min-refresh-interval = 0s");
  }

  private record TokenSpec(String name, String principal, List<String> groups) {}

  public static final class Builder {
    private final String name;
    private final Path dir;
    private final List<TokenSpec> tokens = new ArrayList<>();
    private final List<String> adminRoles = new ArrayList<>();
    private final List<String> runtimes = new ArrayList<>();
    private boolean releaseMaskKeysToPrincipals = true;
    private String policy;
    private String jwksUrl;
    private Duration jwksCacheLifetime;

    private Builder(String name, Path dir) {
      this.name = Objects.requireNonNull(name, "name");
      this.dir = Objects.requireNonNull(dir, "dir");
    }

    /** The policy the server enforces and hands to clients (HOCON text). */
    public Builder policy(String hocon) {
      this.policy = hocon;
      return this;
    }

    /** A personal access token called {@code tokenName} authenticating {@code principal}. */
    public Builder token(String tokenName, String principal, String... groups) {
      tokens.add(new TokenSpec(tokenName, principal, List.of(groups)));
      return this;
    }

    /**
     * A server for shared clusters: the keys a principal uses only to mask go only to the trusted
     * runtime {@code runtime} (a credential of {@code auth.runtimes}, in {@link #runtimeTokenFile})
     * acting for it, never to the principal's own token.
     */
    public Builder sharedClusterRuntime(String runtime) {
      runtimes.add(Objects.requireNonNull(runtime, "runtime"));
      this.releaseMaskKeysToPrincipals = false;
      return this;
    }

    /** Policy roles whose members may create and rotate keys. */
    public Builder adminRoles(String... roles) {
      adminRoles.addAll(List.of(roles));
      return this;
    }

    /**
     * Also verifies RS256/ES256 JWTs against an identity provider's JWKS at {@code url} (http on
     * loopback is accepted), cached for {@code cacheLifetime}; a token whose key id is not cached
     * makes the server fetch the set again at once.
     */
    public Builder jwksUrl(String url, Duration cacheLifetime) {
      this.jwksUrl = Objects.requireNonNull(url, "url");
      this.jwksCacheLifetime = Objects.requireNonNull(cacheLifetime, "cacheLifetime");
      return this;
    }

    /** Writes the TLS material, secrets, token files and config; does not start the server. */
    public ProtectorServerProcess build() {
      Objects.requireNonNull(policy, "policy");
      if (tokens.isEmpty()) {
        throw new IllegalArgumentException(name + ": configure at least one token");
      }
      return new ProtectorServerProcess(this);
    }
  }
}
