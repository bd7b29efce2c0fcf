/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.cli;

import io.icebergprotector.kms.KeyAccessDeniedException;
import java.security.cert.CertPathBuilderException;
import java.security.cert.CertificateException;
import java.util.Set;
import javax.net.ssl.SSLException;

/** What to do about a failure, for the causes a user can fix with an option or a role. */
final class ErrorHints {
  /** Operations of {@code keys ...} that the key server reserves to its admin-roles. */
  private static final Set<String> ADMIN_OPERATIONS =
      Set.of("list", "create", "rotate", "destroy", "describe", "retire");

  private ErrorHints() {}

  /** A hint line (without "hint: "), or null when there is nothing to add. */
  static String hintFor(Throwable error) {
    for (Throwable t = error; t != null; t = t.getCause() == t ? null : t.getCause()) {
      if (isTrustFailure(t)) {
        return "the key server's TLS certificate is not trusted by this JVM; pass --trust-cert <server.pem>,"
            + " the certificate of the server's tls keystore (export it with"
            + " 'keytool -exportcert -rfc -alias <alias> -keystore <tls.p12> -file server.pem')";
      }
      if (t instanceof KeyAccessDeniedException denied
          && ADMIN_OPERATIONS.contains(denied.operation())) {
        return "'keys "
            + denied.operation()
            + "' on the key server needs a role listed in the server's"
            + " admin-roles (conf/server.conf); principal '"
            + denied.principal()
            + "' holds none of them"
            + " ('protector whoami' with the same --url and token shows its roles)";
      }
    }
    return null;
  }

  private static boolean isTrustFailure(Throwable t) {
    String message = t.getMessage() == null ? "" : t.getMessage();
    return t instanceof CertPathBuilderException
        || (t instanceof CertificateException && message.contains("No subject alternative"))
        || (t instanceof SSLException
            && (message.contains("PKIX path") || message.contains("certification path")));
  }
}
