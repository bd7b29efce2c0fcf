/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.spark;

import static org.assertj.core.api.Assertions.assertThat;

import io.icebergprotector.spark.crypto.FileMarker;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Table;
import org.apache.iceberg.io.CloseableIterable;

/** The files of a local Iceberg table, for tests that look at what is at rest. */
public final class TableFiles {
  private TableFiles() {}

  /** The table's directory. */
  public static Path location(Table table) {
    return Path.of(URI.create(table.location()));
  }

  /** The data files of the table's current snapshot, with their column metrics. */
  public static List<DataFile> liveFiles(Table table) {
    List<DataFile> files = new ArrayList<>();
    try (CloseableIterable<FileScanTask> tasks = table.newScan().includeColumnStats().planFiles()) {
      tasks.forEach(t -> files.add(t.file().copy()));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return files;
  }

  /** How many Parquet data files the table's data directory holds, live or not. */
  public static long writtenDataFiles(Table table) {
    Path data = location(table).resolve("data");
    if (!Files.exists(data)) {
      return 0;
    }
    try (java.util.stream.Stream<Path> files = Files.walk(data)) {
      return files.filter(p -> p.toString().endsWith(".parquet")).count();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * Every file is marked as bound by the protector and its manifest entry holds no metric (column
   * size, counts, bounds) of the protected {@code columns}; an unprotected column keeps its bounds.
   */
  public static void assertBoundWithoutProtectedMetrics(
      Table table, Collection<DataFile> files, Collection<String> columns, String unprotected) {
    Set<Integer> protectedIds =
        columns.stream()
            .map(name -> table.schema().findField(name).fieldId())
            .collect(Collectors.toSet());
    int unprotectedId = table.schema().findField(unprotected).fieldId();
    assertThat(files)
        .isNotEmpty()
        .allSatisfy(
            f -> {
              assertThat(FileMarker.kindOf(f))
                  .as("marker of %s", f.location())
                  .isEqualTo(FileMarker.Kind.BOUND);
              for (Map<Integer, ?> metrics :
                  List.of(
                      nonNull(f.columnSizes()),
                      nonNull(f.valueCounts()),
                      nonNull(f.nullValueCounts()),
                      nonNull(f.lowerBounds()),
                      nonNull(f.upperBounds()))) {
                assertThat(metrics.keySet()).doesNotContainAnyElementsOf(protectedIds);
              }
              assertThat(nonNull(f.lowerBounds())).containsKey(unprotectedId);
            });
  }

  public static byte[] bytesOf(DataFile file) {
    try {
      return Files.readAllBytes(Path.of(URI.create(file.location())));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * Overwrites a data file in place. Hadoop's local file system would notice through its {@code
   * .crc} sidecar, which object stores do not have: drop it so the read reaches Parquet.
   */
  public static void overwrite(DataFile file, byte[] bytes) {
    Path path = Path.of(URI.create(file.location()));
    try {
      Files.write(path, bytes);
      Files.deleteIfExists(path.resolveSibling("." + path.getFileName() + ".crc"));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static <V> Map<Integer, V> nonNull(Map<Integer, V> map) {
    return map == null ? Map.of() : map;
  }
}
