package io.icebergprotector.kms;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A self-signed EC certificate for 127.0.0.1 and localhost, made with the JDK's keytool, for tests
 * that run the key server over TLS (server and CLI modules share it through the test jar).
 */
public final class SelfSignedTls {
  private SelfSignedTls() {}

  /**
   * Writes a PKCS12 keystore holding the key pair (alias {@code server}) and the certificate in
   * PEM.
   */
  public static void create(Path keystore, String password, Path pem)
      throws IOException, InterruptedException {
    keytool(
        "-genkeypair",
        "-alias",
        "server",
        "-keyalg",
        "EC",
        "-groupname",
        "secp256r1",
        "-validity",
        "2",
        "-dname",
        "CN=localhost",
        "-ext",
        "san=ip:127.0.0.1,dns:localhost",
        "-storetype",
        "PKCS12",
        "-keystore",
        keystore.toString(),
        "-storepass",
        password,
        "-keypass",
        password);
    keytool(
        "-exportcert",
        "-rfc",
        "-alias",
        "server",
        "-keystore",
        keystore.toString(),
        "-storepass",
        password,
        "-file",
        pem.toString());
  }

  private static void keytool(String... args) throws IOException, InterruptedException {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "keytool").toString());
    command.addAll(List.of(args));
    Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
    String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
      throw new IOException("keytool " + args[0] + " failed: " + output);
    }
  }
}
