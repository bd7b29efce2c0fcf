/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.spark.write;

import io.icebergprotector.spark.compat.IcebergOptions;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import org.apache.spark.sql.connector.write.LogicalWriteInfo;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;

/**
 * A write of one rewrite file group: Spark's write info with the group named in its options, as
 * Iceberg's Spark 3.5 and 4.0 actions name it. Iceberg's Spark 4.1 actions write to a table that
 * stands for the group instead, and the protected table of that group names it here.
 */
public final class RewriteWriteInfo implements LogicalWriteInfo {
  private final LogicalWriteInfo info;
  private final CaseInsensitiveStringMap options;

  public RewriteWriteInfo(LogicalWriteInfo info, String groupId) {
    this.info = info;
    Map<String, String> merged = new HashMap<>(info.options().asCaseSensitiveMap());
    merged.put(IcebergOptions.REWRITTEN_FILE_SCAN_TASK_SET_ID, groupId);
    this.options = new CaseInsensitiveStringMap(merged);
  }

  @Override
  public CaseInsensitiveStringMap options() {
    return options;
  }

  @Override
  public String queryId() {
    return info.queryId();
  }

  @Override
  public StructType schema() {
    return info.schema();
  }

  @Override
  public Optional<StructType> rowIdSchema() {
    return info.rowIdSchema();
  }

  @Override
  public Optional<StructType> metadataSchema() {
    return info.metadataSchema();
  }
}
