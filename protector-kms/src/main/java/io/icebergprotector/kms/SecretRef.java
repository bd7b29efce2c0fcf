/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.kms;

import static io.icebergprotector.policy.Preconditions.checkArgument;

import io.icebergprotector.policy.Digests;
import java.io.IOException;
import java.io.Serializable;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * Where a secret (a token, a passphrase, a PIN) comes from: an environment variable, a file, or a
 * value given inline. The reference is what travels and what is shown; the secret is read where it
 * is used, so executors read their own file or variable and no secret sits in a configuration.
 * Spark, the command line and the key server all choose and read their secrets here.
 *
 * <p>Two ways to read, one rule each:
 *
 * <ul>
 *   <li>{@link #read()}, for tokens: the whole file or variable, trimmed, must be one line.
 *   <li>{@link #readPassphrase()}, for passphrases, passwords and PINs: the whole file or variable
 *       less one trailing newline, so inner and trailing spaces count; wiped on close.
 * </ul>
 */
public final class SecretRef implements Serializable {
  private static final long serialVersionUID = 1L;

  /** The kinds of source, in the order {@link #choose} prefers them. */
  public enum Source {
    VALUE,
    FILE,
    ENV
  }

  private final Source source;
  private final String name;
  // Only for VALUE: the secret itself. Never shown.
  private final String value;

  private SecretRef(Source source, String name, String value) {
    this.source = source;
    this.name = name;
    this.value = value;
  }

  public static SecretRef ofEnv(String variable) {
    checkName(variable, "environment variable name");
    return new SecretRef(Source.ENV, variable.trim(), null);
  }

  public static SecretRef ofFile(String path) {
    checkName(path, "file path");
    return new SecretRef(Source.FILE, path.trim(), null);
  }

  /** An inline secret. Prefer a file or a variable: inline values end up in configurations. */
  public static SecretRef ofValue(String secret) {
    checkArgument(secret != null && !secret.isBlank(), "Invalid secret: empty value");
    return new SecretRef(Source.VALUE, "inline value", secret.trim());
  }

  /**
   * The one source an option set names. {@code valueKey}, {@code fileKey} and {@code envKey} are
   * option names (any may be null when not supported); at most one may be set.
   *
   * @param defaultEnv the variable to use when none is set, or null to return null
   */
  public static SecretRef choose(
      Map<String, String> options,
      String valueKey,
      String fileKey,
      String envKey,
      String defaultEnv) {
    String v = valueKey == null ? null : blankToNull(options.get(valueKey));
    String f = fileKey == null ? null : blankToNull(options.get(fileKey));
    String e = envKey == null ? null : blankToNull(options.get(envKey));
    int set = (v != null ? 1 : 0) + (f != null ? 1 : 0) + (e != null ? 1 : 0);
    if (set > 1) {
      StringBuilder keys = new StringBuilder();
      for (String k : new String[] {valueKey, fileKey, envKey}) {
        if (k != null && blankToNull(options.get(k)) != null) {
          keys.append(keys.length() == 0 ? "" : ", ").append(k);
        }
      }
      throw new IllegalArgumentException("Cannot choose a secret: set only one of " + keys);
    }
    if (v != null) {
      return ofValue(v);
    }
    if (f != null) {
      return ofFile(f);
    }
    if (e != null) {
      return ofEnv(e);
    }
    return defaultEnv == null ? null : ofEnv(defaultEnv);
  }

  public Source source() {
    return source;
  }

  /**
   * Reads a token: the whole file or variable, trimmed, which must be one non-empty line (a
   * trailing newline is fine). Messages name the file or variable, never the value.
   */
  public String read() {
    return read(System::getenv);
  }

  // Tests supply an environment.
  String read(Function<String, String> env) {
    switch (source) {
      case VALUE:
        return value;
      case ENV:
        String fromEnv = env.apply(name);
        checkArgument(
            fromEnv != null, "Cannot read secret: environment variable %s is not set", name);
        return oneLine(fromEnv, "environment variable " + name);
      case FILE:
        return oneLine(readFile(Path.of(name)), "file " + name);
      default:
        throw new IllegalStateException("Unknown secret source: " + source);
    }
  }

  /** The secret as a {@link Passphrase}, which wipes itself on close. */
  public Passphrase readPassphrase() {
    switch (source) {
      case ENV:
        return Passphrase.fromEnv(name);
      case FILE:
        return Passphrase.fromFile(Path.of(name));
      default:
        return Passphrase.of(value.toCharArray());
    }
  }

  /**
   * HMAC-SHA256 (hex) of the secret, read now, under {@code key}. It binds a cache entry to the
   * secret itself rather than to where the secret is read: only code that can read the secret gets
   * the same digest, and without {@code key} the digest tells nothing about the secret. A file's
   * bytes are hashed as they are (surrounding whitespace left out) and wiped.
   */
  public String keyedDigest(byte[] key) {
    Mac mac;
    try {
      mac = Mac.getInstance("HmacSHA256");
      mac.init(new SecretKeySpec(key, "HmacSHA256"));
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("HmacSHA256 is not available", e);
    }
    if (source == Source.FILE) {
      Path file = Path.of(name);
      checkRegularFile(file);
      byte[] bytes;
      try {
        bytes = Files.readAllBytes(file);
      } catch (IOException e) {
        throw new UncheckedIOException(
            "Cannot read secret file " + file + ": " + e.getMessage(), e);
      }
      try {
        int from = 0;
        int to = bytes.length;
        while (from < to && Character.isWhitespace(bytes[from])) {
          from++;
        }
        while (to > from && Character.isWhitespace(bytes[to - 1])) {
          to--;
        }
        mac.update(bytes, from, to - from);
      } finally {
        Arrays.fill(bytes, (byte) 0);
      }
    } else {
      mac.update(read().getBytes(StandardCharsets.UTF_8));
    }
    return HexFormat.of().formatHex(mac.doFinal());
  }

  private static void checkRegularFile(Path file) {
    checkArgument(
        Files.isRegularFile(file),
        "Cannot read secret: file %s does not exist or is not a regular file",
        file);
  }

  private static String readFile(Path file) {
    checkRegularFile(file);
    try {
      return Files.readString(file, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read secret file " + file + ": " + e.getMessage(), e);
    }
  }

  /**
   * The token rule applied to text read elsewhere (e.g. standard input): trimmed, non-empty, one
   * line.
   *
   * @param where what the text came from, for messages (e.g. "standard input")
   */
  public static String token(String text, String where) {
    return oneLine(text, where);
  }

  /** The one rule for tokens: trimmed, non-empty, one line. */
  private static String oneLine(String text, String where) {
    String trimmed = text.trim();
    checkArgument(!trimmed.isEmpty(), "Cannot read secret: %s is empty", where);
    checkArgument(
        trimmed.indexOf('\n') < 0 && trimmed.indexOf('\r') < 0,
        "Cannot read secret: %s holds more than one line; put only the secret in it",
        where);
    return trimmed;
  }

  /**
   * A non-secret identity of the source: the variable or file name, or a SHA-256 of an inline value
   * (secrets are high-entropy tokens; the digest tells two of them apart without revealing them).
   */
  public String fingerprint() {
    return source == Source.VALUE
        ? "value:" + Digests.sha256Hex(value)
        : source.name().toLowerCase(java.util.Locale.ROOT) + ":" + name;
  }

  /** What to name in messages: never the secret. */
  public String describe() {
    switch (source) {
      case ENV:
        return "environment variable " + name;
      case FILE:
        return "file " + name;
      default:
        return "an inline value";
    }
  }

  private static void checkName(String name, String what) {
    checkArgument(name != null && !name.isBlank(), "Invalid secret %s: empty", what);
  }

  private static String blankToNull(String s) {
    return s == null || s.isBlank() ? null : s;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof SecretRef && ((SecretRef) o).fingerprint().equals(fingerprint());
  }

  @Override
  public int hashCode() {
    return Objects.hash(fingerprint());
  }

  @Override
  public String toString() {
    return "SecretRef(" + describe() + ")";
  }
}
