/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.server;

import static io.icebergprotector.policy.Preconditions.checkArgument;

import io.icebergprotector.kms.KeyService;
import io.icebergprotector.kms.KeyServices;
import io.icebergprotector.kms.Passphrase;
import io.icebergprotector.server.audit.AuditLog;
import io.icebergprotector.server.audit.Metrics;
import io.icebergprotector.server.auth.CallerRateLimits;
import io.icebergprotector.server.auth.JwtAuthenticator;
import io.icebergprotector.server.auth.RuntimeAttestation;
import io.icebergprotector.server.auth.TokenAuthenticator;
import io.icebergprotector.server.config.ServerConfig;
import io.icebergprotector.server.http.Exchanges;
import io.icebergprotector.server.http.JettyTransport;
import io.icebergprotector.server.http.Router;
import io.icebergprotector.server.policy.PolicyWatcher;
import io.icebergprotector.server.policy.ServedPolicy;
import io.icebergprotector.server.routes.RouteTable;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.URI;
import java.net.UnknownHostException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.util.Arrays;
import java.util.Collections;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import org.eclipse.jetty.http.UriCompliance;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.NetworkConnectionLimit;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.server.SslConnectionFactory;
import org.eclipse.jetty.server.handler.QoSHandler;
import org.eclipse.jetty.util.ssl.SslContextFactory;
import org.eclipse.jetty.util.thread.QueuedThreadPool;

/**
 * The Iceberg Protector key server: a standalone HTTPS service answering a Vault Transit compatible
 * subset (encrypt, decrypt, hmac, key admin) over a local keystore or a PKCS#11 token, with
 * token/JWT authentication, policy-scoped authorization and an audit log.
 *
 * <pre>
 *   java -jar iceberg-protector-server.jar --config conf/server.conf
 *   java -jar iceberg-protector-server.jar new-token      # a token and the hash to put in the config
 * </pre>
 *
 * On start it prints {@code protector-server listening on https://HOST:PORT} to stdout.
 */
public final class ProtectorServer implements AutoCloseable {
  private static final System.Logger LOG = System.getLogger(ProtectorServer.class.getName());
  static final String LISTENING = "protector-server listening on ";

  private final Server server;
  private final ScheduledExecutorService housekeeping;
  private final PolicyWatcher policyWatcher;
  private final KeyService keys;
  private final AuditLog audit;
  private final Metrics metrics;
  private final URI url;
  private volatile boolean closed;

  private ProtectorServer(
      Server server,
      ScheduledExecutorService housekeeping,
      KeyService keys,
      AuditLog audit,
      Metrics metrics,
      PolicyWatcher policyWatcher,
      URI url) {
    this.server = server;
    this.policyWatcher = policyWatcher;
    this.housekeeping = housekeeping;
    this.keys = keys;
    this.audit = audit;
    this.metrics = metrics;
    this.url = url;
  }

  /**
   * Checks the policy file now, as the {@code policy-reload-interval} timer does: applies and
   * audits a changed policy, or audits why a changed file was refused.
   */
  void checkPolicy() {
    policyWatcher.run();
  }

  /** The content digest of the policy that requests starting now are decided under. */
  String policyDigest() {
    return policyWatcher.servedDigest();
  }

  /** Loads the config file and starts serving. */
  public static ProtectorServer start(Path configFile) {
    return start(ServerConfig.load(configFile));
  }

  /** Starts serving; opens the key backend named in the config. Closing the server closes it. */
  public static ProtectorServer start(ServerConfig config) {
    // Fail on bind/TLS problems before touching the key store.
    InetAddress bindAddress = bindAddress(config);
    SSLContext ssl = config.allowInsecureHttp() ? null : sslContext(config);
    ServedPolicy policy;
    try {
      policy = ServedPolicy.load(config.policy(), config.adminRoles());
    } catch (UncheckedIOException e) {
      throw new IllegalArgumentException(e.getMessage(), e);
    }
    JwtAuthenticator jwt = config.jwt() == null ? null : new JwtAuthenticator(config.jwt());
    TokenAuthenticator authenticator = new TokenAuthenticator(config.tokens(), jwt);
    KeyService keys = KeyServices.open(config.keyService(), config.createKeystore());
    AuditLog audit = null;
    try {
      audit = new AuditLog(config.auditFile(), config.auditSync());
      return start(config, bindAddress, ssl, policy, authenticator, keys, audit);
    } catch (RuntimeException e) {
      keys.close();
      if (audit != null) {
        audit.close();
      }
      throw e;
    }
  }

