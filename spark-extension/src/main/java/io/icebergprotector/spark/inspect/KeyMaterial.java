/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.spark.inspect;

import static io.icebergprotector.policy.Preconditions.checkArgument;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import org.apache.iceberg.shaded.com.fasterxml.jackson.databind.JsonNode;
import org.apache.iceberg.shaded.com.fasterxml.jackson.databind.ObjectMapper;

/**
 * The key material stored in a Parquet {@code key_metadata} field, as written by parquet-mr's key
 * tools ({@code PropertiesDrivenCryptoFactory}): a small JSON object naming the master key and
 * holding the wrapped data key. Metadata written by other tools (a plain key id, arbitrary bytes)
 * is kept as opaque text.
 *
 * <p>Wrapped keys are encrypted, but still never printed whole: {@link #toText()} and {@link
 * #toString()} show only a short prefix.
 */
public final class KeyMaterial {
  /** Characters of a wrapped key shown in reports. */
  static final int WRAPPED_KEY_PREVIEW = 12;

  private static final ObjectMapper MAPPER = new ObjectMapper();
  private static final int OPAQUE_PREVIEW = 40;

  private final int length;
  private final String rawJson;
  private final String opaqueText;
  private final String keyMaterialType;
  private final boolean internalStorage;
  private final String keyReference;
  private final Boolean footerKey;
  private final String masterKeyId;
  private final boolean doubleWrapping;
  private final String keyEncryptionKeyId;
  private final String kmsInstanceId;
  private final String kmsInstanceUrl;
  private final String wrappedDek;
  private final String wrappedKek;

  private KeyMaterial(int length, String rawJson, String opaqueText, JsonNode json) {
    this.length = length;
    this.rawJson = rawJson;
    this.opaqueText = opaqueText;
    this.keyMaterialType = text(json, "keyMaterialType");
    // Absent means internal storage: only external material writes internalStorage=false.
    this.internalStorage =
        json == null || !json.has("internalStorage") || json.get("internalStorage").asBoolean(true);
    this.keyReference = text(json, "keyReference");
    this.footerKey =
        json != null && json.has("isFooterKey") && json.get("isFooterKey").isBoolean()
            ? json.get("isFooterKey").booleanValue()
            : null;
    this.masterKeyId = text(json, "masterKeyID");
    this.doubleWrapping = json != null && json.path("doubleWrapping").asBoolean(false);
    this.keyEncryptionKeyId = text(json, "keyEncryptionKeyID");
    this.kmsInstanceId = text(json, "kmsInstanceID");
    this.kmsInstanceUrl = text(json, "kmsInstanceURL");
    this.wrappedDek = text(json, "wrappedDEK");
    this.wrappedKek = text(json, "wrappedKEK");
  }

  /**
   * Parses key metadata bytes. Never fails: bytes that are not a JSON object become opaque material
   * ({@link #isJson()} false).
   */
  public static KeyMaterial parse(byte[] keyMetadata) {
    checkArgument(keyMetadata != null, "Invalid key metadata: null");
    String text = utf8OrNull(keyMetadata);
    if (text != null && text.trim().startsWith("{")) {
      try {
        JsonNode json = MAPPER.readTree(text);
        if (json != null && json.isObject()) {
          return new KeyMaterial(keyMetadata.length, text, null, json);
        }
      } catch (IOException e) {
        // not JSON after all: fall through to opaque
      }
    }
    String opaque =
        text != null && isPrintable(text)
            ? "'" + truncate(text, OPAQUE_PREVIEW) + "'"
            : "0x" + truncate(HexFormat.of().formatHex(keyMetadata), OPAQUE_PREVIEW);
    return new KeyMaterial(keyMetadata.length, null, opaque, null);
  }

  /** True if the metadata is a JSON object (parquet key tools' format). */
  public boolean isJson() {
    return rawJson != null;
  }

  /** The master key id in the KMS ({@code masterKeyID}), or null if not recorded in the file. */
  public String masterKeyId() {
    return masterKeyId;
  }

  /** True if the data key is wrapped by a KEK that is wrapped by the master key. */
  public boolean doubleWrapping() {
    return doubleWrapping;
  }

