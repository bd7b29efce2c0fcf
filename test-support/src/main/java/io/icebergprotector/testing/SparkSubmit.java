/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.testing;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * A shaded runtime jar installed the way Spark libraries install: deployed with its pom to a
 * Maven-layout file repository, resolved by {@code SparkSubmit --packages} (offline, from that
 * repository only) in a child JVM that has only Spark and Iceberg on its class path, running a
 * small application jar. The packaging tests of the CLI module and of every runtime target share
 * it.
 */
public final class SparkSubmit {
  public static final String GROUP = "io.icebergprotector";

  /**
   * Spark on Java 17: the parent pom's {@code spark.java17.opens} (surefire and failsafe pass no
   * properties to a child JVM).
   */
  public static final List<String> OPENS =
      List.of(
          "--add-opens=java.base/java.lang=ALL-UNNAMED",
          "--add-opens=java.base/java.lang.invoke=ALL-UNNAMED",
          "--add-opens=java.base/java.nio=ALL-UNNAMED",
          "--add-opens=java.base/java.util=ALL-UNNAMED",
          "--add-opens=java.base/sun.nio.ch=ALL-UNNAMED",
          "--add-opens=java.base/sun.util.calendar=ALL-UNNAMED",
          "--add-opens=java.base/java.util.concurrent=ALL-UNNAMED",
          "--add-opens=java.base/java.net=ALL-UNNAMED",
          "--add-opens=java.base/java.io=ALL-UNNAMED",
          "--add-opens=java.base/sun.nio.cs=ALL-UNNAMED",
          "--add-opens=java.base/sun.security.action=ALL-UNNAMED");

  /**
   * The JVM options of a Spark child: {@code -Dspark.java17.opens} when given, else {@link #OPENS}.
   */
  public static List<String> opens() {
    String opens = System.getProperty("spark.java17.opens", "").strip();
    return opens.isEmpty() ? OPENS : List.of(opens.split("\\s+"));
  }

  private static final Duration TIMEOUT = Duration.ofMinutes(5);

  private final String artifact;
  private final String version;
  private final Path jar;
  private final Path pom;

  private SparkSubmit(String artifact, String version, Path dir) {
    this.artifact = artifact;
    this.version = version;
    this.jar = dir.resolve(artifact + "-" + version + ".jar");
    this.pom = dir.resolve(artifact + "-" + version + ".pom");
  }

  /**
   * The runtime jar {@code artifact} and its pom as {@code package} copied them to {@code dir};
   * fails when either is missing.
   */
  public static SparkSubmit of(String artifact, String version, Path dir) {
    SparkSubmit submit = new SparkSubmit(artifact, version, dir);
    for (Path file : List.of(submit.jar, submit.pom)) {
      if (!Files.isRegularFile(file)) {
        throw new IllegalStateException(
            "Cannot find "
                + file
                + ": the runtime jar and pom are copied at package; run 'mvn verify'");
      }
    }
    return submit;
  }

  public String artifact() {
    return artifact;
  }

  public String version() {
    return version;
  }

  public Path jar() {
    return jar;
  }

  public Path pom() {
    return pom;
  }

  /**
   * The policy the smoke applications run under: {@code db.people} with {@code ssn} clear to admin
   * (alice), partially masked for analyst (bob), written by {@code writers} (etl is etl).
   */
  public static String smokePolicy(String... writers) {
    return TestPolicy.builder()
        .role("admin", "alice")
        .role("analyst", "bob")
        .role("etl", "etl")
        .keys("pii", "footer")
        .table(
            "db.people",
            t ->
                t.footerKey("footer")
                    .writers(writers)
                    .column(
                        "ssn",
                        c -> c.key("pii").clear("admin").masked("analyst", "partial(keep_last=4)")))
        .render();
  }

  /** The coordinates that {@code --packages} takes. */
  public String coordinates() {
    return GROUP + ":" + artifact + ":" + version;
  }

