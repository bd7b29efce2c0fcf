/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.kms.token;

import io.icebergprotector.policy.ProtectionMethod;

/**
 * Tokenizes and detokenizes the values of one token domain under one {@link TokenKey}. Every method
 * returns null for null. Not thread-safe: one per task or thread. Close it to wipe the key copies
 * it holds (the key schedules inside the libraries go with the object).
 */
public interface Tokenizer extends AutoCloseable {

  /** The method of {@code method} under {@code key}; the key may be closed afterwards. */
  static Tokenizer of(TokenKey key, ProtectionMethod method) {
    switch (method.kind()) {
      case DETERMINISTIC:
        return new SivTokenizer(key);
      case FPE:
        return new Ff1Tokenizer(key, method);
      default:
        throw new IllegalArgumentException(
            "Cannot tokenize with method pme: domain " + key.domain());
    }
  }

  /** The token domain (the tweak). */
  String domain();

  /**
   * The master key version whose token key this tokenizer uses. Tokens carry no version, so whoever
   * stores tokens records it beside them.
   */
  int version();

  /** A string value's token: printable (deterministic) or of the same format (fpe). */
  String protect(String value);

  /** The value of a string token. @throws TokenException for a malformed or foreign token */
  String unprotect(String token);

  /** A binary value's token, as the bytes of a printable string (deterministic only). */
  byte[] protect(byte[] value);

  /** The value of a binary token (deterministic only). */
  byte[] unprotect(byte[] token);

  /** An integer's token of the same width and sign (fpe with a width only). */
  long protect(long value);

  /** The value of an integer token (fpe with a width only). */
  long unprotect(long token);

  /**
   * Replaces {@code values[0..count)} by their tokens; nulls stay null. A tokenizer that calls a
   * key server sends them in one request, so callers on a hot path tokenize in batches.
   */
  default void protectAll(String[] values, int count) {
    for (int i = 0; i < count; i++) {
      values[i] = protect(values[i]);
    }
  }

  /** Replaces {@code tokens[0..count)} by their values; nulls stay null. */
  default void unprotectAll(String[] tokens, int count) {
    for (int i = 0; i < count; i++) {
      tokens[i] = unprotect(tokens[i]);
    }
  }

  /** Replaces {@code values[0..count)} by their tokens; nulls stay null. */
  default void protectAll(byte[][] values, int count) {
    for (int i = 0; i < count; i++) {
      values[i] = protect(values[i]);
    }
  }

  /** Replaces {@code tokens[0..count)} by their values; nulls stay null. */
  default void unprotectAll(byte[][] tokens, int count) {
    for (int i = 0; i < count; i++) {
      tokens[i] = unprotect(tokens[i]);
    }
  }

  /** Replaces {@code values[0..count)} by their tokens (callers leave nulls out). */
  default void protectAll(long[] values, int count) {
    for (int i = 0; i < count; i++) {
      values[i] = protect(values[i]);
    }
  }

  /** Replaces {@code tokens[0..count)} by their values (callers leave nulls out). */
  default void unprotectAll(long[] tokens, int count) {
    for (int i = 0; i < count; i++) {
      tokens[i] = unprotect(tokens[i]);
    }
  }

  /**
   * Server token mode: the detokenize calls of this tokenizer read {@code column} of {@code table}
   * (policy names), so the key server answers the view its policy gives the caller on that column:
   * clear values for a clear reader, the column's mask applied on the server for a masked reader
   * (the clear value never leaves the server), a refusal for anyone else. {@link #appliedMask()}
   * says which. {@code ints}: the column holds int values (a hash mask keeps the int width). A
   * tokenizer that holds the token key itself returns clear values and ignores this.
   *
   * @return this tokenizer
   */
  default Tokenizer readingColumn(String table, String column, boolean ints) {
    return this;
  }

  /**
   * The mask spec the key server applied to the values of the last detokenize call (see {@link
   * #readingColumn}), or null when they are clear values.
   */
  default String appliedMask() {
    return null;
  }

  @Override
  void close();
}
