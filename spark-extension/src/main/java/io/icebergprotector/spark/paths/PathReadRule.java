/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.spark.paths;

import io.icebergprotector.policy.TablePolicy;
import io.icebergprotector.spark.compat.ScalaCollections;
import io.icebergprotector.spark.compat.SparkCompat;
import io.icebergprotector.spark.core.ProtectorException;
import java.net.URI;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.hadoop.fs.Path;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.catalog.CatalogTable;
import org.apache.spark.sql.catalyst.catalog.CatalogTablePartition;
import org.apache.spark.sql.catalyst.catalog.SessionCatalog;
import org.apache.spark.sql.catalyst.expressions.Attribute;
import org.apache.spark.sql.catalyst.expressions.NamedExpression;
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan;
import org.apache.spark.sql.catalyst.plans.logical.Project;
import org.apache.spark.sql.catalyst.rules.Rule;
import org.apache.spark.sql.connector.catalog.Table;
import org.apache.spark.sql.execution.datasources.CatalogFileIndex;
import org.apache.spark.sql.execution.datasources.HadoopFsRelation;
import org.apache.spark.sql.execution.datasources.LogicalRelation;
import org.apache.spark.sql.execution.datasources.parquet.ParquetFileFormat;
import org.apache.spark.sql.execution.datasources.v2.DataSourceV2Relation;
import org.apache.spark.sql.execution.datasources.v2.FileTable;
import org.apache.spark.sql.execution.datasources.v2.parquet.ParquetTable;
import scala.Option;

/**
 * Analyzer rule: a Parquet relation under a policy path prefix is read through the principal's view
 * ({@link PathProjection}) — a {@code Project} directly above the relation. Denied columns become
 * NULL literals, so column pruning removes them from the file scan and their keys are never
 * requested; masked columns are masked above the scan, so filters on them cannot reach the Parquet
 * reader as predicates on clear values. The relation is marked ({@link PathViewMark}, in its
 * options) with the principal it was analyzed for, which keeps the rule idempotent, lets {@link
 * PathPlanCheck} verify it at planning time and {@link PathPolicyCryptoFactory} at each file.
 */
final class PathReadRule extends Rule<LogicalPlan> {
  private final SparkSession session;

  PathReadRule(SparkSession session) {
    this.session = session;
  }

  @Override
  public LogicalPlan apply(LogicalPlan plan) {
    if (!plan.exists(PathReadRule::candidate)) {
      return plan;
    }
    Optional<PathScope> scope = PathScope.fromSession(session);
    if (scope.isEmpty()) {
      return plan;
    }
    return plan.resolveOperatorsUp(ScalaCollections.total(node -> rewrite(node, scope.get())));
  }

  private static boolean candidate(LogicalPlan node) {
    return parquetRelation(node) != null || node instanceof DataSourceV2Relation;
  }

  /** The file relation of a Parquet {@code LogicalRelation}, else null. */
  static HadoopFsRelation parquetRelation(LogicalPlan node) {
    if (node instanceof LogicalRelation
        && ((LogicalRelation) node).relation() instanceof HadoopFsRelation) {
      HadoopFsRelation fs = (HadoopFsRelation) ((LogicalRelation) node).relation();
      if (fs.fileFormat() instanceof ParquetFileFormat) {
        return fs;
      }
    }
    return null;
  }

  private LogicalPlan rewrite(LogicalPlan node, PathScope scope) {
    if (node instanceof DataSourceV2Relation) {
      checkNotV2(((DataSourceV2Relation) node).table(), scope);
      return node;
    }
    HadoopFsRelation fs = parquetRelation(node);
    if (fs == null) {
      return node;
    }
    LogicalRelation relation = (LogicalRelation) node;
    String mark = PathViewMark.in(ScalaCollections.asJava(fs.options()));
    if (mark != null) {
      if (!PathViewMark.isIssued(mark)) {
        throw reservedOption(relation);
      }
      return node; // got its view already; PathPlanCheck verifies it is the current principal's
    }
    Optional<Governed> governed = governed(relation, scope, session);
    if (governed.isEmpty()) {
      return node;
    }
    // The marked copy differs from the relation (its options do), so Spark keeps it everywhere in
    // the plan, also where a parent would keep an equal child.
    LogicalRelation marked = marked(relation, PathViewMark.issue(scope.identity()));
    List<Attribute> output = new ArrayList<>(ScalaCollections.asJava(relation.output()));
    List<NamedExpression> view =
        PathProjection.of(output, governed.get().entry, scope, governed.get().location);
    return view == null ? marked : new Project(PathMasks.seq(view), marked);
  }

