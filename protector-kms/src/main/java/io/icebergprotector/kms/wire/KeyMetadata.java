/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.kms.wire;

import io.icebergprotector.kms.KeyInfo;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Vault Transit's key metadata: the {@code data} of {@code GET /v1/transit/keys/<key>}, and of the
 * answers to create, rotate and config. The key server writes it from a {@link KeyInfo}; the client
 * reads a {@link KeyInfo} back, from the key server or from Vault.
 */
public final class KeyMetadata {
  public static final String NAME = "name";
  public static final String LATEST_VERSION = "latest_version";
  public static final String DESTROYED = "destroyed";

  private KeyMetadata() {}

  /** The metadata of {@code info}, in Vault's member order. */
  public static Map<String, Object> of(KeyInfo info) {
    long created = info.createdAt().getEpochSecond();
    Map<String, Object> versions =
        new TreeMap<>((a, b) -> Integer.compare(Integer.parseInt(a), Integer.parseInt(b)));
    for (int v : info.versions()) {
      versions.put(
          Integer.toString(v), created); // per-version times are not tracked: the key's creation
    }
    Map<String, Object> m = new LinkedHashMap<>();
    m.put(NAME, info.id());
    m.put(TransitFields.TYPE, TransitFields.KEY_TYPE);
    m.put(LATEST_VERSION, info.latestVersion());
    m.put(TransitFields.MIN_DECRYPTION_VERSION, info.minDecryptionVersion());
    m.put("min_encryption_version", 0);
    m.put(TransitFields.KEYS, versions);
    m.put("deletion_allowed", true);
    m.put("exportable", false);
    m.put("supports_encryption", !info.destroyed());
    m.put("supports_decryption", !info.destroyed());
    m.put("supports_derivation", false);
    m.put("supports_signing", false);
    m.put(DESTROYED, info.destroyed());
    return m;
  }

  /**
   * The key {@code data} describes; {@code keyId} names it when the answer does not (Vault's
   * creation answers carry no metadata at all).
   *
   * @throws RuntimeException (such as {@link IllegalArgumentException}) when a member is malformed
   */
  public static KeyInfo read(String keyId, Map<String, Object> data) {
    String name = JsonCodec.string(data, NAME);
    Long latest = JsonCodec.integer(data, LATEST_VERSION);
    Map<String, Object> keys = JsonCodec.object(data, TransitFields.KEYS);
    List<Integer> versions = new ArrayList<>();
    long earliest = Long.MAX_VALUE;
    if (keys != null) {
      for (Map.Entry<String, Object> e : keys.entrySet()) {
        versions.add(Integer.parseInt(e.getKey()));
        if (e.getValue() instanceof Long) {
          earliest = Math.min(earliest, (Long) e.getValue());
        }
      }
    }
    versions.sort(null);
    boolean destroyed = Boolean.TRUE.equals(data.get(DESTROYED));
    Long minDecryption = JsonCodec.integer(data, TransitFields.MIN_DECRYPTION_VERSION);
    return new KeyInfo(
        name == null ? keyId : name,
        latest == null ? 0 : Math.toIntExact(latest),
        versions,
        earliest == Long.MAX_VALUE ? Instant.EPOCH : Instant.ofEpochSecond(earliest),
        destroyed,
        minDecryption == null || minDecryption < 1 ? 1 : Math.toIntExact(minDecryption));
  }
}
