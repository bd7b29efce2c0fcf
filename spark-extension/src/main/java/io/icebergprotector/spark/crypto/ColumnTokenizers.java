/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.spark.crypto;

import io.icebergprotector.kms.KeyService;
import io.icebergprotector.kms.KeyServiceException;
import io.icebergprotector.kms.token.Tokenizer;
import io.icebergprotector.policy.ProtectionMethod;
import io.icebergprotector.spark.core.ColumnProtection;
import io.icebergprotector.spark.core.ProtectionSpec;
import io.icebergprotector.spark.core.ProtectorException;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.StringJoiner;

/**
 * The tokenizers of one writer or reader (one task), per tokenized column and token key version:
 * each is opened through the key service on first use (which checks the principal and audits the
 * release) and closed, wiping its key, with this object. Not thread-safe.
 *
 * <p>Tokens carry no key version, so each data file records the version of every tokenized column
 * in its footer's key-value metadata under {@link #VERSIONS_KEY}: {@code <field id>:<version>},
 * comma separated.
 */
public final class ColumnTokenizers implements AutoCloseable {
  /** Footer key-value metadata key of the token key versions of a file's tokenized columns. */
  public static final String VERSIONS_KEY = "iceberg-protector.token-versions";

  private final ProtectionSpec spec;
  private final Map<Long, Tokenizer> open = new HashMap<>();

  public ColumnTokenizers(ProtectionSpec spec) {
    this.spec = spec;
  }

  /**
   * The tokenizer of {@code column} under key version {@code version} ({@link
   * KeyService#LATEST_VERSION} for writers).
   *
   * @throws ProtectorException naming the column, table and principal when the key is refused
   */
  public Tokenizer tokenizer(ColumnProtection column, int version) {
    long slot = ((long) column.fieldId() << 32) | (version & 0xffffffffL);
    Tokenizer tokenizer = open.get(slot);
    if (tokenizer == null) {
      try {
        KeyService keys = KeyServiceRegistry.obtain(spec.keyScope(), spec.policy());
        tokenizer =
            keys.tokenizer(
                column.keyId(),
                version,
                column.domain(),
                ProtectionMethod.parse(column.tokenMethod()),
                spec.tokenMode());
      } catch (KeyServiceException e) {
        throw new ProtectorException(
            String.format(
                "Cannot %s column '%s' of table %s: principal %s did not get the token key of"
                    + " domain '%s' (key '%s'%s): %s",
                column.detokenizes() ? "detokenize" : "tokenize",
                column.path(),
                spec.tableName(),
                spec.principal(),
                column.domain(),
                column.keyId(),
                version == KeyService.LATEST_VERSION ? "" : ", version " + version,
                e.getMessage()),
            e);
      }
      open.put(slot, tokenizer);
    }
    return tokenizer;
  }

  /** The footer value recording {@code versions} (field id to token key version). */
  public static String versionsValue(Map<Integer, Integer> versions) {
    StringJoiner out = new StringJoiner(",");
    versions.forEach((id, version) -> out.add(id + ":" + version));
    return out.toString();
  }

  /**
   * The token key versions recorded in a file's footer, by field id; empty when the file records
   * none.
   *
   * @throws ProtectorException for a malformed value, naming the file
   */
  public static Map<Integer, Integer> parseVersions(String value, String location) {
    Map<Integer, Integer> out = new LinkedHashMap<>();
    if (value == null || value.isBlank()) {
      return out;
    }
    for (String entry : value.split(",")) {
      int colon = entry.indexOf(':');
      try {
        out.put(
            Integer.parseInt(entry.substring(0, colon).trim()),
            Integer.parseInt(entry.substring(colon + 1).trim()));
      } catch (RuntimeException e) {
        throw new ProtectorException(
            String.format(
                "Cannot read the token key versions of %s: malformed entry '%s' in footer key %s",
                location, entry, VERSIONS_KEY),
            e);
      }
    }
    return out;
  }

  @Override
  public void close() {
    RuntimeException failure = null;
    for (Tokenizer tokenizer : open.values()) {
      try {
        tokenizer.close();
      } catch (RuntimeException e) {
        if (failure == null) {
          failure = e;
        } else {
          failure.addSuppressed(e);
        }
      }
    }
    open.clear();
    if (failure != null) {
      throw failure;
    }
  }
}
