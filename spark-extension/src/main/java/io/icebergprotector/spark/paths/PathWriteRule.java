package io.icebergprotector.spark.paths;

import io.icebergprotector.policy.ColumnPolicy;
import io.icebergprotector.policy.TablePolicy;
import io.icebergprotector.spark.ProtectorException;
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
import scala.jdk.javaapi.CollectionConverters;

/**
 * Post-hoc analyzer rule for Parquet writes ({@code df.write.parquet}, {@code INSERT} into a
 * Parquet table, CTAS) under a policy path prefix. It refuses, with a message naming principal,
 * path and policy: a principal that is not one of the prefix's writers; partitioning or bucketing
 * by a protected column (directory names and bucket ids are plaintext); Parquet summary files; and
 * a job whose {@code parquet.crypto.factory.class} is not the protector's (the files would be
 * written without the policy's encryption). The encryption itself happens in {@link
 * PathPolicyCryptoFactory}, per file.
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
    if (maybeEntry.isEmpty()) {
      if (PathReadRule.hasPrefixBelow(scope, location)) {
        checkFactory(write, scope, location);
      }
      return;
    }
    TablePolicy entry = maybeEntry.get();
    scope.checkWrite(entry, location);
    checkFactory(write, scope, location);
    List<String> partitioning = new ArrayList<>();
    for (Attribute a : CollectionConverters.asJava(write.partitionColumns())) {
      partitioning.add(a.name());
    }
    if (write.bucketSpec().isDefined()) {
      BucketSpec bucketing = write.bucketSpec().get();
      partitioning.addAll(CollectionConverters.asJava(bucketing.bucketColumnNames()));
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
  }

  private void checkFactory(InsertIntoHadoopFsRelationCommand write, PathScope scope, String location) {
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
              location, scope.policy().origin(), PathProtection.FACTORY_PROPERTY, factory,
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
