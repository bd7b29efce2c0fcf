package io.icebergprotector.kms;

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
    if (requested < minDecryptionVersion) {
      throw new IllegalArgumentException(
          "Cannot lower the minimum decryption version of key '"
              + id
              + "' from "
              + minDecryptionVersion
              + " to "
              + requested
              + ": retired versions stay retired");
    }
    if (requested > latestVersion) {
      throw new IllegalArgumentException(
          "Cannot set the minimum decryption version of key '"
              + id
              + "' to "
              + requested
              + ": the latest version is "
              + latestVersion
              + " (rotate first)");
    }
    return requested != minDecryptionVersion;
  }
}
