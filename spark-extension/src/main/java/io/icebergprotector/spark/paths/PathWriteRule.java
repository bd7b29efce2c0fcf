/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.spark.paths;

import io.icebergprotector.policy.ColumnPolicy;
import io.icebergprotector.policy.TablePolicy;
import io.icebergprotector.spark.compat.ScalaCollections;
import io.icebergprotector.spark.core.ProtectorException;
import io.icebergprotector.spark.core.StrictSchema;
import io.icebergprotector.spark.core.TokenizedColumns;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import org.apache.hadoop.conf.Configuration;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.catalog.BucketSpec;
import org.apache.spark.sql.catalyst.expressions.Attribute;
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan;
import org.apache.spark.sql.catalyst.rules.Rule;
import org.apache.spark.sql.execution.datasources.InsertIntoHadoopFsRelationCommand;
import org.apache.spark.sql.execution.datasources.parquet.ParquetFileFormat;

/**
 * Post-hoc analyzer rule for Parquet writes ({@code df.write.parquet}, {@code INSERT} into a
 * Parquet table, CTAS) under a policy path prefix. It refuses, with a message naming principal,
 * path and policy: a principal that is not one of the prefix's writers; partitioning or bucketing
 * by a protected column (directory names and bucket ids are plaintext); under a strict entry a
 * column that is neither protected nor plain ({@link StrictSchema}); a partition located under a
 * prefix that does not govern its table's location; Parquet summary files; and a job whose {@code
 * parquet.crypto.factory.class} is not the protector's (the files would be written without the
 * policy's encryption). Locations are matched normalized and with symbolic links resolved ({@link
 * PathScope#policyFor}). The encryption itself happens in {@link PathPolicyCryptoFactory}, per
 * file, which checks writers and strictness again.
 */
final class PathWriteRule extends Rule<LogicalPlan> {
  private final SparkSession session;

  PathWriteRule(SparkSession session) {
    this.session = session;
  }

  @Override
  public LogicalPlan apply(LogicalPlan plan) {
    if (plan instanceof InsertIntoHadoopFsRelationCommand) {
      check((InsertIntoHadoopFsRelationCommand) plan);
    }
    return plan;
  }

  private void check(InsertIntoHadoopFsRelationCommand write) {
    if (!(write.fileFormat() instanceof ParquetFileFormat)) {
      return;
    }
    Optional<PathScope> maybeScope = PathScope.fromSession(session);
    if (maybeScope.isEmpty()) {
      return;
    }
    PathScope scope = maybeScope.get();
    String location = write.outputPath().toString();
    Optional<TablePolicy> maybeEntry = scope.policyFor(location);
    checkPartitionLocations(write, scope, location, maybeEntry);
    if (maybeEntry.isEmpty()) {
      if (scope.hasPrefixBelow(location)) {
        checkFactory(write, scope, location);
      }
      return;
    }
    TablePolicy entry = maybeEntry.get();
    TokenizedColumns.refuse(entry);
    scope.checkWrite(entry, location);
    checkFactory(write, scope, location);
    List<String> partitioning = new ArrayList<>();
    for (Attribute a : ScalaCollections.asJava(write.partitionColumns())) {
      partitioning.add(a.name());
    }
    if (write.bucketSpec().isDefined()) {
      BucketSpec bucketing = write.bucketSpec().get();
      partitioning.addAll(ScalaCollections.asJava(bucketing.bucketColumnNames()));
    }
    for (String column : partitioning) {
      for (ColumnPolicy protectedColumn : entry.columns()) {
        if (protectedColumn.pathParts().get(0).equalsIgnoreCase(column)) {
          throw new ProtectorException(
              String.format(
                  "Cannot write %s partitioned or bucketed by protected column '%s': directory"
                      + " names and bucket ids are plaintext (policy %s, prefix %s)",
                  location, column, scope.policy().origin(), entry.name()));
        }
      }
    }
    StrictSchema.check(entry, write.query().schema(), location, scope.policy().origin());
  }

  /**
   * Spark writes the files of a partition with its own location (a catalog table's {@code ALTER
   * TABLE ... ADD PARTITION ... LOCATION}) to a staging directory under the table's location first,
   * and moves them there when the job commits. Encryption is decided where a file is written, so a
   * partition under a prefix that does not also govern the table's location would receive files
   * that were not encrypted for it: refused.
   */
  private void checkPartitionLocations(
      InsertIntoHadoopFsRelationCommand write,
      PathScope scope,
      String location,
      Optional<TablePolicy> tableEntry) {
    if (write.catalogTable().isEmpty()) {
      return;
    }
    for (String partition : PathReadRule.partitionLocations(session, write.catalogTable().get())) {
      Optional<TablePolicy> entry = scope.policyFor(partition);
      if (entry.isPresent()
          && (tableEntry.isEmpty() || !tableEntry.get().name().equals(entry.get().name()))) {
        throw new ProtectorException(
            String.format(
                "Cannot write %s: its partition location %s is under protected prefix %s of the"
                    + " policy %s, but the table's location is not; Spark stages such partitions"
                    + " under the table's location, where they would not be encrypted. Locate the"
                    + " table under the prefix, or the partition outside it.",
                location, partition, entry.get().name(), scope.policy().origin()));
      }
    }
  }

  private void checkFactory(
      InsertIntoHadoopFsRelationCommand write, PathScope scope, String location) {
    Configuration conf = session.sessionState().newHadoopConfWithOptions(write.options());
    String factory = conf.get(PathProtection.FACTORY_PROPERTY);
    if (factory == null) {
      PathProtection.installFactory(session.sparkContext());
    } else if (!factory.equals(PathPolicyCryptoFactory.class.getName())) {
      throw new ProtectorException(
          String.format(
              "Cannot write %s: it is under a protected prefix of the policy %s, but this job's %s"
                  + " is %s, which would not apply the policy's encryption. Remove that setting"
                  + " (the protector extension sets %s).",
              location,
              scope.policy().origin(),
              PathProtection.FACTORY_PROPERTY,
              factory,
              PathPolicyCryptoFactory.class.getName()));
    }
    String summary = conf.get("parquet.summary.metadata.level");
    boolean summaries =
        summary != null && !"NONE".equals(summary.trim().toUpperCase(Locale.ROOT))
            || conf.getBoolean("parquet.enable.summary-metadata", false);
    if (summaries) {
      throw new ProtectorException(
          String.format(
              "Cannot write %s with Parquet summary files (parquet.summary.metadata.level=%s):"
                  + " under a protected prefix every file must be encrypted; unset it",
              location, summary));
    }
  }
}
