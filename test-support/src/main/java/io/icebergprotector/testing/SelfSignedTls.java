/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.testing;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.CertificateFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

/**
 * A self-signed EC certificate for 127.0.0.1 and localhost, made with the JDK's keytool, for tests
 * that run the key server over TLS (in the test JVM or as a process), and the client side that
 * trusts it.
 */
public final class SelfSignedTls {
  // keytool reads the password from here, never from its command line (which `ps` shows)
  private static final String PASSWORD_ENV = "SELF_SIGNED_TLS_PASSWORD";

  private SelfSignedTls() {}

  /**
   * Writes a PKCS12 keystore holding the key pair (alias {@code server}) and the certificate in
   * PEM.
   */
  public static void create(Path keystore, String password, Path pem) {
    Map<String, String> env = Map.of(PASSWORD_ENV, password);
    keytool(
        env,
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
        "-storepass:env",
        PASSWORD_ENV,
        "-keypass:env",
        PASSWORD_ENV);
    keytool(
        env,
        "-exportcert",
        "-rfc",
        "-alias",
        "server",
        "-keystore",
        keystore.toString(),
        "-storepass:env",
        PASSWORD_ENV,
        "-file",
        pem.toString());
  }

  /** A TLS context that trusts the certificate in {@code pem} (and nothing else). */
  public static SSLContext trusting(Path pem) {
    try (InputStream in = Files.newInputStream(pem)) {
      KeyStore trust = KeyStore.getInstance(KeyStore.getDefaultType());
      trust.load(null, null);
      trust.setCertificateEntry(
          "server", CertificateFactory.getInstance("X.509").generateCertificate(in));
      TrustManagerFactory tmf =
          TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
      tmf.init(trust);
      SSLContext ctx = SSLContext.getInstance("TLS");
      ctx.init(null, tmf.getTrustManagers(), null);
      return ctx;
    } catch (IOException | GeneralSecurityException e) {
      throw new IllegalStateException("Cannot trust the certificate in " + pem, e);
    }
  }

  /** Runs the JDK's keytool with {@code args}, {@code env} added to its environment. */
  public static void keytool(Map<String, String> env, String... args) {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "keytool").toString());
    command.addAll(List.of(args));
    ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true);
    pb.environment().putAll(env);
    try {
      Process p = pb.start();
      p.getOutputStream().close();
      String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
        throw new IllegalStateException("Cannot run keytool " + args[0] + ": " + output);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot run keytool " + args[0], e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("Interrupted while running keytool " + args[0], e);
    }
  }
}
