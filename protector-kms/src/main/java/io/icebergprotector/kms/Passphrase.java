/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.kms;

import static io.icebergprotector.policy.Preconditions.checkArgument;
import static io.icebergprotector.policy.Preconditions.checkState;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Map;

/**
 * A passphrase, password or PIN: the whole environment variable or file less one trailing newline
 * (inner and trailing spaces count). Comes from an environment variable or a file, never from the
 * policy; choose the source with {@link SecretRef}. {@link #close()} wipes it.
 */
public final class Passphrase implements AutoCloseable {
  private final char[] chars;
  private volatile boolean closed;

  private Passphrase(char[] chars) {
    this.chars = chars;
  }

  /** Copies {@code c}; the caller may wipe its own array afterwards. */
  public static Passphrase of(char[] c) {
    checkArgument(c != null, "Invalid passphrase: null");
    return checked(c.clone(), "the given passphrase");
  }

  /**
   * Reads the passphrase from environment variable {@code var} (one trailing newline is trimmed).
   */
  public static Passphrase fromEnv(String var) {
    return fromEnv(var, System.getenv());
  }

  // Package-private so tests can supply an environment.
  static Passphrase fromEnv(String var, Map<String, String> env) {
    checkArgument(
        var != null && !var.isEmpty(), "Invalid secret environment variable name: '%s'", var);
    String value = env.get(var);
    checkArgument(value != null, "Cannot read secret: environment variable %s is not set", var);
    return checked(trimNewline(value.toCharArray()), "environment variable " + var);
  }

  /** Reads the passphrase from a UTF-8 file (one trailing newline is trimmed). */
  public static Passphrase fromFile(Path file) {
    checkArgument(file != null, "Invalid secret file: null");
    checkArgument(Files.exists(file), "Cannot read secret: file %s does not exist", file);
    checkArgument(
        Files.isRegularFile(file), "Cannot read secret: file %s is not a regular file", file);
    byte[] bytes = null;
    CharBuffer decoded = null;
    try {
      bytes = Files.readAllBytes(file);
      decoded =
          StandardCharsets.UTF_8
              .newDecoder()
              .onMalformedInput(CodingErrorAction.REPORT)
              .onUnmappableCharacter(CodingErrorAction.REPORT)
              .decode(ByteBuffer.wrap(bytes));
      char[] chars =
          Arrays.copyOfRange(
              decoded.array(), decoded.arrayOffset(), decoded.arrayOffset() + decoded.remaining());
      return checked(trimNewline(chars), "file " + file);
    } catch (CharacterCodingException e) {
      throw new IllegalArgumentException(
          "Cannot read secret: file " + file + " is not valid UTF-8", e);
    } catch (IOException e) {
      throw new KeyServiceUnavailableException(
          "Cannot read secret file " + file + ": " + e.getMessage(), e);
    } finally {
      if (bytes != null) {
        Arrays.fill(bytes, (byte) 0);
      }
      if (decoded != null && decoded.hasArray()) {
        Arrays.fill(decoded.array(), '\0');
      }
    }
  }

  /** A copy of the passphrase; callers should wipe it when done. */
  public char[] chars() {
    checkState(!closed, "Passphrase was closed");
    return chars.clone();
  }

  @Override
  public void close() {
    closed = true;
    Arrays.fill(chars, '\0');
  }

  @Override
  public String toString() {
    return "Passphrase(***)";
  }

  private static Passphrase checked(char[] chars, String source) {
    checkArgument(chars.length != 0, "Cannot read secret: %s is empty", source);
    return new Passphrase(chars);
  }

  /**
   * Trims one trailing "\n" or "\r\n" (as left by echo or an editor); wipes the input if it copies.
   */
  private static char[] trimNewline(char[] c) {
    int end = c.length;
    if (end > 0 && c[end - 1] == '\n') {
      end--;
      if (end > 0 && c[end - 1] == '\r') {
        end--;
      }
    }
    if (end == c.length) {
      return c;
    }
    char[] out = Arrays.copyOf(c, end);
    Arrays.fill(c, '\0');
    return out;
  }
}
