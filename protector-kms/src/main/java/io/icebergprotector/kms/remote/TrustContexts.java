/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.kms.remote;

import static io.icebergprotector.policy.Preconditions.checkArgument;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

/**
 * The TLS contexts a client trusts the key server with, when it does not trust the JDK's default
 * CAs: exactly the certificates of one file, or those of a trust store. Problems are {@link
 * IllegalArgumentException}s naming the file.
 */
final class TrustContexts {
  private TrustContexts() {}

  /** Trusts exactly the certificate(s) of a PEM or DER file, e.g. a self-signed server's. */
  static SSLContext certificates(Path file) {
    try {
      KeyStore trust = KeyStore.getInstance(KeyStore.getDefaultType());
      trust.load(null, null);
      CertificateFactory cf = CertificateFactory.getInstance("X.509");
      try (InputStream in = Files.newInputStream(file)) {
        int i = 0;
        for (Certificate cert : cf.generateCertificates(in)) {
          trust.setCertificateEntry("trusted-" + i++, cert);
        }
        checkArgument(i != 0, "No certificate found in %s", file);
      }
      return trusting(trust);
    } catch (IOException | GeneralSecurityException e) {
      throw cannotLoad(file, e);
    }
  }

  /** Trusts the certificates of a PKCS12 or JKS trust store. */
  static SSLContext trustStore(Path file, char[] password) {
    try {
      KeyStore trust = KeyStore.getInstance("PKCS12"); // also reads JKS (keystore.type.compat)
      try (InputStream in = Files.newInputStream(file)) {
        trust.load(in, password);
      }
      return trusting(trust);
    } catch (IOException | GeneralSecurityException e) {
      throw cannotLoad(file, e);
    }
  }

  private static SSLContext trusting(KeyStore trust) throws GeneralSecurityException {
    TrustManagerFactory tmf =
        TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
    tmf.init(trust);
    SSLContext context = SSLContext.getInstance("TLS");
    context.init(null, tmf.getTrustManagers(), null);
    return context;
  }

  private static IllegalArgumentException cannotLoad(Path file, Exception e) {
    return new IllegalArgumentException(
        "Cannot load trusted certificates from " + file + ": " + e.getMessage(), e);
  }
}
