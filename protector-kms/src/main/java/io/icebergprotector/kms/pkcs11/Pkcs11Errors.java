/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.kms.pkcs11;

import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Turns SunPKCS11 failures into readable messages. SunPKCS11 wraps the token's CKR_* code in layers
 * of generic exceptions ("load failed", "Initialization failed"); the code is what tells the
 * operator what to fix.
 */
final class Pkcs11Errors {
  private static final Pattern CKR = Pattern.compile("\\bCKR_[A-Z0-9_]+");

  private static final Map<String, String> HINTS =
      Map.ofEntries(
          Map.entry("CKR_PIN_INCORRECT", "wrong user PIN"),
          Map.entry("CKR_PIN_LOCKED", "the user PIN is locked (too many wrong attempts)"),
          Map.entry("CKR_PIN_EXPIRED", "the user PIN has expired"),
          Map.entry(
              "CKR_USER_PIN_NOT_INITIALIZED", "the token has no user PIN yet (initialize it)"),
          Map.entry("CKR_TOKEN_NOT_RECOGNIZED", "the token is not initialized or not recognized"),
          Map.entry("CKR_TOKEN_NOT_PRESENT", "no token in the slot"),
          Map.entry("CKR_DEVICE_REMOVED", "the token was removed"),
          Map.entry("CKR_DEVICE_ERROR", "the token reported a device error"),
          Map.entry("CKR_TOKEN_WRITE_PROTECTED", "the token is write-protected"),
          Map.entry("CKR_KEY_UNEXTRACTABLE", "the key is not extractable"),
          Map.entry("CKR_OBJECT_HANDLE_INVALID", "the token object no longer exists"),
          Map.entry("CKR_KEY_HANDLE_INVALID", "the token object no longer exists"),
          Map.entry("CKR_MECHANISM_INVALID", "the token does not support the mechanism"));

  /** Codes meaning the token cannot be reached right now (retrying later may work). */
  private static final java.util.Set<String> UNAVAILABLE =
      java.util.Set.of(
          "CKR_TOKEN_NOT_PRESENT",
          "CKR_DEVICE_REMOVED",
          "CKR_DEVICE_ERROR",
          "CKR_DEVICE_MEMORY",
          "CKR_SESSION_HANDLE_INVALID",
          "CKR_SESSION_CLOSED",
          "CKR_CRYPTOKI_NOT_INITIALIZED");

  private Pkcs11Errors() {}

  /** The first CKR_* code in the cause chain. */
  static Optional<String> code(Throwable t) {
    for (Throwable c = t; c != null; c = c.getCause() == c ? null : c.getCause()) {
      if (c.getMessage() != null) {
        Matcher m = CKR.matcher(c.getMessage());
        if (m.find()) {
          return Optional.of(m.group());
        }
      }
    }
    return Optional.empty();
  }

  static boolean is(Throwable t, String... codes) {
    Optional<String> code = code(t);
    return code.isPresent() && java.util.Arrays.asList(codes).contains(code.get());
  }

  static boolean unavailable(Throwable t) {
    return code(t).map(UNAVAILABLE::contains).orElse(false);
  }

  /**
   * A hint for failures while loading or initializing the library, where the cause is often its own
   * config.
   */
  static String loadHint(Throwable t) {
    return is(t, "CKR_GENERAL_ERROR", "CKR_ARGUMENTS_BAD")
        ? " (is the library itself configured? SoftHSM, for one, reads its token directory from SOFTHSM2_CONF)"
        : "";
  }

  /** "wrong user PIN (CKR_PIN_INCORRECT)", or the innermost useful message. */
  static String describe(Throwable t) {
    Optional<String> code = code(t);
    if (code.isPresent()) {
      String hint = HINTS.get(code.get());
      return hint == null ? code.get() : hint + " (" + code.get() + ")";
    }
    String best = null;
    for (Throwable c = t; c != null; c = c.getCause() == c ? null : c.getCause()) {
      if (c.getMessage() != null && !c.getMessage().isBlank()) {
        best = c.getMessage();
      }
    }
    return best != null ? best : t.getClass().getSimpleName();
  }
}