  private static ProtectorServer start(
      ServerConfig config,
      InetAddress bindAddress,
      SSLContext ssl,
      ServedPolicy policy,
      TokenAuthenticator authenticator,
      KeyService keys,
      AuditLog audit) {
    Metrics metrics = new Metrics();
    Exchanges exchanges =
        new Exchanges(
            policy,
            authenticator,
            runtimeAttestation(config),
            new CallerRateLimits(config.rateLimit()),
            audit,
            metrics,
            config.maxBodyBytes(),
            config.maxBatchBodyBytes());
    Router router = RouteTable.of(exchanges, keys, config, metrics);
    Server server = jetty(config, bindAddress, ssl, new JettyTransport(router));
    ScheduledExecutorService housekeeping =
        Executors.newSingleThreadScheduledExecutor(threads("protector-housekeeping", true));
    if (config.auditSync() == ServerConfig.AuditSync.NONE) {
      repeat(housekeeping, 1_000, "audit flush failed", audit::flush);
    }
    PolicyWatcher watcher =
        new PolicyWatcher(
            config.policy(), config.adminRoles(), exchanges::served, exchanges::install, audit);
    watcher.auditInitial();
    if (!config.policyReloadInterval().isZero()) {
      repeat(
          housekeeping,
          config.policyReloadInterval().toMillis(),
          "policy reload failed",
          watcher::run);
    }
    try {
      server.start();
    } catch (Exception e) {
      housekeeping.shutdownNow();
      stopQuietly(server);
      throw new IllegalArgumentException(
          "Cannot listen on "
              + bindAddress.getHostAddress()
              + ":"
              + config.port()
              + ": "
              + e.getMessage(),
          e);
    }
    ServerConnector connector = (ServerConnector) server.getConnectors()[0];
    String host = bindAddress.getHostAddress();
    if (host.contains(":")) {
      host = "[" + host + "]";
    }
    int port = connector.getLocalPort();
    URI url = URI.create((ssl == null ? "http" : "https") + "://" + host + ":" + port);
    if (ssl == null) {
      LOG.log(
          System.Logger.Level.WARNING,
          "serving plain HTTP on loopback (allow-insecure-http = true)");
    }
    if (config.releaseMaskKeysToPrincipals()) {
      LOG.log(
          System.Logger.Level.WARNING,
          "auth.release-mask-keys-to-principals = true: a principal's own token gets the keys of"
              + " the columns it may read only masked, so a masked user can read them in clear"
              + " outside Spark; keep this for single-user clusters only");
    }
    return new ProtectorServer(server, housekeeping, keys, audit, metrics, watcher, url);
  }

  /** Trusted runtimes: {@code auth.runtimes}, their JWTs verified like users' but by audience. */
  private static RuntimeAttestation runtimeAttestation(ServerConfig config) {
    JwtAuthenticator runtimeJwt = null;
    if (config.runtimeJwtAudience() != null) {
      ServerConfig.JwtSettings users = config.jwt();
      runtimeJwt =
          new JwtAuthenticator(
              new ServerConfig.JwtSettings(
                  users.issuer(),
                  java.util.Set.of(config.runtimeJwtAudience()),
                  users.hs256Secret(),
                  users.jwksFile(),
                  users.jwksUrl(),
                  users.principalClaim(),
                  users.groupsClaim(),
                  users.clockSkew()));
    }
    return new RuntimeAttestation(
        config.runtimeTokens(), runtimeJwt, config.releaseMaskKeysToPrincipals());
  }

  /**
   * Jetty on one connector: TLS (the configured protocols) over HTTP/1.1 with keep-alive. At most
   * {@code limits.worker-threads} requests run at once and {@code limits.queue-size} wait;
   * connections idle (or stalled mid-request) for {@code limits.idle-timeout} are closed, and at
   * most {@code limits.max-connections} are open at once. Reading headers and the TLS handshake
   * take no worker, so stalled clients cannot starve others.
   */
  private static Server jetty(
      ServerConfig config, InetAddress bindAddress, SSLContext ssl, JettyTransport transport) {
    // Jetty's selector and acceptor run on the same pool: give them threads of their own.
    int selectors = 1;
    int acceptors = 1;
    // The pool's queue is unbounded, as Jetty needs for its own tasks; the QoS handler below
    // bounds the requests instead.
    QueuedThreadPool pool =
        new QueuedThreadPool(
            config.workerThreads() + selectors + acceptors + 2,
            Math.min(4, config.workerThreads()),
            60_000,
            0,
            null,
            null,
            threads("protector-worker", false));
    pool.setName("protector-worker");
    Server server = new Server(pool);
    server.setStopAtShutdown(false); // close() is the one shutdown path
    server.setErrorHandler(new JettyTransport.VaultErrors());

    HttpConfiguration http = new HttpConfiguration();
    http.setSendServerVersion(false);
    http.setSendXPoweredBy(false);
    http.setRequestHeaderSize(config.maxHeaderBytes());
    // Routing works on the raw path and a key name must be one segment of KeyIds.RULE, so an
    // encoded slash or dot can never become a path step: the API itself answers such names with
    // its own audited 400 instead of Jetty's generic refusal.
    http.setUriCompliance(UriCompliance.UNSAFE);
    HttpConnectionFactory h1 = new HttpConnectionFactory(http);
    ServerConnector connector;
    if (ssl == null) {
      connector = new ServerConnector(server, acceptors, selectors, h1);
    } else {
      SslContextFactory.Server tls = new SslContextFactory.Server();
      tls.setSslContext(ssl);
      tls.setIncludeProtocols(config.tlsProtocols().toArray(new String[0]));
      tls.setNeedClientAuth(false);
      tls.setSniRequired(false);
      connector =
          new ServerConnector(
              server, acceptors, selectors, new SslConnectionFactory(tls, h1.getProtocol()), h1);
    }
    connector.setHost(bindAddress.getHostAddress());
    connector.setPort(config.port());
    connector.setIdleTimeout(config.idleTimeout().toMillis());
    connector.setAcceptQueueSize(256);
    server.addConnector(connector);
    server.addBean(new NetworkConnectionLimit(config.maxConnections(), connector));
    // At most worker-threads requests run at once; up to queue-size more wait (no thread held)
    // for up to the idle timeout, and the rest get 503 at once.
    QoSHandler qos = new QoSHandler(transport);
    qos.setMaxRequestCount(config.workerThreads());
    qos.setMaxSuspendedRequestCount(config.queueSize());
    qos.setMaxSuspend(config.idleTimeout());
    qos.setRejectStatusCode(503);
    server.setHandler(qos);
    return server;
  }

