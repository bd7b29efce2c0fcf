/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.kms;

import java.util.Objects;

/**
 * A setting the protector reads by name (a catalog option, a session setting, a read option, a
 * table property), with what the reference documentation says of it. The reference pages under
 * {@code docs/reference/} are generated from these entries, so a key, its default and its meaning
 * are written down once, next to the code that reads the key.
 *
 * @param key the name the code reads
 * @param defaultValue the value the code uses when the setting is absent, or null when an absent
 *     setting is simply unset
 * @param defaultNote how the documentation states a default that is not a literal value (e.g. "the
 *     Spark user"), or null to show {@code defaultValue}
 * @param doc what the setting does, in Markdown; links are relative to {@code docs/reference/}
 */
public record DocumentedOption(String key, String defaultValue, String defaultNote, String doc) {
  public DocumentedOption {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(doc, "doc");
  }

  /** An option whose default (null: none) the code uses as written. */
  public static DocumentedOption of(String key, String defaultValue, String doc) {
    return new DocumentedOption(key, defaultValue, null, doc);
  }

  /** An option whose default depends on something else, described in words. */
  public static DocumentedOption noted(String key, String defaultNote, String doc) {
    return new DocumentedOption(key, null, defaultNote, doc);
  }

  /** The default as the reference shows it: the note, the literal value in code font, or "". */
  public String shownDefault() {
    if (defaultNote != null) {
      return defaultNote;
    }
    return defaultValue == null ? "" : "`" + defaultValue + "`";
  }

  /** The same option under {@code prefix + key} (e.g. a catalog option as a session setting). */
  public DocumentedOption withPrefix(String prefix) {
    return new DocumentedOption(prefix + key, defaultValue, defaultNote, doc);
  }
}
