package io.icebergprotector.kms;

import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.regex.Pattern;

/** Key id validation and the PKCS12 alias encoding. */
final class KeyIds {
  private static final Pattern VALID = Pattern.compile("[A-Za-z0-9._-]{1,128}");

  private KeyIds() {}

  /** @throws IllegalArgumentException naming the id if it is not 1-128 chars of [A-Za-z0-9._-] */
  static String check(String keyId) {
    if (keyId == null || !VALID.matcher(keyId).matches()) {
      throw new IllegalArgumentException(
          "Invalid key id '" + keyId + "': must be 1-128 characters of [A-Za-z0-9._-]");
    }
    return keyId;
  }

  /**
   * PKCS12 lower-cases aliases, so ids are hex-encoded (case-sensitive ids "PII" and "pii" get distinct
   * aliases). Hex never contains '#', so version aliases cannot collide with each other or the metadata entry.
   */
  static String hex(String keyId) {
    return HexFormat.of().formatHex(keyId.getBytes(StandardCharsets.UTF_8));
  }

  static String fromHex(String hex) {
    return new String(HexFormat.of().parseHex(hex), StandardCharsets.UTF_8);
  }

  static String alias(String keyId, int version) {
    return hex(keyId) + "#v" + version;
  }

  /** Associated data binding a wrapped blob to its key id and version (a replay under another id fails). */
  static byte[] associatedData(String keyId, int version) {
    return ("iceberg-protector/v1|" + keyId + "|" + version).getBytes(StandardCharsets.UTF_8);
  }
}