  private static LogicalRelation marked(LogicalRelation relation, String mark) {
    HadoopFsRelation fs = (HadoopFsRelation) relation.relation();
    // updated() keeps the options' kind (Spark's are case-insensitive)
    scala.collection.immutable.Map<String, String> options =
        fs.options().updated(PathViewMark.OPTION, mark);
    HadoopFsRelation withMark =
        new HadoopFsRelation(
            fs.location(),
            fs.partitionSchema(),
            fs.dataSchema(),
            fs.bucketSpec(),
            fs.fileFormat(),
            options,
            fs.sparkSession());
    LogicalRelation copy = SparkCompat.withRelation(relation, withMark);
    copy.copyTagsFrom(relation);
    return copy;
  }

  static ProtectorException reservedOption(LogicalRelation relation) {
    return new ProtectorException(
        String.format(
            "Refusing to read %s: its options set %s, which only Iceberg Protector sets (remove it"
                + " from the reader or table options)",
            describe(relation), PathViewMark.OPTION));
  }

  static String describe(LogicalRelation relation) {
    if (relation.catalogTable().isDefined()) {
      return "table " + relation.catalogTable().get().identifier().unquotedString();
    }
    HadoopFsRelation fs = (HadoopFsRelation) relation.relation();
    return ScalaCollections.asJava(fs.location().rootPaths()).toString();
  }

  /** The policy entry and the location it governs, for a relation's files. */
  static final class Governed {
    final TablePolicy entry;
    final String location;

    Governed(TablePolicy entry, String location) {
      this.entry = entry;
      this.location = location;
    }
  }

  /**
   * Which policy entry governs a relation, decided per location, never by its root alone: its root
   * paths, the locations of its catalog partitions (a partition may be located under a prefix while
   * the table is not), and every file it lists already; each as written and where it really is
   * (symbolic links resolved). A catalog table's files are listed only at execution, so files there
   * that this misses are refused by {@link PathPolicyCryptoFactory}, which decides per file and
   * sees no mark on them.
   *
   * @throws ProtectorException if one relation spans several policy entries
   */
  static Optional<Governed> governed(
      LogicalRelation relation, PathScope scope, SparkSession session) {
    HadoopFsRelation fs = (HadoopFsRelation) relation.relation();
    Map<String, String> entries = new LinkedHashMap<>(); // entry name -> a governed location
    Map<String, TablePolicy> byName = new LinkedHashMap<>();
    List<String> locations = new ArrayList<>();
    for (Path root : ScalaCollections.asJava(fs.location().rootPaths())) {
      locations.add(root.toString());
    }
    if (relation.catalogTable().isDefined()) {
      locations.addAll(partitionLocations(session, relation.catalogTable().get()));
    }
    if (!(fs.location() instanceof CatalogFileIndex)) {
      // listed when the relation was made: deciding per file costs no listing
      locations.addAll(Arrays.asList(fs.location().inputFiles()));
    }
    for (String location : locations) {
      Optional<TablePolicy> entry = scope.policyFor(location);
      if (entry.isPresent()) {
        entries.putIfAbsent(entry.get().name(), location);
        byName.put(entry.get().name(), entry.get());
      }
    }
    if (entries.isEmpty()) {
      return Optional.empty();
    }
    if (entries.size() > 1) {
      throw new ProtectorException(
          String.format(
              "One Parquet read covers files under several protected prefixes %s of the policy"
                  + " (%s); read each prefix on its own",
              entries.keySet(), scope.policy().origin()));
    }
    String name = entries.keySet().iterator().next();
    return Optional.of(new Governed(byName.get(name), entries.get(name)));
  }

  /** The locations of a partitioned catalog table's partitions (catalog metadata, no listing). */
  static List<String> partitionLocations(SparkSession session, CatalogTable table) {
    List<String> out = new ArrayList<>();
    if (table.partitionColumnNames().isEmpty()) {
      return out;
    }
    SessionCatalog catalog = session.sessionState().catalog();
    for (CatalogTablePartition partition :
        ScalaCollections.asJava(catalog.listPartitions(table.identifier(), Option.empty()))) {
      Option<URI> location = partition.storage().locationUri();
      if (location.isDefined()) {
        out.add(new Path(location.get()).toString());
      }
    }
    return out;
  }

  /** Parquet through the DataSource V2 file source would bypass the view: refuse it. */
  private static void checkNotV2(Table table, PathScope scope) {
    if (!(table instanceof ParquetTable)) {
      return;
    }
    for (Path root : ScalaCollections.asJava(((FileTable) table).fileIndex().rootPaths())) {
      String location = root.toString();
      if (scope.policyFor(location).isPresent() || scope.hasPrefixBelow(location)) {
        throw new ProtectorException(
            String.format(
                "Cannot read %s through Spark's DataSource V2 Parquet source: Iceberg Protector"
                    + " protects policy paths on the V1 source only. Keep 'parquet' in"
                    + " spark.sql.sources.useV1SourceList (Spark's default).",
                location));
      }
    }
  }
}