  private static void stopQuietly(Server server) {
    try {
      server.stop();
    } catch (Exception e) {
      LOG.log(System.Logger.Level.DEBUG, "stopping the HTTP server failed", e);
    }
  }

  /** The base URL actually bound, e.g. {@code https://127.0.0.1:40123}. */
  public URI url() {
    return url;
  }

  public int port() {
    return url.getPort();
  }

  Metrics metrics() {
    return metrics;
  }

  /**
   * Stops accepting, finishes in-flight requests (up to 1 s), then closes the audit log and key
   * store.
   */
  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    server.setStopTimeout(1000); // in-flight requests get up to 1 s
    stopQuietly(server);
    housekeeping.shutdownNow();
    audit.close();
    keys.close();
  }

  // ---- setup helpers -------------------------------------------------------------------------

  private static InetAddress bindAddress(ServerConfig config) {
    InetAddress address;
    try {
      address = InetAddress.getByName(config.host());
    } catch (UnknownHostException e) {
      throw new IllegalArgumentException("Cannot resolve bind.host '" + config.host() + "'", e);
    }
    checkArgument(
        !config.allowInsecureHttp() || address.isLoopbackAddress(),
        "Refusing to serve plain HTTP on %s: allow-insecure-http = "
            + "true is only permitted with a loopback bind.host (127.0.0.1, "
            + "::1)",
        config.host());
    return address;
  }

  private static SSLContext sslContext(ServerConfig config) {
    char[] password = null;
    try (Passphrase p = config.tlsPassword().readPassphrase()) {
      password = p.chars();
      KeyStore ks = KeyStore.getInstance(config.tlsKeystoreType());
      try (InputStream in = Files.newInputStream(config.tlsKeystore())) {
        ks.load(in, password);
      }
      boolean hasKey = false;
      for (String alias : Collections.list(ks.aliases())) {
        hasKey |= ks.isKeyEntry(alias);
      }
      checkArgument(hasKey, "TLS keystore %s holds no private key", config.tlsKeystore());
      KeyManagerFactory kmf =
          KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
      kmf.init(ks, password);
      SSLContext context = SSLContext.getInstance("TLS");
      context.init(kmf.getKeyManagers(), null, null);
      return context;
    } catch (IOException | GeneralSecurityException e) {
      throw new IllegalArgumentException(
          "Cannot load TLS keystore " + config.tlsKeystore() + ": " + e.getMessage(), e);
    } finally {
      if (password != null) {
        Arrays.fill(password, '\0');
      }
    }
  }

  /** Jetty's pool is not daemon: its threads keep the server process alive. */
  /** Runs {@code task} every {@code millis} on {@code pool}; a failure is logged, not fatal. */
  private static void repeat(
      ScheduledExecutorService pool, long millis, String failure, Runnable task) {
    pool.scheduleWithFixedDelay(
        () -> {
          try {
            task.run();
          } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.ERROR, failure, e);
          }
        },
        millis,
        millis,
        TimeUnit.MILLISECONDS);
  }

  private static ThreadFactory threads(String prefix, boolean daemon) {
    AtomicInteger n = new AtomicInteger();
    return runnable -> {
      Thread t = new Thread(runnable, prefix + "-" + n.incrementAndGet());
      t.setDaemon(daemon);
      return t;
    };
  }

  // ---- command line --------------------------------------------------------------------------

  public static void main(String[] args) {
    int rc = run(args, System.in, System.out, System.err);
    if (rc != 0) {
      System.exit(rc);
    }
  }

  /**
   * Runs the command line ({@link ServerCommandLine}); returns 0 when the server was started (it
   * keeps running) or the subcommand succeeded, 2 on a usage error, 1 when the server cannot start.
   */
  static int run(String[] args, InputStream stdin, PrintStream out, PrintStream err) {
    return ServerCommandLine.execute(args, stdin, out, err);
  }
}
