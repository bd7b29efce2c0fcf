package io.icebergprotector.spark.read;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.iceberg.CombinedScanTask;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.util.TableScanUtil;

/**
 * Packs file scan tasks planned elsewhere (a rewrite's staged tasks, the files of a micro-batch)
 * into the splits of a protected scan, as Iceberg's {@code SparkStagedScan} and {@code
 * SparkMicroBatchStream} pack theirs: files are split at the split size, then bin-packed with the
 * lookback and open-file cost.
 */
final class StagedTasks {
  private StagedTasks() {}

  static List<List<FileScanTask>> group(
      List<FileScanTask> tasks, long splitSize, int lookback, long openFileCost) {
    List<List<FileScanTask>> groups = new ArrayList<>();
    if (tasks.isEmpty()) {
      return groups;
    }
    CloseableIterable<FileScanTask> splits =
        TableScanUtil.splitFiles(CloseableIterable.withNoopClose(tasks), splitSize);
    try (CloseableIterable<CombinedScanTask> combined =
        TableScanUtil.planTasks(splits, splitSize, lookback, openFileCost)) {
      for (CombinedScanTask group : combined) {
        groups.add(new ArrayList<>(group.files()));
      }
    } catch (IOException e) {
      throw new UncheckedIOException("Failed to pack staged file scan tasks into splits", e);
    }
    return groups;
  }
}
