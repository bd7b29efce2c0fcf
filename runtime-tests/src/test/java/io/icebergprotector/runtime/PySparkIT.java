/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import io.icebergprotector.testing.ManagedProcess;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.api.io.TempDir;

/**
 * PySpark with this target's runtime jar, as a user installs it: {@code pip install pyspark==<the
 * target's Spark>} into a virtual environment, the jar built by this run in a file repository that
 * {@code spark.jars.packages} resolves from ({@code --repositories} through {@code
 * PYSPARK_SUBMIT_ARGS}), then pytest runs {@code python/pyspark_tests}: the snippets of
 * docs/python/pyspark.md as printed, each principal's view, MERGE, token functions, errors as
 * Python shows them. Only targets whose Spark and Scala a {@code pyspark} wheel bundles run it (3.5
 * on Scala 2.12, 4.0 on 2.13).
 */
@EnabledIfSystemProperty(named = "runtime.pyspark.version", matches = "\\d.+")
class PySparkIT {
  private static final long INSTALL_MINUTES = 15;
  private static final long TEST_MINUTES = 20;

  @TempDir static Path tmp;
  static Path root;
  static Path python;

  @BeforeAll
  static void environment() throws Exception {
    RuntimeEndToEndIT.artifacts();
    root = Path.of(System.getProperty("runtime.repo.root")).toAbsolutePath().normalize();
    String pyspark = System.getProperty("runtime.pyspark.version");
    Path venv = RuntimeEndToEndIT.runtime.jar().getParent().resolveSibling("pyspark-venv");
    python = venv.resolve("bin").resolve("python");
    if (!Files.isExecutable(python)) {
      run("venv", List.of("python3", "-m", "venv", venv.toString()), Map.of(), INSTALL_MINUTES);
    }
    run(
        "pip",
        List.of(
            python.toString(),
            "-m",
            "pip",
            "install",
            "--disable-pip-version-check",
            "--quiet",
            "-c",
            root.resolve("python").resolve("constraints.txt").toString(),
            "pyspark==" + pyspark,
            // the package itself: its PySpark helpers, and the key server harness of the tests
            root.resolve("python").toString(),
            "pytest>=8",
            "nbclient>=0.10",
            "nbformat>=5.9",
            "ipykernel>=6.29"),
        Map.of(),
        INSTALL_MINUTES);
  }

  @Test
  void pysparkTestsPass() throws Exception {
    Path repo = RuntimeEndToEndIT.runtime.fileRepository(tmp.resolve("repo"));
    Path work = Files.createDirectories(tmp.resolve("work"));
    Map<String, String> env = new TreeMap<>();
    env.put("IP_REPO_ROOT", root.toString());
    env.put(
        "IP_SPARK_TARGET",
        RuntimeEndToEndIT.runtime
            .artifact()
            .substring("iceberg-protector-spark-runtime-".length()));
    env.put("IP_WORK", work.toString());
    env.put("IP_VERSION", RuntimeEndToEndIT.runtime.version());
    env.put("JAVA_HOME", System.getProperty("java.home"));
    env.put("SPARK_LOCAL_IP", "127.0.0.1");
    // a fresh Ivy cache: a SNAPSHOT cached by an earlier run must not stand in for this build's jar
    env.put(
        "PYSPARK_SUBMIT_ARGS",
        String.join(
            " ",
            "--repositories",
            repo.toUri().toString(),
            "--conf",
            "spark.jars.ivy=" + tmp.resolve("ivy"),
            "--conf",
            "spark.ui.enabled=false",
            "pyspark-shell"));
    String report =
        run(
            "pytest",
            List.of(
                python.toString(),
                "-m",
                "pytest",
                "-q",
                "-rs",
                "-p",
                "no:cacheprovider",
                "pyspark_tests"),
            env,
            TEST_MINUTES);
    assertThat(report).contains(" passed").doesNotContain(" skipped").doesNotContain(" failed");
  }

  /** Runs {@code command} in {@code python/}; its output is printed and returned. */
  private static String run(
      String name, List<String> command, Map<String, String> env, long minutes) throws IOException {
    Path logs =
        Files.createDirectories(
            RuntimeEndToEndIT.runtime.jar().getParent().resolveSibling("pyspark"));
    Path log = logs.resolve(name + ".log");
    ManagedProcess process =
        ManagedProcess.builder(name)
            .command(command)
            .env(env)
            .workDir(root.resolve("python"))
            .logFile(log)
            .build()
            .start();
    // fails with the tail of the log when it runs longer
    int exitCode = process.awaitExit(Duration.ofMinutes(minutes));
    String output = Files.readString(log, StandardCharsets.UTF_8);
    System.out.println(output);
    assertThat(exitCode).as("%s exited with %d; log %s:%n%s", name, exitCode, log, output).isZero();
    return output;
  }
}
