/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.kms;

import static io.icebergprotector.policy.Preconditions.checkArgument;

import java.time.Instant;
import java.util.List;

/**
 * Public metadata of a master key; never carries key material. Versions below {@code
 * minDecryptionVersion} are retired: they no longer unwrap (see {@link
 * KeyService#setMinDecryptionVersion}).
 */
public record KeyInfo(
    String id,
    int latestVersion,
    List<Integer> versions,
    Instant createdAt,
    boolean destroyed,
    int minDecryptionVersion) {
  public KeyInfo {
    versions = List.copyOf(versions);
  }

  /** A key with no retired version. */
  public KeyInfo(
      String id, int latestVersion, List<Integer> versions, Instant createdAt, boolean destroyed) {
    this(id, latestVersion, versions, createdAt, destroyed, 1);
  }

  /**
   * Checks a new minimum decryption version against this key: it may not go back, nor past the
   * latest version.
   *
   * @return whether it changes anything (false when it equals the current minimum)
   * @throws IllegalArgumentException naming the key and both versions otherwise
   */
  public boolean checkNewMinDecryptionVersion(int requested) {
    checkArgument(
        requested >= minDecryptionVersion,
        "Cannot lower the minimum decryption version of key '%s' from "
            + "%s to %s: retired versions stay retired",
        id,
        minDecryptionVersion,
        requested);
    checkArgument(
        requested <= latestVersion,
        "Cannot set the minimum decryption version of key '%s' to %s: "
            + "the latest version is %s (rotate first)",
        id,
        requested,
        latestVersion);
    return requested != minDecryptionVersion;
  }
}
