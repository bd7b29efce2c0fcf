/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.server.routes;

import io.icebergprotector.kms.KeyService;
import io.icebergprotector.policy.Access;
import io.icebergprotector.policy.AccessLevel;
import io.icebergprotector.policy.ColumnPolicy;
import io.icebergprotector.policy.Mask;
import io.icebergprotector.policy.Policy;
import io.icebergprotector.policy.TablePolicy;
import io.icebergprotector.policy.masks.HashKernel;
import io.icebergprotector.policy.masks.PartialKernel;
import io.icebergprotector.policy.masks.RedactKernel;
import java.util.Base64;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;

/**
 * Server token mode, table reads: a decode request names the table column it reads, and the caller
 * gets the view the server's policy gives it on that column. A clear reader gets the values; a
 * masked reader gets the column's mask applied here, so the clear value never leaves the server;
 * token and denied readers get nothing (they never need the server). The masks are the mask
 * library's ({@code io.icebergprotector.policy.masks}, which the Spark readers call too) for the
 * column types a tokenized column can have (string, binary, int, long), on the values as the answer
 * holds them: {@code null}, {@code redact} ({@code "****"}, empty bytes, 0), {@code
 * partial(keep_last=N)} on code points, and {@code hash}: hex for strings, the 32 digest bytes for
 * binary, the first 8 (long) or 4 (int) digest bytes big-endian as a signed number. The hash key is
 * derived with {@link KeyService#TOKEN_HASH_MASK_CONTEXT} from the column's master key and never
 * leaves the server: whoever held it could hash every candidate of a small domain and read the
 * values behind the masks.
 */
final class TokenColumnView {
  private final String table;
  private final String column;
  private final AccessLevel level;
  private final Mask mask;
  private final boolean ints;

  private TokenColumnView(String table, String column, Access access, boolean ints) {
    this.table = table;
    this.column = column;
    this.level = access.level();
    this.mask = access.level() == AccessLevel.MASKED ? access.mask() : null;
    this.ints = ints;
  }

  /**
   * The view of {@code column} of {@code table} for a caller with {@code roles}, or empty when the
   * policy has no such tokenized column of ({@code keyId}, {@code domain}): the caller gets the
   * same refusal as for a column it may not read.
   */
  static Optional<TokenColumnView> of(
      Policy policy,
      Set<String> roles,
      String keyId,
      String domain,
      String table,
      String column,
      boolean ints) {
    Optional<TablePolicy> entry = policy.table(table);
    if (entry.isEmpty()) {
      return Optional.empty();
    }
    for (ColumnPolicy c : entry.get().columns()) {
      if (c.path().equalsIgnoreCase(column)
          && c.tokenized()
          && c.keyId().equals(keyId)
          && c.domain().equals(domain)) {
        return Optional.of(new TokenColumnView(table, c.path(), c.accessFor(roles), ints));
      }
    }
    return Optional.empty();
  }

  /** Whether the caller reads the column detokenized: clear, or masked by the server. */
  boolean readable() {
    return level == AccessLevel.CLEAR || level == AccessLevel.MASKED;
  }

  /** The mask this server applies, or null for clear values. */
  Mask mask() {
    return mask;
  }

  /** {@code table.column}, for the audit line. */
  String name() {
    return table + "." + column;
  }

  /**
   * Replaces the decoded values by their masks in place (nulls stay null). Values are as in the
   * answer: strings, base64 strings of binary values, longs.
   *
   * @param keys derives the hash mask's key (only for {@code hash})
   * @param keyId the column's master key
   */
  void apply(Object[] values, boolean binary, KeyService keys, String keyId) {
    apply(values, binary, () -> keys.deriveKey(keyId, KeyService.TOKEN_HASH_MASK_CONTEXT));
  }

  /**
   * As {@link #apply(Object[], boolean, KeyService, String)}, with the hash mask's key from {@code
   * hashKey} (a copy this method wipes), asked for only by {@code hash} masks, on the first
   * non-null value.
   */
  void apply(Object[] values, boolean binary, Supplier<byte[]> hashKey) {
    if (mask == null) {
      return;
    }
    HashKernel hash = mask.kind() == Mask.Kind.HASH ? new HashKernel(hashKey) : null;
    for (int i = 0; i < values.length; i++) {
      if (values[i] != null) {
        values[i] = maskOne(values[i], binary, hash);
      }
    }
  }

  private Object maskOne(Object value, boolean binary, HashKernel hash) {
    switch (mask.kind()) {
      case NULL:
        return null;
      case REDACT:
        if (value instanceof Long) {
          return ints ? RedactKernel.INT : RedactKernel.LONG;
        }
        return binary ? base64(RedactKernel.binary(0)) : RedactKernel.STRING;
      case PARTIAL:
        if (value instanceof Long || binary) {
          throw unsupported();
        }
        return PartialKernel.mask((String) value, mask.keepLast());
      case HASH:
        if (value instanceof Long) {
          // an int column's values arrive as JSON numbers, longs
          return ints ? (long) hash.ofInt((Long) value) : hash.ofLong((Long) value);
        }
        if (binary) {
          return base64(hash.ofBinary(Base64.getDecoder().decode((String) value)));
        }
        return hash.ofString((String) value);
      default:
        throw unsupported();
    }
  }

  private static String base64(byte[] bytes) {
    return Base64.getEncoder().encodeToString(bytes);
  }

  private IllegalArgumentException unsupported() {
    return new IllegalArgumentException(
        "Cannot apply mask " + mask.spec() + " of column " + name() + " to its tokenized values");
  }
}
