package io.icebergprotector.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;

/** The key server as a separate JVM, as bin/protector runs it: started, waited for, stopped. */
final class ServerProcess implements AutoCloseable {
  private final Process process;
  private final URI url;

  private ServerProcess(Process process, URI url) {
    this.process = process;
    this.url = url;
  }

  /** The command line of a server JVM on this test's classpath. */
  static List<String> command(Path config) {
    String classpath =
        System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
    return List.of(
        Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-Xmx128m",
        "-cp",
        classpath,
        ProtectorServer.class.getName(),
        "--config",
        config.toString());
  }

  /**
   * Starts {@code pb} (a server JVM) and waits for its listening line; stderr goes to {@code
   * stderr}.
   */
  static ServerProcess start(ProcessBuilder pb, Path stderr) throws Exception {
    Process process = pb.redirectError(stderr.toFile()).start();
    BlockingQueue<String> lines = new ArrayBlockingQueue<>(100);
    Thread reader =
        new Thread(
            () -> {
              try (BufferedReader r =
                  new BufferedReader(
                      new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                String line;
                while ((line = r.readLine()) != null) {
                  lines.offer(line);
                }
              } catch (IOException ignored) {
                // process ended
              }
            });
    reader.setDaemon(true);
    reader.start();
    String listening = lines.poll(60, TimeUnit.SECONDS);
    while (listening != null && listening.startsWith("[")) {
      listening = lines.poll(60, TimeUnit.SECONDS); // JVM log lines (JFR's startup) come first
    }
    if (listening == null || !listening.startsWith(ProtectorServer.LISTENING)) {
      process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
    }
    assertThat(listening)
        .as("stderr: %s", Files.exists(stderr) ? Files.readString(stderr) : "")
        .matches("protector-server listening on https://127\\.0\\.0\\.1:\\d+");
    return new ServerProcess(
        process, URI.create(listening.substring(ProtectorServer.LISTENING.length())));
  }

  URI url() {
    return url;
  }

  /** The server JVM's total CPU time so far (user + system). */
  java.time.Duration cpuTime() {
    return process.info().totalCpuDuration().orElseThrow();
  }

  /**
   * Stops the server the way a service manager does (SIGTERM: the shutdown hook closes audit and
   * keys).
   */
  @Override
  public void close() throws InterruptedException {
    process.destroy();
    if (!process.waitFor(10, TimeUnit.SECONDS)) {
      process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
    }
  }
}
