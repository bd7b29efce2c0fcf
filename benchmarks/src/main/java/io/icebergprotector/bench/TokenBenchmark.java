/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.bench;

import com.google.crypto.tink.subtle.AesSiv;
import io.icebergprotector.kms.token.JceAesBlockCipher;
import io.icebergprotector.kms.token.TokenKey;
import io.icebergprotector.kms.token.Tokenizer;
import io.icebergprotector.policy.ProtectionMethod;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.SecureRandom;
import java.util.Arrays;
import java.util.Locale;
import java.util.function.IntConsumer;
import org.bouncycastle.crypto.fpe.FPEEngine;
import org.bouncycastle.crypto.fpe.FPEFF1Engine;
import org.bouncycastle.crypto.params.FPEParameters;
import org.bouncycastle.crypto.params.KeyParameter;

/**
 * Values per second per core of the token methods in local mode: one thread tokenizes (and
 * detokenizes) an array of distinct values with the tokenizer a write task uses, best of several
 * timed rounds after a warm-up. Prints figures, asserts nothing.
 *
 * <pre>bin/benchmark tokens [--values N] [--rounds R]</pre>
 */
public final class TokenBenchmark {
  private TokenBenchmark() {}

  public static void main(String[] args) {
    int values = 200_000;
    int rounds = 7;
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--values":
          values = Integer.parseInt(args[++i]);
          break;
        case "--rounds":
          rounds = Integer.parseInt(args[++i]);
          break;
        case "-h":
        case "--help":
          System.out.println(
              "bin/benchmark tokens [--values N (default 200000)] [--rounds R (default 7)]");
          return;
        default:
          throw new IllegalArgumentException("Cannot parse option: " + args[i]);
      }
    }
    byte[] material = new byte[32];
    new SecureRandom().nextBytes(material);

    String[] emails = new String[values];
    String[] ssns = new String[values];
    long[] accounts = new long[values];
    for (int i = 0; i < values; i++) {
      emails[i] = String.format(Locale.ROOT, "user%07d@example.com", i);
      ssns[i] = String.format(Locale.ROOT, "%03d-%02d-%04d", i % 1000, (i / 1000) % 100, i % 10000);
      accounts[i] = 100_000_000L + i;
    }
    System.out.printf(
        Locale.ROOT,
        "Token methods, one thread, %d distinct values, best of %d rounds, per second of the"
            + " thread's CPU time (Java %s, %d cores)%n",
        values,
        rounds,
        System.getProperty("java.version"),
        Runtime.getRuntime().availableProcessors());
    System.out.println(
        "| method | values | tokenize values/s/core | detokenize values/s/core | target |");
    System.out.println("|---|---|---:|---:|---|");

    ProtectionMethod det = ProtectionMethod.deterministic();
    try (Tokenizer t = tokenizer(material, det, "bench.email")) {
      String[] tokens = new String[values];
      double enc = rate(values, rounds, i -> tokens[i] = t.protect(emails[i]));
      double dec = rate(values, rounds, i -> t.unprotect(tokens[i]));
      row("deterministic (AES-SIV)", "21-char emails", enc, dec, ">= 2,000,000");
    }
    // Tink's AES-SIV alone on the same values' bytes, no text or base64: what the method costs
    // before the tokenizer adds anything.
    byte[][] emailBytes = new byte[values][];
    for (int i = 0; i < values; i++) {
      emailBytes[i] = emails[i].getBytes(StandardCharsets.UTF_8);
    }
    byte[] sivKey = new byte[64];
    new SecureRandom().nextBytes(sivKey);
    try {
      AesSiv siv = new AesSiv(sivKey);
      byte[][] sealed = new byte[values][];
      double enc = rate(values, rounds, i -> sealed[i] = seal(siv, emailBytes[i]));
      double dec = rate(values, rounds, i -> open(siv, sealed[i]));
      row("AES-SIV alone (Tink, reference)", "21-byte emails", enc, dec, "");
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("Cannot initialize AES-SIV", e);
    } finally {
      Arrays.fill(sivKey, (byte) 0);
    }
    ProtectionMethod ssn = ProtectionMethod.parse("fpe(alphabet = digits, keep = \"-\")");
    try (Tokenizer t = tokenizer(material, ssn, "bench.ssn")) {
      String[] tokens = new String[values];
      double enc = rate(values, rounds, i -> tokens[i] = t.protect(ssns[i]));
      double dec = rate(values, rounds, i -> t.unprotect(tokens[i]));
      row("fpe(alphabet = digits, keep = \"-\") (FF1)", "SSNs 123-45-6789", enc, dec, ">= 300,000");
    }
    ProtectionMethod account = ProtectionMethod.fpeNumeric(9);
    try (Tokenizer t = tokenizer(material, account, "bench.account")) {
      long[] tokens = new long[values];
      double enc = rate(values, rounds, i -> tokens[i] = t.protect(accounts[i]));
      double dec = rate(values, rounds, i -> t.unprotect(tokens[i]));
      row("fpe(width = 9) (FF1)", "9-digit longs", enc, dec, ">= 300,000");
    }
    // The engine alone, on 9 digits, with BouncyCastle's software AES (what the tokenizer used
    // before) and with the JDK's (what it uses now): the AES calls' share of FF1's cost.
    byte[][] digits = new byte[values][9];
    for (int i = 0; i < values; i++) {
      long v = accounts[i];
      for (int d = 8; d >= 0; d--, v /= 10) {
        digits[i][d] = (byte) (v % 10);
      }
    }
    byte[] out = new byte[9];
    for (boolean jdk : new boolean[] {false, true}) {
      FPEEngine e = jdk ? new FPEFF1Engine(new JceAesBlockCipher()) : new FPEFF1Engine();
      byte[] tweak = "bench.engine".getBytes(StandardCharsets.UTF_8);
      e.init(true, new FPEParameters(new KeyParameter(material.clone()), 10, tweak));
      FPEEngine d = jdk ? new FPEFF1Engine(new JceAesBlockCipher()) : new FPEFF1Engine();
      d.init(false, new FPEParameters(new KeyParameter(material.clone()), 10, tweak));
      double enc = rate(values, rounds, i -> e.processBlock(digits[i], 0, 9, out, 0));
      double dec = rate(values, rounds, i -> d.processBlock(digits[i], 0, 9, out, 0));
      row(
          "FF1 engine alone, " + (jdk ? "JDK AES (as tokenizers)" : "BouncyCastle AES (reference)"),
          "9 digits",
          enc,
          dec,
          "");
    }
    Arrays.fill(material, (byte) 0);
  }

  private static byte[] seal(AesSiv siv, byte[] value) {
    try {
      return siv.encryptDeterministicallyWithAssociatedDatas(value);
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException(e);
    }
  }

  private static byte[] open(AesSiv siv, byte[] token) {
    try {
      return siv.decryptDeterministicallyWithAssociatedDatas(token);
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException(e);
    }
  }

  private static Tokenizer tokenizer(byte[] material, ProtectionMethod m, String domain) {
    try (TokenKey key = TokenKey.derive(material, "bench", 1, domain, m.kind())) {
      return Tokenizer.of(key, m);
    }
  }

  /**
   * Values per second of CPU time of this thread in the fastest round, after two warm-up rounds:
   * per core, and not diluted when other processes share the machine (wall time would be).
   */
  private static double rate(int values, int rounds, IntConsumer op) {
    ThreadMXBean cpu = ManagementFactory.getThreadMXBean();
    long best = Long.MAX_VALUE;
    for (int r = -2; r < rounds; r++) {
      long start = cpu.getCurrentThreadCpuTime();
      for (int i = 0; i < values; i++) {
        op.accept(i);
      }
      long took = cpu.getCurrentThreadCpuTime() - start;
      if (r >= 0) {
        best = Math.min(best, took);
      }
    }
    return values * 1e9 / best;
  }

  private static void row(String method, String values, double enc, double dec, String target) {
    System.out.printf(
        Locale.ROOT, "| %s | %s | %,.0f | %,.0f | %s |%n", method, values, enc, dec, target);
  }
}
