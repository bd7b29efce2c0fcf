package io.icebergprotector.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.icebergprotector.kms.remote.RemoteKeyService;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The server as a separate JVM on loopback, as bin/protector would run it. */
class ServerProcessTest {
  @TempDir Path dir;

  @Test
  void separateProcessServesRoundTrip() throws Exception {
    ServerFixture fx = ServerFixture.prepare(dir);
    // the passphrase from an environment variable this time, as in production
    Path conf = fx.configFile;
    Files.writeString(conf, Files.readString(conf)
        + "\nprotector-server.keys { passphrase-file = null, passphrase-env = PROTECTOR_TEST_PASSPHRASE }\n");

    String classpath = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
    List<String> cmd = new ArrayList<>(List.of(
        Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-Xmx128m", "-cp", classpath, ProtectorServer.class.getName(), "--config", conf.toString()));
    ProcessBuilder pb = new ProcessBuilder(cmd).redirectError(dir.resolve("stderr.txt").toFile());
    pb.environment().put("PROTECTOR_TEST_PASSPHRASE", ServerFixture.KEYSTORE_PASSPHRASE);
    Process process = pb.start();
    try {
      BlockingQueue<String> lines = new ArrayBlockingQueue<>(100);
      Thread reader = new Thread(() -> {
        try (BufferedReader r = new BufferedReader(
            new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
          String line;
          while ((line = r.readLine()) != null) {
            lines.offer(line);
          }
        } catch (Exception ignored) {
          // process ended
        }
      });
      reader.setDaemon(true);
      reader.start();

      String listening = lines.poll(30, TimeUnit.SECONDS);
      assertThat(listening)
          .as("stderr: %s", Files.exists(dir.resolve("stderr.txt")) ? Files.readString(dir.resolve("stderr.txt")) : "")
          .matches("protector-server listening on https://127\\.0\\.0\\.1:\\d+");
      URI url = URI.create(listening.substring(ProtectorServer.LISTENING.length()));
      assertThat(url.getPort()).isPositive();

      byte[] dek = "0123456789abcdef".getBytes(StandardCharsets.UTF_8);
      try (RemoteKeyService etl = fx.clientBuilder(url, fx.token("etl")).build();
          RemoteKeyService alice = fx.clientBuilder(url, fx.token("alice")).build()) {
        String wrapped = etl.wrap("pii", dek);
        assertThat(alice.unwrap("pii", wrapped)).isEqualTo(dek);
      }
    } finally {
      process.destroy();
      if (!process.waitFor(10, TimeUnit.SECONDS)) {
        process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
      }
    }
    // the shutdown hook flushed and closed the audit log
    assertThat(Files.readString(fx.auditFile)).contains("\"principal\":\"alice\"").contains("\"op\":\"unwrap\"");
  }
}