  /** The file name Spark gives the resolved jar on the driver's class path. */
  public String resolvedJarName() {
    return GROUP + "_" + artifact + "-" + version + ".jar";
  }

  /** Ivy's report line for our artifact, found in the repository that --repositories names. */
  public String resolvedLine() {
    return "\tfound " + GROUP + "#" + artifact + ";" + version + " in repo-1";
  }

  /** Ivy's "found ..." lines of a child's stderr: every artifact it resolved. */
  public static List<String> resolvedLines(String stderr) {
    return stderr.lines().filter(l -> l.strip().startsWith("found ")).collect(Collectors.toList());
  }

  /**
   * The command of a SparkSubmit child JVM on {@code classpath} that installs the runtime jar from
   * a fresh file repository under {@code tmp} and runs {@code main} (packed alone into an app jar)
   * with {@code conf} on {@code local[2]}.
   */
  public List<String> command(Path tmp, String classpath, Map<String, String> conf, Class<?> main) {
    Path repo = fileRepository(tmp.resolve("repo"));
    Path ivySettings = writeNothingResolver(tmp.resolve("ivysettings.xml"));
    Path app = appJar(tmp.resolve(main.getSimpleName() + ".jar"), main);
    List<String> cmd = new ArrayList<>();
    cmd.add(ManagedProcess.javaExecutable());
    cmd.add("-Xmx1g");
    cmd.addAll(opens());
    cmd.addAll(List.of("-cp", classpath, "org.apache.spark.deploy.SparkSubmit"));
    cmd.addAll(
        List.of(
            "--master",
            "local[2]",
            "--packages",
            coordinates(),
            "--repositories",
            repo.toUri().toString()));
    conf(cmd, "spark.jars.ivy", tmp.resolve("ivy").toString());
    conf(cmd, "spark.jars.ivySettings", ivySettings.toString());
    conf(cmd, "spark.ui.enabled", "false");
    conf(cmd, "spark.driver.host", "127.0.0.1");
    conf(cmd, "spark.driver.bindAddress", "127.0.0.1");
    conf(cmd, "spark.sql.extensions", LocalCatalog.EXTENSIONS);
    conf.forEach((k, v) -> conf(cmd, k, v));
    cmd.addAll(List.of("--class", main.getName(), app.toString()));
    return cmd;
  }

  private static void conf(List<String> cmd, String key, String value) {
    cmd.add("--conf");
    cmd.add(key + "=" + value);
  }

  /** A Maven-layout file repository at {@code repo} (emptied first) holding the jar and pom. */
  public Path fileRepository(Path repo) {
    try {
      deleteTree(repo);
      Path versionDir = repo.resolve(GROUP.replace('.', '/')).resolve(artifact).resolve(version);
      Files.createDirectories(versionDir);
      Files.copy(jar, versionDir.resolve(jar.getFileName()));
      Files.copy(pom, versionDir.resolve(pom.getFileName()));
      return repo;
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot write the file repository " + repo, e);
    }
  }

  /**
   * Ivy settings whose default resolver finds nothing: only --repositories can resolve, and nothing
   * is fetched from the network or from ~/.m2.
   */
  static Path writeNothingResolver(Path file) {
    try {
      return Files.writeString(
          file,
          "<ivysettings>\n"
              + "  <settings defaultResolver=\"nothing\"/>\n"
              + "  <resolvers><chain name=\"nothing\"/></resolvers>\n"
              + "</ivysettings>\n");
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot write " + file, e);
    }
  }

  /** A jar holding just {@code main} (a test class that uses only Spark's API). */
  public static Path appJar(Path target, Class<?> main) {
    String name = main.getName().replace('.', '/') + ".class";
    try (InputStream in = main.getClassLoader().getResourceAsStream(name);
        JarOutputStream out = new JarOutputStream(Files.newOutputStream(target))) {
      if (in == null) {
        throw new IllegalArgumentException("Cannot pack " + name + ": not on the class path");
      }
      out.putNextEntry(new JarEntry(name));
      in.transferTo(out);
      out.closeEntry();
      return target;
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot write " + target, e);
    }
  }

