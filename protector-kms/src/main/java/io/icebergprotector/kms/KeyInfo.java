package io.icebergprotector.kms;

import java.time.Instant;
import java.util.List;

/** Public metadata of a master key; never carries key material. */
public record KeyInfo(String id, int latestVersion, List<Integer> versions, Instant createdAt, boolean destroyed) {
  public KeyInfo {
    versions = List.copyOf(versions);
  }
}
