package io.icebergprotector.spark.write;

import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Internal write options of a protected rewrite: which files of which snapshot the written rows
 * replace, and whether retired columns are decrypted. Set only by {@code RewriteProtected}.
 */
public final class RewriteRequest {
  public static final String FILES = "protector.rewrite.files";
  public static final String SNAPSHOT_ID = "protector.rewrite.snapshot-id";
  public static final String DECRYPT = "protector.rewrite.decrypt";

  private final Set<String> files;
  private final long snapshotId;
  private final boolean decrypt;

  private RewriteRequest(Set<String> files, long snapshotId, boolean decrypt) {
    this.files = files;
    this.snapshotId = snapshotId;
    this.decrypt = decrypt;
  }

  static RewriteRequest fromOptions(Map<String, String> options) {
    String files = options.get(FILES);
    if (files == null) {
      return null;
    }
    String snapshot = options.get(SNAPSHOT_ID);
    if (snapshot == null) {
      throw new IllegalArgumentException(FILES + " requires " + SNAPSHOT_ID);
    }
    return new RewriteRequest(
        decode(files), Long.parseLong(snapshot), Boolean.parseBoolean(options.get(DECRYPT)));
  }

  /** Paths joined with newlines (file locations never contain one). */
  public static String encode(Set<String> paths) {
    return String.join("\n", paths);
  }

  public static Set<String> decode(String text) {
    return Arrays.stream(text.split("\n"))
        .filter(s -> !s.isEmpty())
        .collect(Collectors.toCollection(LinkedHashSet::new));
  }

  Set<String> files() {
    return files;
  }

  long snapshotId() {
    return snapshotId;
  }

  boolean decrypt() {
    return decrypt;
  }
}
