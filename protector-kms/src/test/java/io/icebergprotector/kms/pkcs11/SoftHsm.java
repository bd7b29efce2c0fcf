/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.kms.pkcs11;

import io.icebergprotector.testing.ManagedProcess;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;

/**
 * A private SoftHSM2 installation for tests: its own token directory and SOFTHSM2_CONF in a temp
 * dir, never the system's /etc/softhsm or /var/lib/softhsm.
 *
 * <p>SoftHSM reads SOFTHSM2_CONF from the process environment when the library is initialized, and
 * a PKCS#11 library is initialized once per process; a running JVM cannot change its own
 * environment. So the PKCS#11 code under test runs in child JVMs ({@link #run}, {@link #runJava})
 * whose environment names this directory's config.
 *
 * <p>Shared with the key server's, the command line's and the Spark extension's tests through this
 * module's test jar.
 */
public final class SoftHsm {
  public static final String PIN = "1234";
  static final String SO_PIN = "5678";

  /** Why PKCS#11 tests skip when SoftHSM2 is missing. */
  public static final String MISSING =
      "softhsm2 is not installed (no libsofthsm2.so or softhsm2-util; Debian:"
          + " apt-get install softhsm2): skipping the PKCS#11 tests";

  private static final List<String> LIBRARIES =
      List.of(
          "/usr/lib/softhsm/libsofthsm2.so",
          "/usr/lib/x86_64-linux-gnu/softhsm/libsofthsm2.so",
          "/usr/lib/aarch64-linux-gnu/softhsm/libsofthsm2.so",
          "/usr/local/lib/softhsm/libsofthsm2.so");

  final Path library;
  final Path util;
  final Path dir;
  final Path conf;

  private SoftHsm(Path library, Path util, Path dir) {
    this.library = library;
    this.util = util;
    this.dir = dir;
    this.conf = dir.resolve("softhsm2.conf");
  }

  /** The library of this installation, e.g. /usr/lib/softhsm/libsofthsm2.so. */
  public Path library() {
    return library;
  }

  /** Whether the library and softhsm2-util are installed. */
  public static boolean installed() {
    return findLibrary().isPresent() && findUtil().isPresent();
  }

  static Optional<Path> findLibrary() {
    return LIBRARIES.stream().map(Path::of).filter(Files::isRegularFile).findFirst();
  }

  static Optional<Path> findUtil() {
    String path = System.getenv().getOrDefault("PATH", "/usr/bin:/bin");
    List<String> dirs = new ArrayList<>(List.of(path.split(File.pathSeparator)));
    dirs.add("/usr/bin");
    dirs.add("/usr/local/bin");
    return dirs.stream()
        .map(d -> Path.of(d, "softhsm2-util"))
        .filter(Files::isExecutable)
        .findFirst();
  }

  /**
   * A private installation under {@code dir} with one initialized token labelled {@code label};
   * skips the calling test (with the reason) when SoftHSM2 is not installed.
   */
  public static SoftHsm withToken(Path dir, String label) throws IOException, InterruptedException {
    Assumptions.assumeTrue(installed(), MISSING);
    SoftHsm hsm = create(Files.createDirectories(dir)).orElseThrow();
    hsm.initToken(label);
    return hsm;
  }

  /** Empty when softhsm2 is not installed. */
  public static Optional<SoftHsm> create(Path dir) throws IOException {
    Optional<Path> library = findLibrary();
    Optional<Path> util = findUtil();
    if (library.isEmpty() || util.isEmpty()) {
      return Optional.empty();
    }
    Path tokens = Files.createDirectories(dir.resolve("tokens"));
    SoftHsm hsm = new SoftHsm(library.get(), util.get(), dir);
    Files.writeString(
        hsm.conf,
        "directories.tokendir = "
            + tokens
            + "\n"
            + "objectstore.backend = file\n"
            + "log.level = ERROR\n"
            + "slots.removable = false\n",
        StandardCharsets.UTF_8);
    return Optional.of(hsm);
  }

  /** softhsm2-util --init-token --free --label label --pin 1234 --so-pin 5678 */
  public void initToken(String label) throws IOException, InterruptedException {
    ProcessBuilder pb =
        new ProcessBuilder(
            util.toString(),
            "--init-token",
            "--free",
            "--label",
            label,
            "--pin",
            PIN,
            "--so-pin",
            SO_PIN);
    pb.environment().put("SOFTHSM2_CONF", conf.toString());
    pb.redirectErrorStream(true);
    Process p = pb.start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
      throw new IOException("softhsm2-util --init-token failed: " + out);
    }
  }

  /** Result of a child JVM: exit code and everything it printed. */
  public record Result(int exitCode, String output) {}

  /**
   * Runs scenario {@code name} of {@link Pkcs11Scenarios} in a child JVM with SOFTHSM2_CONF set.
   */
  Result run(String name, Map<String, String> extraEnv) throws IOException, InterruptedException {
    Map<String, String> env = new LinkedHashMap<>();
    env.put(Pkcs11Scenarios.ENV_LIBRARY, library.toString());
    env.put(Pkcs11Scenarios.ENV_PIN, PIN);
    env.put(Pkcs11Scenarios.ENV_DIR, dir.toString());
    env.putAll(extraEnv);
    return runJava(Pkcs11Scenarios.class.getName(), List.of("-Xmx256m"), List.of(name), env, 120);
  }

  /**
   * Runs {@code mainClass} of this JVM's classpath in a child JVM whose environment names this
   * installation (SOFTHSM2_CONF) plus {@code env}; its output goes to a log in this directory.
   */
  public Result runJava(
      String mainClass,
      List<String> jvmOptions,
      List<String> args,
      Map<String, String> env,
      int timeoutSeconds)
      throws IOException {
    String name = mainClass.substring(mainClass.lastIndexOf('.') + 1);
    List<String> command = new ArrayList<>();
    command.add(ManagedProcess.javaExecutable());
    command.addAll(jvmOptions);
    command.add("-cp");
    command.add(System.getProperty("java.class.path"));
    command.add(mainClass);
    command.addAll(args);
    Path log = Files.createTempFile(dir, name + "-", ".log");
    ManagedProcess process =
        ManagedProcess.builder(name)
            .command(command)
            .env(environment())
            .env(env)
            .workDir(dir)
            .logFile(log)
            .build()
            .start();
    try {
      return new Result(
          process.awaitExit(Duration.ofSeconds(timeoutSeconds)), Files.readString(log));
    } catch (IllegalStateException timedOut) {
      // killed: the caller reports the output
      return new Result(-1, timedOut.getMessage() + "\n" + Files.readString(log));
    }
  }

  /** What a process needs in its environment to see this installation's tokens. */
  public Map<String, String> environment() {
    return Map.of("SOFTHSM2_CONF", conf.toString());
  }
}