  /**
   * The version of the master key that wrapped this key, read from the key service's wrapped form
   * ({@code vault:v<N>:...}): the KEK's under double wrapping, else the data key's. Empty when the
   * wrapped key is not in that form.
   */
  public java.util.OptionalInt masterKeyVersion() {
    String wrapped = doubleWrapping ? wrappedKek : wrappedDek;
    if (wrapped == null || !wrapped.startsWith("vault:v")) {
      return java.util.OptionalInt.empty();
    }
    int end = wrapped.indexOf(':', "vault:v".length());
    try {
      return end < 0
          ? java.util.OptionalInt.empty()
          : java.util.OptionalInt.of(Integer.parseInt(wrapped.substring("vault:v".length(), end)));
    } catch (NumberFormatException e) {
      return java.util.OptionalInt.empty();
    }
  }

  /** The key material type, e.g. {@code PKMT1}; null for opaque metadata. */
  public String keyMaterialType() {
    return keyMaterialType;
  }

  /** The metadata as JSON text, or null if it is not JSON. Contains the (wrapped) keys. */
  public String rawJson() {
    return rawJson;
  }

  /** False if the material lives in a separate key material file ({@link #keyReference()}). */
  public boolean internalStorage() {
    return internalStorage;
  }

  /** The reference into external key material storage, or null. */
  public String keyReference() {
    return keyReference;
  }

  /** The {@code isFooterKey} flag, or null if absent. */
  public Boolean isFooterKey() {
    return footerKey;
  }

  /** The id of the key-encryption key for double wrapping, or null. */
  public String keyEncryptionKeyId() {
    return keyEncryptionKeyId;
  }

  public String kmsInstanceId() {
    return kmsInstanceId;
  }

  public String kmsInstanceUrl() {
    return kmsInstanceUrl;
  }

  /** The wrapped data key cut to a short prefix, or null; the full value is only in rawJson. */
  public String wrappedDekPreview() {
    return preview(wrappedDek);
  }

  /** The wrapped key-encryption key cut to a short prefix, or null. */
  public String wrappedKekPreview() {
    return preview(wrappedKek);
  }

  /** Size of the key metadata in bytes. */
  public int length() {
    return length;
  }

  /** One line for reports; wrapped keys are truncated. */
  public String toText() {
    if (!isJson()) {
      return "opaque key metadata " + opaqueText + " (" + length + " bytes)";
    }
    StringBuilder sb = new StringBuilder();
    sb.append("masterKeyID=").append(masterKeyId == null ? "<none>" : masterKeyId);
    if (keyMaterialType != null) {
      sb.append(" type=").append(keyMaterialType);
    }
    if (!internalStorage) {
      sb.append(" storage=external");
      if (keyReference != null) {
        sb.append(" keyReference=").append(keyReference);
      }
    }
    sb.append(" doubleWrapping=").append(doubleWrapping);
    if (keyEncryptionKeyId != null) {
      sb.append(" kekID=").append(keyEncryptionKeyId);
    }
    if (kmsInstanceId != null) {
      sb.append(" kmsInstanceID=").append(kmsInstanceId);
    }
    if (kmsInstanceUrl != null) {
      sb.append(" kmsInstanceURL=").append(kmsInstanceUrl);
    }
    if (wrappedDek != null) {
      sb.append(" wrappedDEK=").append(preview(wrappedDek));
    }
    if (wrappedKek != null) {
      sb.append(" wrappedKEK=").append(preview(wrappedKek));
    }
    return sb.toString();
  }

  @Override
  public String toString() {
    return "KeyMaterial{" + toText() + "}";
  }

  private static String preview(String wrapped) {
    if (wrapped == null) {
      return null;
    }
    // Short values show at most half, so the preview is never the whole value.
    int shown = Math.min(WRAPPED_KEY_PREVIEW, wrapped.length() / 2);
    return wrapped.substring(0, shown) + "…";
  }

  private static String text(JsonNode json, String field) {
    if (json == null) {
      return null;
    }
    JsonNode node = json.get(field);
    return node == null || node.isNull() ? null : node.asText();
  }

  private static String utf8OrNull(byte[] bytes) {
    try {
      return StandardCharsets.UTF_8
          .newDecoder()
          .onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT)
          .decode(ByteBuffer.wrap(bytes))
          .toString();
    } catch (CharacterCodingException e) {
      return null;
    }
  }

  private static boolean isPrintable(String text) {
    return text.codePoints().noneMatch(c -> Character.isISOControl(c));
  }

  private static String truncate(String text, int max) {
    return text.length() <= max ? text : text.substring(0, max) + "…";
  }
}
