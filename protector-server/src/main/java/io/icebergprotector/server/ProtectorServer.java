package io.icebergprotector.server;

import com.sun.net.httpserver.HttpServer;
import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsParameters;
import com.sun.net.httpserver.HttpsServer;
import io.icebergprotector.kms.KeyService;
import io.icebergprotector.kms.KeyServices;
import io.icebergprotector.kms.Passphrase;
import io.icebergprotector.kms.SecretRef;
import io.icebergprotector.policy.Digests;
import io.icebergprotector.policy.Policy;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.util.Arrays;
import java.util.Collections;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;

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

  static {
    // JDK HTTP server knobs, read once when its first server is created. TCP_NODELAY: responses
    // go out as header + body writes, and Nagle + delayed ACK would add ~40 ms to every call.
    // Request/response time limits keep a slow client from holding a worker forever.
    System.getProperties().putIfAbsent("sun.net.httpserver.nodelay", "true");
    System.getProperties().putIfAbsent("sun.net.httpserver.maxReqTime", "30");
    System.getProperties().putIfAbsent("sun.net.httpserver.maxRspTime", "30");
  }

  private final HttpServer server;
  private final ThreadPoolExecutor workers;
  private final ScheduledExecutorService housekeeping;
  private final KeyService keys;
  private final AuditLog audit;
  private final Metrics metrics;
  private final URI url;
  private volatile boolean closed;

  private ProtectorServer(
      HttpServer server,
      ThreadPoolExecutor workers,
      ScheduledExecutorService housekeeping,
      KeyService keys,
      AuditLog audit,
      Metrics metrics,
      URI url) {
    this.server = server;
    this.workers = workers;
    this.housekeeping = housekeeping;
    this.keys = keys;
    this.audit = audit;
    this.metrics = metrics;
    this.url = url;
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
    Policy policy;
    String policyText;
    try {
      policyText = Files.readString(config.policy(), StandardCharsets.UTF_8);
      policy = Policy.load(config.policy());
    } catch (IOException e) {
      throw new IllegalArgumentException(
          "cannot read policy " + config.policy() + ": " + e.getMessage(), e);
    }
    JwtAuthenticator jwt = config.jwt() == null ? null : new JwtAuthenticator(config.jwt());
    TokenAuthenticator authenticator = new TokenAuthenticator(config.tokens(), jwt);
    KeyService keys = KeyServices.open(config.keyService(), config.createKeystore());
    AuditLog audit = null;
    try {
      audit = new AuditLog(config.auditFile(), config.auditSync());
      return start(config, bindAddress, ssl, policy, policyText, authenticator, keys, audit);
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
      Policy policy,
      String policyText,
      TokenAuthenticator authenticator,
      KeyService keys,
      AuditLog audit) {
    Metrics metrics = new Metrics();
    Authorizer authorizer = new Authorizer(policy, config.adminRoles());
    ApiHandler handler =
        new ApiHandler(keys, policy, policyText, authenticator, authorizer, audit, metrics, config);
    InetSocketAddress address = new InetSocketAddress(bindAddress, config.port());
    HttpServer server;
    try {
      if (ssl == null) {
        server = HttpServer.create(address, 256);
      } else {
        HttpsServer https = HttpsServer.create(address, 256);
        String[] protocols = config.tlsProtocols().toArray(new String[0]);
        https.setHttpsConfigurator(
            new HttpsConfigurator(ssl) {
              @Override
              public void configure(HttpsParameters params) {
                SSLParameters p = getSSLContext().getDefaultSSLParameters();
                p.setProtocols(protocols);
                p.setNeedClientAuth(false);
                params.setSSLParameters(p);
              }
            });
        server = https;
      }
    } catch (IOException e) {
      throw new IllegalArgumentException(
          "cannot listen on "
              + bindAddress.getHostAddress()
              + ":"
              + config.port()
              + ": "
              + e.getMessage(),
          e);
    }
    // Bounded pool and queue; when both are full the dispatcher runs the exchange itself, which
    // stops it accepting new connections for a moment: back-pressure instead of unbounded memory.
    ThreadPoolExecutor workers =
        new ThreadPoolExecutor(
            config.workerThreads(),
            config.workerThreads(),
            60,
            TimeUnit.SECONDS,
            new ArrayBlockingQueue<>(config.queueSize()),
            threads("protector-worker"),
            new ThreadPoolExecutor.CallerRunsPolicy());
    server.setExecutor(workers);
    server.createContext("/", handler);
    ScheduledExecutorService housekeeping =
        Executors.newSingleThreadScheduledExecutor(threads("protector-audit"));
    if (config.auditSync() == ServerConfig.AuditSync.NONE) {
      housekeeping.scheduleWithFixedDelay(
          () -> {
            try {
              audit.flush();
            } catch (RuntimeException e) {
              LOG.log(System.Logger.Level.ERROR, "audit flush failed", e);
            }
          },
          1,
          1,
          TimeUnit.SECONDS);
    }
    server.start();
    InetSocketAddress bound = server.getAddress();
    String host = bound.getAddress().getHostAddress();
    if (host.contains(":")) {
      host = "[" + host + "]";
    }
    URI url = URI.create((ssl == null ? "http" : "https") + "://" + host + ":" + bound.getPort());
    if (ssl == null) {
      LOG.log(
          System.Logger.Level.WARNING,
          "serving plain HTTP on loopback (allow-insecure-http = true)");
    }
    return new ProtectorServer(server, workers, housekeeping, keys, audit, metrics, url);
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
    server.stop(0);
    workers.shutdown();
    try {
      workers.awaitTermination(1, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    workers.shutdownNow();
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
      throw new IllegalArgumentException("cannot resolve bind.host '" + config.host() + "'", e);
    }
    if (config.allowInsecureHttp() && !address.isLoopbackAddress()) {
      throw new IllegalArgumentException(
          "refusing to serve plain HTTP on "
              + config.host()
              + ": allow-insecure-http = true is only permitted with a loopback bind.host (127.0.0.1, ::1)");
    }
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
      if (!hasKey) {
        throw new IllegalArgumentException(
            "TLS keystore " + config.tlsKeystore() + " holds no private key");
      }
      KeyManagerFactory kmf =
          KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
      kmf.init(ks, password);
      SSLContext context = SSLContext.getInstance("TLS");
      context.init(kmf.getKeyManagers(), null, null);
      return context;
    } catch (IOException | GeneralSecurityException e) {
      throw new IllegalArgumentException(
          "cannot load TLS keystore " + config.tlsKeystore() + ": " + e.getMessage(), e);
    } finally {
      if (password != null) {
        Arrays.fill(password, '\0');
      }
    }
  }

  private static ThreadFactory threads(String prefix) {
    AtomicInteger n = new AtomicInteger();
    return runnable -> {
      Thread t = new Thread(runnable, prefix + "-" + n.incrementAndGet());
      t.setDaemon(true); // the HTTP dispatcher thread keeps the process alive
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

  /** Returns 0 when the server was started (it keeps running) or the subcommand succeeded. */
  static int run(String[] args, InputStream stdin, PrintStream out, PrintStream err) {
    String[] a =
        args.length > 0 && args[0].equals("server")
            ? Arrays.copyOfRange(args, 1, args.length)
            : args;
    if (a.length == 0 || a[0].equals("--help") || a[0].equals("-h")) {
      out.println(usage());
      return a.length == 0 ? 2 : 0;
    }
    switch (a[0]) {
      case "new-token":
        {
          String token = TokenAuthenticator.newToken();
          out.println("token:  " + token);
          out.println("sha256: " + Digests.sha256Hex(token));
          out.println("# give the token to its owner; put only the sha256 in auth.tokens");
          return 0;
        }
      case "hash-token":
        {
          try {
            // The rule clients read token files by: the whole input, trimmed, on one line.
            String token =
                SecretRef.token(
                    new String(stdin.readAllBytes(), StandardCharsets.UTF_8), "standard input");
            out.println(Digests.sha256Hex(token));
            return 0;
          } catch (IllegalArgumentException e) {
            err.println(
                "protector-server: hash-token reads one token from standard input: "
                    + e.getMessage());
            return 2;
          } catch (IOException e) {
            err.println("protector-server: cannot read standard input: " + e.getMessage());
            return 2;
          }
        }
      default:
        break;
    }
    Path config = null;
    for (int i = 0; i < a.length; i++) {
      if (a[i].equals("--config") && i + 1 < a.length) {
        config = Path.of(a[++i]);
      } else if (a[i].startsWith("--config=")) {
        config = Path.of(a[i].substring("--config=".length()));
      } else {
        err.println("protector-server: unknown argument '" + a[i] + "'\n" + usage());
        return 2;
      }
    }
    if (config == null) {
      err.println("protector-server: --config <file> is required\n" + usage());
      return 2;
    }
    ProtectorServer server;
    try {
      server = start(config);
    } catch (RuntimeException e) {
      err.println("protector-server: error: " + e.getMessage());
      return 1;
    }
    Runtime.getRuntime().addShutdownHook(new Thread(server::close, "protector-shutdown"));
    out.println(LISTENING + server.url());
    out.flush();
    return 0;
  }

  private static String usage() {
    return String.join(
        "\n",
        "usage: protector-server [server] --config <server.conf>   run the key server",
        "       protector-server new-token                       print a new token and its sha256",
        "       protector-server hash-token < token-file          print the sha256 of a token");
  }
}
