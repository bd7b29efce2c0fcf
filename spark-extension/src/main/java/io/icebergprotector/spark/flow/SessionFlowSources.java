package io.icebergprotector.spark.flow;

import io.icebergprotector.policy.Access;
import io.icebergprotector.policy.AccessLevel;
import io.icebergprotector.policy.ColumnPolicy;
import io.icebergprotector.policy.TablePolicy;
import io.icebergprotector.spark.compat.ScalaCollections;
import io.icebergprotector.spark.paths.PathProtection;
import io.icebergprotector.spark.paths.PathScope;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.expressions.Attribute;
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan;
import org.apache.spark.sql.catalyst.plans.logical.Project;
import org.apache.spark.sql.execution.datasources.LogicalRelation;
import org.apache.spark.sql.execution.datasources.v2.DataSourceV2Relation;

/**
 * The protected sources of a session: Iceberg tables of a protecting catalog ({@link
 * IcebergTables}; their scan applies the view) and Parquet relations under a policy prefix (whose
 * view is the {@code Project} the analyzer put right above them).
 */
final class SessionFlowSources implements FlowSources {
  private final SparkSession session;
  private final Supplier<Optional<PathScope>> pathScope;

  SessionFlowSources(SparkSession session, Supplier<Optional<PathScope>> pathScope) {
    this.session = session;
    this.pathScope = pathScope;
  }

  @Override
  public List<Set<Flow>> flowsOf(LogicalPlan node) {
    if (node instanceof DataSourceV2Relation && IcebergFlows.INSTANCE != null) {
      return IcebergFlows.INSTANCE.sourceFlows((DataSourceV2Relation) node, session);
    }
    if (node instanceof Project && PathProtection.hasView(((Project) node).child())) {
      // the principal's view of a Parquet relation: column i of the view is column i of the files
      return pathFlows(((Project) node).child());
    }
    return pathFlows(node);
  }

  private List<Set<Flow>> pathFlows(LogicalPlan relation) {
    if (!(relation instanceof LogicalRelation)) {
      return null;
    }
    Optional<PathScope> maybeScope = pathScope.get();
    if (maybeScope.isEmpty()) {
      return null;
    }
    PathScope scope = maybeScope.get();
    Optional<TablePolicy> entry = PathProtection.governingEntry(relation, scope, session);
    if (entry.isEmpty()) {
      return null;
    }
    FlowSource source =
        new FlowSource(
            "path prefix",
            entry.get().name(),
            entry.get(),
            scope.policy(),
            scope.principal(),
            scope.context().kms());
    List<Set<Flow>> out = new ArrayList<>();
    for (Attribute attribute : ScalaCollections.asJava(relation.output())) {
      Set<Flow> flows = new LinkedHashSet<>();
      for (ColumnPolicy column : entry.get().columns()) {
        List<String> parts = column.pathParts();
        if (!parts.get(0).equalsIgnoreCase(attribute.name())) {
          continue;
        }
        Access access = column.accessFor(scope.roles());
        flows.add(
            new Flow(
                source,
                column.path(),
                column.path(),
                access.level(),
                access.level() == AccessLevel.MASKED ? access.mask().spec() : null,
                parts.subList(1, parts.size())));
      }
      out.add(flows);
    }
    return out;
  }
}
