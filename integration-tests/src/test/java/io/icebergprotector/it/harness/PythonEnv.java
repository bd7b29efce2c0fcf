/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.it.harness;

import io.icebergprotector.testing.ManagedProcess;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The repository's Python package ({@code python/}) installed with its test extras into a virtual
 * environment under {@code target/}, made on first use, and pytest run in it. The packages come
 * from the Python package index, as a user's {@code pip install ./python} gets them, at the
 * versions of {@code python/constraints.txt}.
 */
public final class PythonEnv {
  private static final Duration INSTALL_TIMEOUT = Duration.ofMinutes(10);
  private static Path python;

  private PythonEnv() {}

  /** The repository's {@code python/} directory (the tests run in {@code integration-tests/}). */
  public static Path packageDir() {
    Path dir = Path.of("..", "python").toAbsolutePath().normalize();
    if (!Files.isRegularFile(dir.resolve("pyproject.toml"))) {
      throw new IllegalStateException(
          "Cannot find the Python package: no " + dir + "/pyproject.toml");
    }
    return dir;
  }

  /** The environment's interpreter, with the package and its test extras installed. */
  public static synchronized Path python() {
    if (python != null) {
      return python;
    }
    Path venv = Path.of("target", "python-venv").toAbsolutePath();
    Path interpreter = venv.resolve("bin").resolve("python");
    if (!Files.isExecutable(interpreter)) {
      run("python-venv", List.of("python3", "-m", "venv", venv.toString()), Map.of());
    }
    run(
        "python-install",
        List.of(
            interpreter.toString(),
            "-m",
            "pip",
            "install",
            "--disable-pip-version-check",
            "--quiet",
            "-c",
            packageDir().resolve("constraints.txt").toString(),
            packageDir() + "[test]"),
        Map.of());
    python = interpreter;
    return python;
  }

  /**
   * Runs pytest with {@code args} in {@code python/} and {@code env}; returns its output, and
   * throws an AssertionError holding that output when a test fails.
   */
  public static String pytest(String name, Map<String, String> env, String... args) {
    List<String> command = new ArrayList<>(List.of(python().toString(), "-m", "pytest"));
    command.addAll(List.of(args));
    return run(name, command, env);
  }

  /** Runs ruff (the version the package's test extras pin) with {@code args} in {@code python/}. */
  public static String ruff(String name, String... args) {
    List<String> command = new ArrayList<>(List.of(python().toString(), "-m", "ruff"));
    command.addAll(List.of(args));
    return run(name, command, Map.of());
  }

  private static String run(String name, List<String> command, Map<String, String> env) {
    Path log = ItPaths.logsDir().resolve(name + ".log");
    ManagedProcess process =
        ManagedProcess.builder(name)
            .command(command)
            .env(env)
            .workDir(packageDir())
            .logFile(log)
            .build()
            .start();
    int exit = process.awaitExit(INSTALL_TIMEOUT);
    String output;
    try {
      output = Files.readString(log, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read " + log, e);
    }
    System.out.println(output);
    if (exit != 0) {
      throw new AssertionError(
          String.join(" ", command) + " exited with " + exit + " (log " + log + "):\n" + output);
    }
    return output;
  }
}
