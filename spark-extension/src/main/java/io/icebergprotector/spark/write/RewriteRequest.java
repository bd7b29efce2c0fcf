/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.spark.write;

import static io.icebergprotector.policy.Preconditions.checkArgument;

import io.icebergprotector.spark.compat.IcebergOptions;
import io.icebergprotector.spark.core.CatalogOptions;
import java.util.Map;
import org.apache.iceberg.spark.FileRewriteCoordinator;

/**
 * A write that replaces files instead of committing: Iceberg's {@value
 * SparkWriteOptions#REWRITTEN_FILE_SCAN_TASK_SET_ID} names the task set whose files the written
 * rows replace, and the new files are staged with Iceberg's {@link FileRewriteCoordinator} for the
 * rewrite's own commit (Iceberg's {@code rewrite_data_files}, or {@code rewrite_protected}). {@code
 * protector.rewrite.decrypt} (read and write option, set only by {@code rewrite_protected})
 * decrypts columns whose protection was removed from the policy.
 */
public final class RewriteRequest {
  private final String fileSetId;
  private final boolean decrypt;

  private RewriteRequest(String fileSetId, boolean decrypt) {
    this.fileSetId = fileSetId;
    this.decrypt = decrypt;
  }

  /** The rewrite a write's options ask for, or null for an ordinary write. */
  static RewriteRequest fromOptions(Map<String, String> options) {
    String fileSetId = options.get(IcebergOptions.REWRITTEN_FILE_SCAN_TASK_SET_ID);
    boolean decrypt = Boolean.parseBoolean(options.get(CatalogOptions.REWRITE_DECRYPT.key()));
    if (fileSetId == null) {
      checkArgument(
          !decrypt,
          "Invalid %s: it applies only to a rewrite (%s)",
          CatalogOptions.REWRITE_DECRYPT.key(),
          IcebergOptions.REWRITTEN_FILE_SCAN_TASK_SET_ID);
      return null;
    }
    return new RewriteRequest(fileSetId, decrypt);
  }

  /** The task set whose files the written files replace. */
  String fileSetId() {
    return fileSetId;
  }

  boolean decrypt() {
    return decrypt;
  }
}
