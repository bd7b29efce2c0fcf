/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.spark.read;

import static io.icebergprotector.policy.Preconditions.checkState;

import io.icebergprotector.spark.compat.IcebergConfs;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.ScanTask;
import org.apache.iceberg.ScanTaskGroup;
import org.apache.iceberg.Table;
import org.apache.iceberg.spark.source.SparkMicroBatchStream;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.connector.read.InputPartition;
import org.apache.spark.sql.connector.read.PartitionReaderFactory;
import org.apache.spark.sql.connector.read.Scan;
import org.apache.spark.sql.connector.read.streaming.MicroBatchStream;
import org.apache.spark.sql.connector.read.streaming.Offset;
import org.apache.spark.sql.connector.read.streaming.ReadLimit;
import org.apache.spark.sql.connector.read.streaming.SupportsTriggerAvailableNow;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;

/**
 * A micro-batch read of a protected table ({@code spark.readStream.table(...)}). Which snapshots
 * and files each batch covers is Iceberg's business: an Iceberg {@link SparkMicroBatchStream} over
 * the same table and read options keeps the offsets (the checkpoint holds Iceberg's own offset
 * format), the read limits ({@code streaming-max-files-per-micro-batch}, ...), the skipping of
 * delete and overwrite snapshots and {@code Trigger.AvailableNow}. It plans metadata only: its
 * files are read by this stream's {@link ProtectedScan}, with the projection, masks and keys of the
 * principal the query's session acts as when the query starts, exactly like a batch read. Every
 * file is admitted by file binding before a batch reads it.
 *
 * <p>Iceberg's stream returns its files inside its own input partitions, whose class is package
 * private; {@link #tasksOf} reads their task group through the public accessor (see FORKS.md).
 */
final class ProtectedMicroBatchStream implements MicroBatchStream, SupportsTriggerAvailableNow {
  private final ProtectedScan scan;
  private final SparkMicroBatchStream offsets;

  private ProtectedMicroBatchStream(ProtectedScan scan, SparkMicroBatchStream offsets) {
    this.scan = scan;
    this.offsets = offsets;
  }

  static ProtectedMicroBatchStream create(
      SparkSession spark,
      ProtectedScan scan,
      CaseInsensitiveStringMap options,
      String checkpointLocation) {
    Table table = scan.table();
    // Iceberg's scan of the same table and options, used for offsets and planning only
    Scan iceberg = IcebergConfs.sparkTable(table).newScanBuilder(options).build();
    MicroBatchStream stream = iceberg.toMicroBatchStream(checkpointLocation);
    checkState(
        stream instanceof SparkMicroBatchStream,
        "Expected Iceberg's SparkMicroBatchStream for %s, got %s",
        table.name(),
        stream.getClass().getName());
    return new ProtectedMicroBatchStream(scan, (SparkMicroBatchStream) stream);
  }

  @Override
  public InputPartition[] planInputPartitions(Offset start, Offset end) {
    InputPartition[] planned = offsets.planInputPartitions(start, end);
    List<FileScanTask> all = new ArrayList<>();
    List<List<FileScanTask>> groups = new ArrayList<>();
    for (InputPartition partition : planned) {
      List<FileScanTask> tasks = tasksOf(partition);
      groups.add(tasks);
      all.addAll(tasks);
    }
    scan.admit(all);
    InputPartition[] partitions = new InputPartition[groups.size()];
    for (int i = 0; i < partitions.length; i++) {
      partitions[i] = new ProtectedInputPartition(groups.get(i), scan);
    }
    return partitions;
  }

  @Override
  public PartitionReaderFactory createReaderFactory() {
    return scan.createReaderFactory();
  }

  @Override
  public Offset latestOffset() {
    return offsets.latestOffset();
  }

  @Override
  public Offset latestOffset(Offset startOffset, ReadLimit limit) {
    return offsets.latestOffset(startOffset, limit);
  }

  @Override
  public ReadLimit getDefaultReadLimit() {
    return offsets.getDefaultReadLimit();
  }

  @Override
  public void prepareForTriggerAvailableNow() {
    offsets.prepareForTriggerAvailableNow();
  }

  @Override
  public Offset initialOffset() {
    return offsets.initialOffset();
  }

  @Override
  public Offset deserializeOffset(String json) {
    return offsets.deserializeOffset(json);
  }

  @Override
  public void commit(Offset end) {
    offsets.commit(end);
  }

  @Override
  public void stop() {
    offsets.stop();
  }

  @Override
  public String toString() {
    return "ProtectedMicroBatchStream[" + scan.description() + "]";
  }

  private static volatile Method taskGroup = null;

  /** The file scan tasks of one of Iceberg's input partitions ({@code SparkInputPartition}). */
  static List<FileScanTask> tasksOf(InputPartition partition) {
    ScanTaskGroup<?> group;
    try {
      Method accessor = taskGroup;
      if (accessor == null || accessor.getDeclaringClass() != partition.getClass()) {
        accessor = partition.getClass().getMethod("taskGroup");
        accessor.setAccessible(true); // a public method of a package-private class
        taskGroup = accessor;
      }
      group = (ScanTaskGroup<?>) accessor.invoke(partition);
    } catch (NoSuchMethodException | IllegalAccessException | RuntimeException e) {
      throw new IllegalStateException(
          "Cannot read the files of Iceberg's micro-batch input partition "
              + partition.getClass().getName()
              + ": this Iceberg version's SparkInputPartition differs from 1.11.0 (see FORKS.md)",
          e);
    } catch (InvocationTargetException e) {
      throw new IllegalStateException(
          "Cannot read the files of Iceberg's micro-batch input partition", e.getCause());
    }
    List<FileScanTask> files = new ArrayList<>();
    for (ScanTask task : group.tasks()) {
      checkState(
          task instanceof FileScanTask,
          "Iceberg planned a micro-batch task that is not a data file scan: %s",
          task);
      files.add((FileScanTask) task);
    }
    return files;
  }
}
