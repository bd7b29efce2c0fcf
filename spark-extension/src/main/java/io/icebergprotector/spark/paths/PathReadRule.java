package io.icebergprotector.spark.paths;

import io.icebergprotector.policy.TablePolicy;
import io.icebergprotector.spark.ProtectorException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.hadoop.fs.Path;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.expressions.Attribute;
import org.apache.spark.sql.catalyst.expressions.NamedExpression;
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan;
import org.apache.spark.sql.catalyst.plans.logical.Project;
import org.apache.spark.sql.catalyst.rules.Rule;
import org.apache.spark.sql.connector.catalog.Table;
import org.apache.spark.sql.execution.datasources.HadoopFsRelation;
import org.apache.spark.sql.execution.datasources.LogicalRelation;
import org.apache.spark.sql.execution.datasources.parquet.ParquetFileFormat;
import org.apache.spark.sql.execution.datasources.v2.DataSourceV2Relation;
import org.apache.spark.sql.execution.datasources.v2.FileTable;
import org.apache.spark.sql.execution.datasources.v2.parquet.ParquetTable;
import scala.PartialFunction$;
import scala.jdk.javaapi.CollectionConverters;

/**
 * Analyzer rule: a Parquet relation under a policy path prefix is read through the principal's
 * view ({@link PathProjection}) — a {@code Project} directly above the relation. Denied columns
 * become NULL literals, so column pruning removes them from the file scan and their keys are never
 * requested; masked columns are masked above the scan, so filters on them cannot reach the
 * Parquet reader as predicates on clear values. The relation is tagged with the principal it was
 * analyzed for, which keeps the rule idempotent and lets {@link PathPlanCheck} verify it at
 * planning time.
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
    return plan.resolveOperatorsUp(
        PartialFunction$.MODULE$.fromFunction(node -> rewrite(node, scope.get())));
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

  private static LogicalPlan rewrite(LogicalPlan node, PathScope scope) {
    if (node instanceof DataSourceV2Relation) {
      checkNotV2(((DataSourceV2Relation) node).table(), scope);
      return node;
    }
    HadoopFsRelation fs = parquetRelation(node);
    if (fs == null) {
      return node;
    }
    LogicalRelation relation = (LogicalRelation) node;
    if (relation.getTagValue(PathProtection.VIEW_TAG).isDefined()) {
      return node;
    }
    Optional<Governed> governed = governed(fs, scope);
    if (governed.isEmpty()) {
      return node;
    }
    // Tag a copy: the caller's relation may be analyzed again elsewhere and must get a view too.
    LogicalRelation tagged =
        new LogicalRelation(
            relation.relation(), relation.output(), relation.catalogTable(), relation.isStreaming());
    tagged.copyTagsFrom(relation);
    tagged.setTagValue(PathProtection.VIEW_TAG, scope.identity());
    List<Attribute> output = new ArrayList<>(CollectionConverters.asJava(relation.output()));
    List<NamedExpression> view =
        PathProjection.of(output, governed.get().entry, scope, governed.get().location);
    return view == null ? tagged : new Project(PathMasks.seq(view), tagged);
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
   * Which policy entry governs a relation: the one of its root paths, or, when a root is an
   * ancestor of a policy prefix, the one of the files found below it.
   *
   * @throws ProtectorException if one relation spans several policy entries
   */
  static Optional<Governed> governed(HadoopFsRelation fs, PathScope scope) {
    Map<String, String> entries = new LinkedHashMap<>(); // entry name -> a governed location
    Map<String, TablePolicy> byName = new LinkedHashMap<>();
    boolean ancestor = false;
    for (Path root : CollectionConverters.asJava(fs.location().rootPaths())) {
      String location = root.toString();
      Optional<TablePolicy> entry = scope.policyFor(location);
      if (entry.isPresent()) {
        entries.putIfAbsent(entry.get().name(), location);
        byName.put(entry.get().name(), entry.get());
      } else if (hasPrefixBelow(scope, location)) {
        ancestor = true;
      }
    }
    if (ancestor) {
      for (String file : fs.location().inputFiles()) {
        Optional<TablePolicy> entry = scope.policyFor(file);
        if (entry.isPresent()) {
          entries.putIfAbsent(entry.get().name(), entry.get().name());
          byName.put(entry.get().name(), entry.get());
        }
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

  /** Whether a policy prefix lies below {@code location} (a read of it may include its files). */
  static boolean hasPrefixBelow(PathScope scope, String location) {
    String base = local(location);
    base = base.endsWith("/") ? base : base + "/";
    for (String prefix : scope.policy().paths().keySet()) {
      if (local(prefix).startsWith(base)) {
        return true;
      }
    }
    return false;
  }

  // file:/x, file:///x and /x name the same local path
  private static String local(String location) {
    return location.replaceFirst("^(?i)file:/+", "/");
  }

  /** Parquet through the DataSource V2 file source would bypass the view: refuse it. */
  private static void checkNotV2(Table table, PathScope scope) {
    if (!(table instanceof ParquetTable)) {
      return;
    }
    for (Path root : CollectionConverters.asJava(((FileTable) table).fileIndex().rootPaths())) {
      String location = root.toString();
      if (scope.policyFor(location).isPresent() || hasPrefixBelow(scope, location)) {
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
