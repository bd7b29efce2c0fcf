/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.kms.pkcs11;

import static io.icebergprotector.policy.Preconditions.checkState;

import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.Provider;
import java.security.Security;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;

/**
 * Finds the slot of a token by its label.
 *
 * <p>The JDK has no API for token labels: SunPKCS11 selects only by {@code slot} or {@code
 * slotListIndex}, and its token info is internal (reading it would need {@code --add-exports
 * jdk.crypto.cryptoki/...} on every JVM that opens the key service, Spark executors included). The
 * one JDK-only source is SunPKCS11's {@code showInfo} diagnostics, which print the slot list and
 * the token info of the configured slot. So we configure a throw-away provider per slot with {@code
 * showInfo = true} and parse what it prints. Only the probing thread's output is captured; other
 * threads keep printing to the real {@code System.out} meanwhile.
 */
final class SlotProbe {
  private static final Object LOCK = new Object();
  private static final String SLOTS = "Slots with tokens:";
  private static final String TOKEN_INFO = "Token info for token in slot ";
  private static final String LABEL = "label:";

  /**
   * A slot with a token; label is "" if the token is not initialized or its info could not be read.
   */
  record Slot(int index, long slotId, String label) {
    @Override
    public String toString() {
      return "'" + label + "' (slot " + slotId + ", index " + index + ")";
    }
  }

  /** What one probe printed, and how it failed (null if it did not). */
  private record Probe(String output, RuntimeException failure) {}

  private SlotProbe() {}

  /** Slots that have a token, in slot-list order (the order {@code slotListIndex} counts). */
  static List<Slot> slots(Path library) {
    Probe first = probe(library, Pkcs11Config.slotListIndex(0));
    List<Long> ids = parseSlotList(first.output());
    if (ids == null) {
      String why =
          first.failure() == null
              ? "no slot list in SunPKCS11 diagnostics"
              : Pkcs11Errors.describe(first.failure()) + Pkcs11Errors.loadHint(first.failure());
      throw new IllegalStateException(
          "Cannot list the tokens of PKCS#11 library " + library + ": " + why, first.failure());
    }
    List<Slot> slots = new ArrayList<>();
    for (int i = 0; i < ids.size(); i++) {
      long id = ids.get(i);
      String output = first.output();
      if (i > 0) {
        String slotLine =
            id <= Integer.MAX_VALUE ? Pkcs11Config.slot(id) : Pkcs11Config.slotListIndex(i);
        output = probe(library, slotLine).output();
      }
      slots.add(new Slot(i, id, parseLabel(output, id)));
    }
    return slots;
  }

  /**
   * The id of the slot at {@code index} of the slot list; empty if the index is out of range or
   * unreadable.
   */
  static OptionalLong slotIdAt(Path library, int index) {
    List<Long> ids = parseSlotList(probe(library, Pkcs11Config.slotListIndex(index)).output());
    return ids != null && index < ids.size()
        ? OptionalLong.of(ids.get(index))
        : OptionalLong.empty();
  }

  // Package-private for tests with canned diagnostics.
  static List<Long> parseSlotList(String output) {
    for (String line : output.split("\\R")) {
      if (line.startsWith(SLOTS)) {
        List<Long> ids = new ArrayList<>();
        for (String part : line.substring(SLOTS.length()).split(",")) {
          String trimmed = part.trim();
          if (!trimmed.isEmpty()) {
            try {
              ids.add(Long.parseLong(trimmed));
            } catch (NumberFormatException e) {
              return null;
            }
          }
        }
        return ids;
      }
    }
    return null;
  }

  /**
   * The label printed in the token info of slot {@code slotId}, trailing blank padding removed; ""
   * if absent.
   */
  static String parseLabel(String output, long slotId) {
    String[] lines = output.split("\\R");
    for (int i = 0; i < lines.length; i++) {
      if (lines[i].equals(TOKEN_INFO + slotId + ":")) {
        for (int j = i + 1; j < lines.length && lines[j].startsWith(" "); j++) {
          String field = lines[j].strip();
          if (field.startsWith(LABEL)) {
            // CK_TOKEN_INFO labels are 32 characters padded with blanks.
            return lines[j].substring(lines[j].indexOf(LABEL) + LABEL.length()).trim();
          }
        }
      }
    }
    return "";
  }

  private static Probe probe(Path library, String slotLine) {
    String config = "--" + Pkcs11Config.forProbe(library, slotLine);
    synchronized (LOCK) {
      PrintStream original = System.out;
      Thread prober = Thread.currentThread();
      ByteArrayOutputStream sink = new ByteArrayOutputStream();
      OutputStream routing =
          new OutputStream() {
            @Override
            public void write(int b) {
              if (Thread.currentThread() == prober) {
                sink.write(b);
              } else {
                original.write(b);
              }
            }

            @Override
            public void write(byte[] b, int off, int len) {
              if (Thread.currentThread() == prober) {
                sink.write(b, off, len);
              } else {
                original.write(b, off, len);
              }
            }

            @Override
            public void flush() {
              if (Thread.currentThread() != prober) {
                original.flush();
              }
            }
          };
      Charset charset = stdoutCharset();
      RuntimeException failure = null;
      System.setOut(new PrintStream(routing, true, charset));
      try {
        Provider base = Security.getProvider("SunPKCS11");
        checkState(base != null, "The JDK has no SunPKCS11 provider (module jdk.crypto.cryptoki)");
        base.configure(config);
      } catch (RuntimeException e) {
        failure = e; // e.g. an uninitialized token: its info was printed before the session failed
      } finally {
        System.setOut(original);
      }
      return new Probe(sink.toString(charset), failure);
    }
  }

  private static Charset stdoutCharset() {
    String name = System.getProperty("sun.stdout.encoding");
    try {
      return name == null ? Charset.defaultCharset() : Charset.forName(name);
    } catch (RuntimeException e) {
      return StandardCharsets.UTF_8;
    }
  }
}
