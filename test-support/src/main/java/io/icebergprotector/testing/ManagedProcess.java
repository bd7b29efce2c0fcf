/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.MatchResult;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * A server started as a separate OS process for a test class: its output goes to a log file, it is
 * awaited until a health check passes, and it is killed at the latest when the JVM exits.
 */
public final class ManagedProcess implements AutoCloseable {
  private static final Set<ManagedProcess> LIVE = ConcurrentHashMap.newKeySet();

  static {
    // Surefire may end the JVM without running @AfterAll (timeouts, Ctrl-C): never leak servers.
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(() -> LIVE.forEach(ManagedProcess::kill), "test-process-reaper"));
  }

  private final String name;
  private final List<String> command;
  private final Map<String, String> env;
  private final Path workDir;
  private final Path logFile;
  private Process process;

  private ManagedProcess(Builder b) {
    this.name = b.name;
    this.command = List.copyOf(b.command);
    this.env = Map.copyOf(b.env);
    this.workDir = b.workDir;
    this.logFile = b.logFile;
  }

  public static Builder builder(String name) {
    return new Builder(name);
  }

  public String name() {
    return name;
  }

  public Path logFile() {
    return logFile;
  }

  public long pid() {
    return process.pid();
  }

  public boolean isAlive() {
    return process != null && process.isAlive();
  }

  /** Starts the process; output and errors are appended to {@link #logFile()}. */
  public ManagedProcess start() {
    if (process != null) {
      throw new IllegalStateException("Process " + name + " already started");
    }
    try {
      Files.createDirectories(logFile.getParent());
      Files.createDirectories(workDir);
      Files.writeString(
          logFile,
          "# "
              + name
              + ": "
              + String.join(" ", command)
              + System.lineSeparator()
              + "# env: "
              + env.keySet().stream().sorted().collect(Collectors.joining(" "))
              + System.lineSeparator(),
          StandardCharsets.UTF_8);
      ProcessBuilder pb = new ProcessBuilder(command).directory(workDir.toFile());
      pb.environment().putAll(env);
      pb.redirectErrorStream(true);
      pb.redirectOutput(ProcessBuilder.Redirect.appendTo(logFile.toFile()));
      pb.redirectInput(ProcessBuilder.Redirect.from(nullDevice()));
      this.process = pb.start();
      LIVE.add(this);
      return this;
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot start " + name + ": " + String.join(" ", command), e);
    }
  }

  /**
   * Polls {@code check} until it returns true. Fails with the tail of the log when the process
   * exits first or the timeout passes; a check that throws counts as "not yet".
   */
  public void awaitHealthy(Duration timeout, HealthCheck check) {
    long deadline = System.nanoTime() + timeout.toNanos();
    Exception last = null;
    while (true) {
      if (!process.isAlive()) {
        throw new IllegalStateException(
            String.format(
                "%s exited with code %d before becoming healthy; log %s ends with:%n%s",
                name, process.exitValue(), logFile, tail(40)));
      }
      try {
        if (check.healthy()) {
          return;
        }
      } catch (Exception e) {
        last = e;
      }
      if (System.nanoTime() > deadline) {
        stop();
        throw new IllegalStateException(
            String.format(
                "%s did not become healthy within %d s (last check error: %s); log %s ends with:%n%s",
                name, timeout.toSeconds(), last, logFile, tail(40)));
      }
      try {
        // The next check, or at once when the process exits (reported at the top of the loop).
        process.onExit().get(200, TimeUnit.MILLISECONDS);
      } catch (TimeoutException e) {
        // not exited: check again
      } catch (ExecutionException e) {
        throw new IllegalStateException("Cannot watch " + name + " for its exit", e);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        stop();
        throw new IllegalStateException("Interrupted while waiting for " + name, e);
      }
    }
  }

  /**
   * Waits until a line of the log matches {@code readiness} (e.g. a server's "listening on ..."
   * line) and returns that match; fails like {@link #awaitHealthy} when the process exits first or
   * the timeout passes.
   */
  public MatchResult awaitLine(Duration timeout, Pattern readiness) {
    AtomicReference<MatchResult> found = new AtomicReference<>();
    awaitHealthy(
        timeout,
        () -> {
          Matcher m = readiness.matcher(Files.readString(logFile, StandardCharsets.ISO_8859_1));
          if (m.find()) {
            found.set(m.toMatchResult());
            return true;
          }
          return false;
        });
    return found.get();
  }

  /**
   * Waits for a process that ends by itself (a job, not a server) and returns its exit code; kills
   * it and fails with the tail of its log when it runs longer than {@code timeout}.
   */
  public int awaitExit(Duration timeout) {
    try {
      if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
        stop();
        throw new IllegalStateException(
            String.format(
                "%s did not finish within %d s; log %s ends with:%n%s",
                name, timeout.toSeconds(), logFile, tail(40)));
      }
      return process.exitValue();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      stop();
      throw new IllegalStateException("Interrupted while waiting for " + name, e);
    } finally {
      if (!process.isAlive()) {
        LIVE.remove(this);
      }
    }
  }

  /** The last {@code lines} lines of the log. */
  public String tail(int lines) {
    try (Stream<String> all = Files.lines(logFile, StandardCharsets.ISO_8859_1)) {
      Deque<String> last = new ArrayDeque<>(lines);
      all.forEach(
          line -> {
            if (last.size() == lines) {
              last.removeFirst();
            }
            last.addLast(line);
          });
      return String.join(System.lineSeparator(), last);
    } catch (IOException | UncheckedIOException e) {
      return "(cannot read " + logFile + ": " + e.getMessage() + ")";
    }
  }

  /** Asks the process to stop, then kills it (and its children) if it has not within 10 s. */
  public void stop() {
    if (process == null) {
      return;
    }
    try {
      process.descendants().forEach(ProcessHandle::destroy);
      process.destroy();
      if (!process.waitFor(10, TimeUnit.SECONDS)) {
        kill();
        process.waitFor(10, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      kill();
    } finally {
      LIVE.remove(this);
    }
  }

  private void kill() {
    if (process != null) {
      process.descendants().forEach(ProcessHandle::destroyForcibly);
      process.destroyForcibly();
    }
  }

  @Override
  public void close() {
    stop();
  }

  @Override
  public String toString() {
    return name + (process != null ? "[pid " + process.pid() + "]" : "[not started]");
  }

  private static java.io.File nullDevice() {
    return new java.io.File(
        System.getProperty("os.name").toLowerCase(java.util.Locale.ROOT).startsWith("windows")
            ? "NUL"
            : "/dev/null");
  }

  /** The java launcher of the JVM running the tests, so servers use the same JDK. */
  public static String javaExecutable() {
    return Path.of(System.getProperty("java.home"), "bin", "java").toString();
  }

  /** The class path of the tests (surefire's, when it runs them from a manifest-only jar). */
  public static String testClasspath() {
    return System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
  }

  @FunctionalInterface
  public interface HealthCheck {
    boolean healthy() throws Exception;
  }

  public static final class Builder {
    private final String name;
    private final List<String> command = new ArrayList<>();
    private final Map<String, String> env = new LinkedHashMap<>();
    private Path workDir;
    private Path logFile;

    private Builder(String name) {
      this.name = Objects.requireNonNull(name, "name");
    }

    public Builder command(List<String> args) {
      command.addAll(args);
      return this;
    }

    public Builder env(String key, String value) {
      env.put(key, value);
      return this;
    }

    public Builder env(Map<String, String> vars) {
      env.putAll(vars);
      return this;
    }

    public Builder workDir(Path dir) {
      this.workDir = dir;
      return this;
    }

    public Builder logFile(Path file) {
      this.logFile = file;
      return this;
    }

    public ManagedProcess build() {
      if (command.isEmpty()) {
        throw new IllegalArgumentException("Process " + name + " has no command");
      }
      Objects.requireNonNull(workDir, "workDir");
      Objects.requireNonNull(logFile, "logFile");
      return new ManagedProcess(this);
    }
  }
}
