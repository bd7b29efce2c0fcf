/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.kms.pkcs11;

import io.icebergprotector.kms.KeyInfo;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * Immutable view of our objects on the token, grouped by key id. Built from the token's CKA_LABELs.
 */
final class TokenView {
  static final TokenView EMPTY = new TokenView(Map.of());

  private final Map<String, KeyObjects> keys;

  private TokenView(Map<String, KeyObjects> keys) {
    this.keys = keys;
  }

  static TokenView of(Collection<String> labels) {
    Map<String, List<Labels.Parsed>> byId = new TreeMap<>();
    for (String label : labels) {
      Labels.parse(label)
          .ifPresent(p -> byId.computeIfAbsent(p.keyId(), id -> new ArrayList<>()).add(p));
    }
    Map<String, KeyObjects> keys = new TreeMap<>();
    byId.forEach((id, objects) -> keys.put(id, new KeyObjects(id, objects)));
    return new TokenView(Collections.unmodifiableMap(keys));
  }

  /** Objects of one id, whether or not it is a complete key (see {@link KeyObjects#exists()}). */
  Optional<KeyObjects> objects(String keyId) {
    return Optional.ofNullable(keys.get(keyId));
  }

  /** Keys that exist or were destroyed, sorted by id. */
  List<KeyInfo> infos() {
    return keys.values().stream().filter(KeyObjects::exists).map(KeyObjects::info).toList();
  }

  /** All token objects of one key id. */
  static final class KeyObjects {
    private final String id;
    private final TreeMap<Integer, List<Labels.Parsed>> versions = new TreeMap<>();
    private final List<Labels.Parsed> hmacs = new ArrayList<>();
    private final List<Labels.Parsed> tombstones = new ArrayList<>();

    private KeyObjects(String id, List<Labels.Parsed> objects) {
      this.id = id;
      for (Labels.Parsed p : objects) {
        if (p.isVersion()) {
          versions.computeIfAbsent(p.version(), v -> new ArrayList<>()).add(p);
        } else if (p.isHmac()) {
          hmacs.add(p);
        } else if (p.isTombstone()) {
          tombstones.add(p);
        }
      }
      versions.values().forEach(list -> list.sort(Labels.Parsed::compare));
      hmacs.sort(Labels.Parsed::compare);
      tombstones.sort(Labels.Parsed::compare);
    }

    String id() {
      return id;
    }

    /**
     * A tombstone wins over anything else: material left by an interrupted destroy is never used.
     */
    boolean destroyed() {
      return !tombstones.isEmpty();
    }

    /**
     * Destroyed, or has at least one version (an HMAC key alone is the debris of an interrupted
     * create).
     */
    boolean exists() {
      return destroyed() || !versions.isEmpty();
    }

    /** When the key was destroyed; null unless {@link #destroyed()}. */
    Instant destroyedAt() {
      return destroyed() ? Instant.ofEpochMilli(tombstones.get(0).time()) : null;
    }

    int latestVersion() {
      if (destroyed()) {
        return tombstones.get(0).latest();
      }
      return versions.isEmpty() ? 0 : versions.lastKey();
    }

    /**
     * Retirement deletes the objects of old versions, so the lowest version left is the minimum.
     */
    int minDecryptionVersion() {
      return destroyed() || versions.isEmpty() ? 1 : versions.firstKey();
    }

    boolean hasVersion(int version) {
      return !destroyed() && versions.containsKey(version);
    }

    /**
     * Objects of one version, the one used for wrapping first (duplicates only after a
     * cross-process race).
     */
    List<Labels.Parsed> candidates(int version) {
      return destroyed() ? List.of() : versions.getOrDefault(version, List.of());
    }

    Optional<Labels.Parsed> hmac() {
      return destroyed() || hmacs.isEmpty() ? Optional.empty() : Optional.of(hmacs.get(0));
    }

    /** Every version and HMAC object: what destroy must delete. */
    List<Labels.Parsed> material() {
      List<Labels.Parsed> all = new ArrayList<>(hmacs);
      versions.values().forEach(all::addAll);
      return all;
    }

    List<Labels.Parsed> hmacObjects() {
      return List.copyOf(hmacs);
    }

    Instant createdAt() {
      if (destroyed()) {
        return Instant.ofEpochMilli(tombstones.get(0).created());
      }
      // The HMAC key is created with version 1 and outlives retirements; else the oldest version we
      // still have.
      List<Labels.Parsed> first =
          !hmacs.isEmpty() || versions.isEmpty() ? hmacs : versions.firstEntry().getValue();
      return first.isEmpty() ? Instant.EPOCH : Instant.ofEpochMilli(first.get(0).time());
    }

    KeyInfo info() {
      List<Integer> live = destroyed() ? List.of() : List.copyOf(versions.keySet());
      return new KeyInfo(
          id, latestVersion(), live, createdAt(), destroyed(), minDecryptionVersion());
    }
  }
}
