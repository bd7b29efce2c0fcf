/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.spark.flow;

import io.icebergprotector.spark.compat.ScalaCollections;
import java.util.ArrayDeque;
import java.util.Collections;
import java.util.Deque;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import org.apache.spark.Dependency;
import org.apache.spark.Partition;
import org.apache.spark.rdd.RDD;
import org.apache.spark.sql.connector.read.InputPartition;
import org.apache.spark.sql.execution.datasources.FilePartition;
import org.apache.spark.sql.execution.datasources.FileScanRDD;
import org.apache.spark.sql.execution.datasources.PartitionedFile;
import org.apache.spark.sql.execution.datasources.v2.DataSourceRDD;
import org.apache.spark.sql.execution.datasources.v2.DataSourceRDDPartition;

/**
 * The protected reads behind an RDD: {@code spark.createDataFrame(df.rdd(), schema)}, a {@code
 * foreachBatch} batch and {@code spark.createDataset(rdd)} hide the plan they came from, but not
 * the RDD's dependencies. Walking them (shuffles and caches included) reaches the scans that
 * produced the rows: the partitions of a protected table's scan know that scan (and so the
 * principal's view it returned), and file partitions name the files, which the policy's path
 * prefixes govern.
 *
 * <p>What the RDD did with the rows between the scan and the DataFrame is code, not a plan: every
 * column of the result is taken to carry every protected column the scans read, as read. Lineage
 * ends where Spark cuts it: a checkpoint ({@code checkpoint()}, {@code localCheckpoint()}), rows
 * collected to the driver and parallelized again, and the build side of a broadcast join (a
 * broadcast variable, not a dependency).
 */
final class RddLineage {
  private final Function<String, Set<Flow>> filesUnder;
  private final Map<String, Set<Flow>> byDirectory = new HashMap<>();
  private final Set<Flow> out = new LinkedHashSet<>();

  private RddLineage(Function<String, Set<Flow>> filesUnder) {
    this.filesUnder = filesUnder;
  }

  /**
   * The protected columns that reach {@code rdd}'s rows.
   *
   * @param filesUnder the flows of every protected column of the path-prefix entry governing a file
   *     location, empty for ungoverned files
   */
  static Set<Flow> of(RDD<?> rdd, Function<String, Set<Flow>> filesUnder) {
    RddLineage lineage = new RddLineage(filesUnder);
    lineage.walk(rdd);
    return lineage.out;
  }

  private void walk(RDD<?> root) {
    Set<RDD<?>> seen = Collections.newSetFromMap(new IdentityHashMap<>());
    Deque<RDD<?>> todo = new ArrayDeque<>();
    todo.push(root);
    while (!todo.isEmpty()) {
      RDD<?> rdd = todo.pop();
      if (!seen.add(rdd)) {
        continue;
      }
      // only scans' partitions: they are planned already, and asking costs nothing
      if (rdd instanceof DataSourceRDD || rdd instanceof FileScanRDD) {
        for (Partition partition : rdd.partitions()) {
          partition(partition);
        }
      }
      for (Dependency<?> dependency : ScalaCollections.asJava(rdd.dependencies())) {
        todo.push(dependency.rdd());
      }
    }
  }

  private void partition(Partition partition) {
    if (partition instanceof DataSourceRDDPartition) {
      for (InputPartition input :
          ScalaCollections.asJava(((DataSourceRDDPartition) partition).inputPartitions())) {
        Set<Flow> scanned =
            IcebergFlows.INSTANCE == null ? null : IcebergFlows.INSTANCE.partitionFlows(input);
        if (scanned != null) {
          out.addAll(scanned);
        } else if (input instanceof FilePartition) {
          files((FilePartition) input);
        }
      }
    } else if (partition instanceof FilePartition) {
      files((FilePartition) partition);
    }
  }

  private void files(FilePartition partition) {
    for (PartitionedFile file : partition.files()) {
      String location = file.filePath().toString();
      int slash = location.lastIndexOf('/');
      // a prefix governs directories: the files of one directory share their entry
      String directory = slash < 0 ? location : location.substring(0, slash);
      out.addAll(byDirectory.computeIfAbsent(directory, d -> filesUnder.apply(location)));
    }
  }
}
