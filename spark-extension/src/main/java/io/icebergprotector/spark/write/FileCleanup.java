/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.spark.write;

import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import org.apache.iceberg.CatalogUtil;
import org.apache.iceberg.ContentFile;
import org.apache.iceberg.exceptions.NotFoundException;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.SupportsBulkOperations;
import org.apache.iceberg.util.Tasks;
import org.apache.iceberg.util.ThreadPools;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Deletes files written but not committed, as Iceberg 1.11.0's {@code SparkCleanupUtil} does (see
 * FORKS.md): in bulk where the FileIO supports it, else one by one with retries; failures are
 * logged, never thrown over the error that caused the cleanup.
 */
public final class FileCleanup {
  private static final Logger LOG = LoggerFactory.getLogger(FileCleanup.class);
  private static final int RETRIES = 3;
  private static final int MIN_WAIT_MS = 100;
  private static final int MAX_WAIT_MS = 30 * 1000;
  private static final int TOTAL_WAIT_MS = 2 * 60 * 1000;

  private FileCleanup() {}

  /**
   * @param context what is cleaned up, for the log
   */
  public static void deleteFiles(String context, FileIO io, List<? extends ContentFile<?>> files) {
    List<String> paths = files.stream().map(ContentFile::location).collect(Collectors.toList());
    if (paths.isEmpty()) {
      return;
    }
    if (io instanceof SupportsBulkOperations) {
      try {
        CatalogUtil.deleteFiles(io, paths, "", true);
      } catch (RuntimeException e) {
        LOG.warn("Could not delete every file of {}", context, e);
      }
      return;
    }
    AtomicInteger deleted = new AtomicInteger();
    Tasks.foreach(paths)
        .executeWith(ThreadPools.getWorkerPool())
        .stopRetryOn(NotFoundException.class)
        .suppressFailureWhenFinished()
        .onFailure((path, e) -> LOG.warn("Failed to delete {} ({})", path, context, e))
        .retry(RETRIES)
        .exponentialBackoff(MIN_WAIT_MS, MAX_WAIT_MS, TOTAL_WAIT_MS, 2)
        .run(
            path -> {
              io.deleteFile(path);
              deleted.incrementAndGet();
            });
    if (deleted.get() < paths.size()) {
      LOG.warn("Deleted only {} of {} file(s) ({})", deleted.get(), paths.size(), context);
    } else {
      LOG.info("Deleted {} file(s) ({})", paths.size(), context);
    }
  }
}
