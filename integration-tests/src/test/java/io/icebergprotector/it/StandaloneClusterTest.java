/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.icebergprotector.it.harness.BucketScan;
import io.icebergprotector.it.harness.BucketScan.Canary;
import io.icebergprotector.it.harness.BucketScan.Kind;
import io.icebergprotector.it.harness.ItPaths;
import io.icebergprotector.it.harness.KeyServerStackTestBase;
import io.icebergprotector.it.launch.ClusterJob;
import io.icebergprotector.testing.FreePorts;
import io.icebergprotector.testing.ManagedProcess;
import io.icebergprotector.testing.TestPolicy;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.LongStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * The protector on a real standalone Spark cluster (issue 16 item 2): a master and two workers as
 * separate processes on loopback, each executor in a JVM of its own that a worker starts, with the
 * REST catalog, S3 (s3proxy) and the key server as processes too. Each principal is its own Spark
 * application ({@link ClusterJob}); its token reaches its driver through the environment and its
 * executors only through {@code spark.executorEnv}, never through a shared file. The writer's job
 * loses an executor (SIGKILL) in the middle of its insert.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class StandaloneClusterTest extends KeyServerStackTestBase {
  static final String POLICY =
      TestPolicy.resource(StandaloneClusterTest.class, "policies/StandaloneClusterTest.conf");
  private static final String TOKEN_VARIABLE = "PROTECTOR_CLUSTER_TOKEN";
  private static final int WORKERS = 2;
  private static final Duration JOB_TIMEOUT = Duration.ofMinutes(6);
  private static final Pattern ALIVE_WORKERS = Pattern.compile("\"aliveworkers\"\\s*:\\s*(\\d+)");

  // As in this module's surefire configuration: s3proxy rejects the SDK's default upload checksums.
  private static final List<String> S3PROXY_SDK_OPTIONS =
      List.of(
          "-Daws.requestChecksumCalculation=when_required",
          "-Daws.responseChecksumValidation=when_required",
          "-Daws.disableEc2Metadata=true");

  private final List<ManagedProcess> cluster = new ArrayList<>();
  private String masterUrl;
  private final Map<String, Map<String, Long>> unwrapsByJob = new LinkedHashMap<>();
  private List<Map<String, Object>> writerEvents = List.of();

  StandaloneClusterTest() {
    super(POLICY, List.of("etl", "alice", "bob", "mallory"), List.of("pii", "fin", "footer"));
  }

  @BeforeAll
  void startCluster() throws IOException {
    Path sparkHome = work.resolve("spark-home");
    // Workers build executor command lines from SPARK_HOME/jars (empty: the classes come from
    // spark.executor.extraClassPath, as a cluster library would put them on every node).
    Files.createDirectories(sparkHome.resolve("jars"));
    int port = FreePorts.next();
    int masterUi = FreePorts.next();
    this.masterUrl = "spark://127.0.0.1:" + port;
    ManagedProcess master =
        sparkDaemon(
            "master",
            sparkHome,
            List.of(
                "org.apache.spark.deploy.master.Master",
                "--host",
                "127.0.0.1",
                "--port",
                Integer.toString(port),
                "--webui-port",
                Integer.toString(masterUi)));
    for (int i = 1; i <= WORKERS; i++) {
      sparkDaemon(
          "worker-" + i,
          sparkHome,
          List.of(
              "org.apache.spark.deploy.worker.Worker",
              "--host",
              "127.0.0.1",
              "--cores",
              "1",
              "--memory",
              "1200m",
              "--webui-port",
              Integer.toString(FreePorts.next()),
              "--work-dir",
              work.resolve("worker-" + i).toString(),
              masterUrl));
    }
    HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    master.awaitHealthy(
        Duration.ofMinutes(2),
        () -> {
          HttpResponse<String> state =
              http.send(
                  HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + masterUi + "/json/"))
                      .timeout(Duration.ofSeconds(5))
                      .build(),
                  HttpResponse.BodyHandlers.ofString());
          Matcher alive = ALIVE_WORKERS.matcher(state.body());
          return alive.find() && Integer.parseInt(alive.group(1)) == WORKERS;
        });
  }

  @AfterAll
  void stopCluster() {
    cluster.forEach(ManagedProcess::close);
  }

  @Test
  @Order(1)
  void writerLosesAnExecutorMidWriteAndCommitsEveryRowOnce() {
    int before = keyServer.auditEvents().size();
    Map<String, String> report = runJob("etl", "write");
    assertThat(report.get("killed"))
        .as("an executor of the insert was killed")
        .startsWith("executor-");
    assertThat(Integer.parseInt(report.get("failedTasks")))
        .as("tasks lost with the executor, then retried")
        .isPositive();
    assertThat(report)
        .containsEntry("rows", Integer.toString(ClusterJob.ROWS))
        .containsEntry("distinct", Integer.toString(ClusterJob.ROWS))
        .containsEntry("min", "1")
        .containsEntry("max", Integer.toString(ClusterJob.ROWS));
    assertThat(Integer.parseInt(report.get("executors")))
        .as("the lost executor was replaced")
        .isGreaterThan(WORKERS);
    List<Map<String, Object>> events = auditSince(before);
    this.writerEvents = events;
    assertThat(events).allMatch(e -> "etl".equals(e.get("principal")));
    assertThat(events).anyMatch(e -> is(e, "wrap", "pii", "allow"));
  }

  @Test
  @Order(2)
  void eachPrincipalReadsItsOwnViewThroughTheExecutors() {
    Map<String, Long> wraps = countByKey(writerEvents, "wrap");
    Map<String, Map<String, String>> reports = new LinkedHashMap<>();
    Map<String, String> alice = read("alice");
    reports.put("alice", alice);
    assertThat(alice)
        .containsEntry("rows", Integer.toString(ClusterJob.ROWS))
        .containsEntry("ssn", "clear")
        .containsEntry("salary", "clear");
    Map<String, String> bob = read("bob");
    reports.put("bob", bob);
    assertThat(bob).containsEntry("ssn", "masked").containsEntry("salary", "null");
    Map<String, String> mallory = read("mallory");
    reports.put("mallory", mallory);
    assertThat(mallory).containsEntry("ssn", "null").containsEntry("salary", "null");

    // Double wrapping: each writer JVM wrapped its own key-encryption key per master key, and each
    // reader executor unwraps each of those it meets once (then caches it).
    for (String principal : List.of("alice", "bob", "mallory")) {
      Map<String, String> job = reports.get(principal);
      int executors = Integer.parseInt(job.get("executors"));
      assertThat(executors).as("executors of %s", principal).isEqualTo(WORKERS);
      Map<String, Long> unwraps = unwrapsByJob.get(principal);
      unwraps.forEach(
          (key, count) ->
              assertThat(count)
                  .as("%s's unwraps of %s (audit log), for %s KEKs written", principal, key, wraps)
                  .isBetween(1L, wraps.getOrDefault(key, 0L) * executors));
      assertThat(Long.parseLong(job.get("keyCalls")))
          .as("key service calls metric of %s", principal)
          .isEqualTo(unwraps.values().stream().mapToLong(Long::longValue).sum());
    }
    assertThat(keyServer.auditEvents())
        .as("no column key released to a principal it is denied to")
        .noneMatch(
            e ->
                "allow".equals(e.get("decision"))
                    && (("mallory".equals(e.get("principal"))
                            && ("pii".equals(e.get("key")) || "fin".equals(e.get("key"))))
                        || ("bob".equals(e.get("principal")) && "fin".equals(e.get("key")))));
  }

  @Test
  @Order(3)
  void nothingAtRestHoldsAProtectedValue() {
    BucketScan files = BucketScan.of(store);
    List<Canary> canaries = new ArrayList<>();
    LongStream.concat(LongStream.rangeClosed(1, 100), LongStream.of(ClusterJob.ROWS))
        .forEach(
            id -> {
              canaries.add(Canary.text(ClusterJob.ssn(id)));
              canaries.add(Canary.int64(ClusterJob.salary(id)));
            });
    assertThat(files.keys("", Kind.DATA)).as("data files in the bucket").isNotEmpty();
    assertThat(files.find(canaries))
        .as("protected values in any object, committed or left by the killed executor")
        .isEmpty();
    assertThat(files.find(List.of(Canary.text(ClusterJob.name(1)))))
        .as("positive control: the unprotected name is plaintext in a data file")
        .anyMatch(h -> h.kind() == Kind.DATA);
  }

  private Map<String, String> read(String principal) {
    int before = keyServer.auditEvents().size();
    Map<String, String> report = runJob(principal, "read");
    List<Map<String, Object>> events = auditSince(before);
    assertThat(events).allMatch(e -> principal.equals(e.get("principal")));
    unwrapsByJob.put(principal, countByKey(events, "unwrap"));
    System.out.printf(
        "[it] cluster read as %s: %s; unwraps in the audit log %s%n",
        principal, report, unwrapsByJob.get(principal));
    return report;
  }

  private ManagedProcess sparkDaemon(String name, Path sparkHome, List<String> args) {
    List<String> cmd = new ArrayList<>(javaWithClasspath("-Xmx384m"));
    cmd.addAll(args);
    String processName = getClass().getSimpleName() + "." + name;
    ManagedProcess process =
        ManagedProcess.builder(processName)
            .command(cmd)
            .env("SPARK_HOME", sparkHome.toString())
            .env("SPARK_SCALA_VERSION", scala.util.Properties.versionNumberString().substring(0, 4))
            .env("SPARK_LOCAL_IP", "127.0.0.1")
            .workDir(work.resolve(name))
            .logFile(ItPaths.logsDir().resolve(processName + ".log"))
            .build()
            .start();
    cluster.add(process);
    return process;
  }

  private static List<String> javaWithClasspath(String heap) {
    List<String> cmd = new ArrayList<>();
    cmd.add(ManagedProcess.javaExecutable());
    cmd.add(heap);
    cmd.addAll(S3PROXY_SDK_OPTIONS);
    ManagementFactory.getRuntimeMXBean().getInputArguments().stream()
        .filter(a -> a.startsWith("--add-opens"))
        .forEach(cmd::add);
    cmd.add("-cp");
    cmd.add(classpath());
    return cmd;
  }

  private static String classpath() {
    return System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
  }

  /** Runs one principal's application on the cluster; returns its report as key=value pairs. */
  private Map<String, String> runJob(String principal, String mode) {
    Map<String, String> conf = new LinkedHashMap<>();
    conf.put("spark.master", masterUrl);
    conf.put("spark.driver.host", "127.0.0.1");
    conf.put("spark.driver.bindAddress", "127.0.0.1");
    conf.put("spark.ui.enabled", "false");
    conf.put("spark.cores.max", Integer.toString(WORKERS));
    conf.put("spark.executor.cores", "1");
    conf.put("spark.executor.memory", "1g");
    conf.put("spark.executor.extraClassPath", classpath());
    conf.put("spark.executor.extraJavaOptions", String.join(" ", S3PROXY_SDK_OPTIONS));
    conf.put("spark.sql.adaptive.enabled", "false");
    conf.put("spark.sql.shuffle.partitions", "4");
    conf.put(
        "spark.sql.extensions",
        "org.apache.iceberg.spark.extensions.IcebergSparkSessionExtensions,"
            + "io.icebergprotector.spark.ProtectorSparkSessionExtensions");
    conf.put("spark.sql.catalog.prot", "io.icebergprotector.spark.ProtectingSparkCatalog");
    Map<String, String> options = remoteCatalogOptions(keyServer, keyServer.tokenFile(principal));
    options.remove("protector.token-file");
    options.put("protector.token-env", TOKEN_VARIABLE);
    options.forEach((k, v) -> conf.put("spark.sql.catalog.prot." + k, v));
    // The token reaches the executors only through the cluster manager, as an environment variable
    // of the executor processes (Spark redacts such values in its UI and logs).
    conf.put("spark.executorEnv." + TOKEN_VARIABLE, keyServer.token(principal));
    Path jobDir = work.resolve("job-" + principal);
    Path confFile = jobDir.resolve("spark.properties");
    try {
      Files.createDirectories(jobDir);
      ClusterJob.writeProperties(confFile, conf);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    List<String> cmd = new ArrayList<>(javaWithClasspath("-Xmx768m"));
    cmd.add(ClusterJob.class.getName());
    cmd.add(mode);
    cmd.add(confFile.toString());
    String name = getClass().getSimpleName() + "." + principal + "-" + mode;
    ManagedProcess job =
        ManagedProcess.builder(name)
            .command(cmd)
            .env(TOKEN_VARIABLE, keyServer.token(principal))
            .workDir(jobDir)
            .logFile(ItPaths.logsDir().resolve(name + ".log"))
            .build()
            .start();
    int exit = job.awaitExit(JOB_TIMEOUT);
    assertThat(exit)
        .as("%s exit code; log %s ends with:%n%s", name, job.logFile(), job.tail(60))
        .isZero();
    String log;
    try {
      log = Files.readString(job.logFile(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    for (String token : keyServer.tokens()) {
      assertThat(log.contains(token)).as("a token in the log of %s", name).isFalse();
    }
    List<String> reports =
        log.lines()
            .filter(l -> l.startsWith("CLUSTER-JOB "))
            .map(l -> l.substring("CLUSTER-JOB ".length()))
            .collect(Collectors.toList());
    assertThat(reports).as("report of %s in %s", name, job.logFile()).hasSize(1);
    Map<String, String> report = new LinkedHashMap<>();
    for (String pair : reports.get(0).split(" ")) {
      int eq = pair.indexOf('=');
      report.put(pair.substring(0, eq), pair.substring(eq + 1));
    }
    return report;
  }

  /** Allowed {@code op} events per master key. */
  private static Map<String, Long> countByKey(List<Map<String, Object>> events, String op) {
    return events.stream()
        .filter(e -> op.equals(e.get("op")) && "allow".equals(e.get("decision")))
        .collect(Collectors.groupingBy(e -> (String) e.get("key"), Collectors.counting()));
  }

  private List<Map<String, Object>> auditSince(int from) {
    List<Map<String, Object>> events = keyServer.auditEvents();
    return events.subList(from, events.size());
  }

  private static boolean is(Map<String, Object> event, String op, String key, String decision) {
    return op.equals(event.get("op"))
        && key.equals(event.get("key"))
        && decision.equals(event.get("decision"));
  }
}