  /**
   * This test's class path without any protector code (ours must come from --packages) and without
   * the entries {@code alsoDrop} names.
   */
  public static List<String> classpathWithoutProtector(Predicate<String> alsoDrop) {
    List<String> kept = new ArrayList<>();
    for (String entry : ManagedProcess.testClasspath().split(File.pathSeparator)) {
      String e = entry.replace('\\', '/');
      if (e.isBlank()
          || e.contains("icebergprotector")
          // reactor builds put sibling modules' jars on the class path by file path
          || fileName(e).startsWith("iceberg-protector-")
          || e.endsWith("/classes")
          || e.endsWith("/test-classes")
          || alsoDrop.test(e)) {
        continue;
      }
      kept.add(entry);
    }
    return kept;
  }

  /** The file name of a class path entry. */
  public static String fileName(String entry) {
    String e = entry.replace('\\', '/');
    return e.substring(e.lastIndexOf('/') + 1);
  }

  /**
   * Runs {@code cmd} in {@code workDir} with its output in {@code logDir}, and waits at most 5
   * minutes for it to finish; fails with its output when it does not.
   */
  public static Child run(List<String> cmd, Path workDir, Path logDir) {
    try {
      Files.createDirectories(workDir);
      Files.createDirectories(logDir);
      Path stdout = logDir.resolve("stdout.txt");
      Path stderr = logDir.resolve("stderr.txt");
      Process process =
          new ProcessBuilder(cmd)
              .directory(workDir.toFile())
              .redirectOutput(stdout.toFile())
              .redirectError(stderr.toFile())
              .start();
      boolean finished = process.waitFor(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
      if (!finished) {
        process.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
      }
      Child child =
          new Child(
              finished ? process.exitValue() : -1,
              Files.readString(stdout),
              Files.readString(stderr),
              stderr);
      if (!finished) {
        throw new IllegalStateException(
            String.format(
                "Cannot finish %s within %d minutes%n%s",
                cmd.get(cmd.size() - 1), TIMEOUT.toMinutes(), child.describe()));
      }
      return child;
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot run " + String.join(" ", cmd), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("Interrupted while running " + cmd.get(cmd.size() - 1), e);
    }
  }

  /** The last {@code lines} lines of {@code text}. */
  public static String tail(String text, int lines) {
    List<String> all = text.lines().collect(Collectors.toList());
    return String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size()));
  }

  private static void deleteTree(Path dir) throws IOException {
    if (!Files.exists(dir)) {
      return;
    }
    try (Stream<Path> s = Files.walk(dir)) {
      for (Path p : s.sorted(Comparator.reverseOrder()).collect(Collectors.toList())) {
        Files.delete(p);
      }
    }
  }

  /** A finished child JVM: its exit code and output. */
  public static final class Child {
    public final int exitCode;
    public final String stdout;
    public final String stderr;
    private final Path stderrFile;

    private Child(int exitCode, String stdout, String stderr, Path stderrFile) {
      this.exitCode = exitCode;
      this.stdout = stdout;
      this.stderr = stderr;
      this.stderrFile = stderrFile;
    }

    /**
     * For assertion messages: its exit code, stdout, the error lines of stderr (without stack
     * frames), and the tail of stderr.
     */
    public String describe() {
      return "--- exit code "
          + exitCode
          + "\n--- stdout\n"
          + stdout
          + "\n--- stderr: errors\n"
          + stderr
              .lines()
              .filter(l -> !l.startsWith("\tat ") && l.matches(".*(Exception|Error)\\b.*"))
              .limit(20)
              .collect(Collectors.joining("\n"))
          + "\n--- stderr (tail)\n"
          + tail(stderr, 60)
          + "\n(all of it: "
          + stderrFile
          + ")";
    }
  }
}
