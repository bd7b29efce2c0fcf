/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.kms;

import static io.icebergprotector.policy.Preconditions.checkArgument;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.IntStream;

/**
 * Metadata of one key as stored in the keystore's metadata entry. Versions are always
 * 1..latestVersion (rotation appends; only destroy removes, and it removes all). destroyedAt !=
 * null marks a tombstone. Versions below minDecryptionVersion are retired: their material stays
 * (version 1 keys deriveKey) but they no longer unwrap.
 */
record KeyRecord(
    String id,
    Instant createdAt,
    int latestVersion,
    Instant destroyedAt,
    int minDecryptionVersion) {
  KeyRecord(String id, Instant createdAt, int latestVersion, Instant destroyedAt) {
    this(id, createdAt, latestVersion, destroyedAt, 1);
  }

  static final String HEADER = "iceberg-protector-keystore 1";

  boolean destroyed() {
    return destroyedAt != null;
  }

  boolean hasVersion(int version) {
    return !destroyed() && version >= 1 && version <= latestVersion;
  }

  KeyInfo info() {
    List<Integer> versions =
        destroyed() ? List.of() : IntStream.rangeClosed(1, latestVersion).boxed().toList();
    return new KeyInfo(id, latestVersion, versions, createdAt, destroyed(), minDecryptionVersion);
  }

  boolean retired(int version) {
    return version < minDecryptionVersion;
  }

  /**
   * Line format: {@code <hex id> <created ISO> <latest> <destroyed ISO or -> [<min decryption
   * version>]}. Ids are hex so no escaping. The last field is written only when some version is
   * retired, so keystores without retirements stay readable by releases that predate it.
   */
  static byte[] encode(Map<String, KeyRecord> keys) {
    StringBuilder sb = new StringBuilder(HEADER).append('\n');
    for (KeyRecord r : keys.values()) {
      sb.append(KeystoreAliases.hex(r.id))
          .append(' ')
          .append(r.createdAt)
          .append(' ')
          .append(r.latestVersion)
          .append(' ')
          .append(r.destroyedAt == null ? "-" : r.destroyedAt.toString());
      if (r.minDecryptionVersion > 1) {
        sb.append(' ').append(r.minDecryptionVersion);
      }
      sb.append('\n');
    }
    return sb.toString().getBytes(StandardCharsets.UTF_8);
  }

  /**
   * @throws IllegalArgumentException if the metadata is not in the expected format
   */
  static Map<String, KeyRecord> decode(byte[] bytes) {
    List<String> lines =
        new ArrayList<>(List.of(new String(bytes, StandardCharsets.UTF_8).split("\n")));
    checkArgument(!lines.isEmpty() && HEADER.equals(lines.get(0)), "Unknown metadata header");
    Map<String, KeyRecord> keys = new TreeMap<>();
    for (String line : lines.subList(1, lines.size())) {
      if (line.isEmpty()) {
        continue;
      }
      String[] f = line.split(" ");
      checkArgument(f.length == 4 || f.length == 5, "Malformed metadata line");
      // Not checked against today's key-id rule: a keystore stays readable whatever ids it holds.
      String id = KeystoreAliases.fromHex(f[0]);
      checkArgument(!id.isEmpty(), "Empty key id in metadata");
      int latest = Integer.parseInt(f[2]);
      checkArgument(latest >= 1, "Bad version count for key '%s'", id);
      Instant destroyed = "-".equals(f[3]) ? null : Instant.parse(f[3]);
      int minDecryption = f.length == 5 ? Integer.parseInt(f[4]) : 1;
      checkArgument(
          minDecryption >= 1 && minDecryption <= latest,
          "Bad minimum decryption version for key '%s'",
          id);
      keys.put(id, new KeyRecord(id, Instant.parse(f[1]), latest, destroyed, minDecryption));
    }
    return Collections.unmodifiableMap(keys);
  }
}
