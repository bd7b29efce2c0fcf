package io.icebergprotector.spark.flow;

import io.icebergprotector.policy.Access;
import io.icebergprotector.policy.AccessLevel;
import io.icebergprotector.policy.ColumnPolicy;
import io.icebergprotector.policy.TablePolicy;
import io.icebergprotector.spark.ColumnProtection;
import io.icebergprotector.spark.ProtectedTable;
import io.icebergprotector.spark.ProtectionSpec;
import io.icebergprotector.spark.paths.PathProtection;
import io.icebergprotector.spark.paths.PathScope;
import io.icebergprotector.spark.write.RewriteRequest;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;
import org.apache.iceberg.Schema;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;
import org.apache.spark.sql.catalyst.expressions.Attribute;
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan;
import org.apache.spark.sql.catalyst.plans.logical.Project;
import org.apache.spark.sql.execution.datasources.LogicalRelation;
import org.apache.spark.sql.execution.datasources.v2.DataSourceV2Relation;
import scala.jdk.javaapi.CollectionConverters;

/**
 * The protected sources of a session: Iceberg tables of a protecting catalog ({@link
 * ProtectedTable}, whose scan applies the view) and Parquet relations under a policy prefix (whose
 * view is the {@code Project} the analyzer put right above them).
 */
final class SessionFlowSources implements FlowSources {
  private final Supplier<Optional<PathScope>> pathScope;

  SessionFlowSources(Supplier<Optional<PathScope>> pathScope) {
    this.pathScope = pathScope;
  }

  @Override
  public List<Set<Flow>> flowsOf(LogicalPlan node) {
    if (node instanceof DataSourceV2Relation
        && ((DataSourceV2Relation) node).table() instanceof ProtectedTable) {
      return tableFlows((DataSourceV2Relation) node);
    }
    if (node instanceof Project && PathProtection.hasView(((Project) node).child())) {
      // the principal's view of a Parquet relation: column i of the view is column i of the files
      return pathFlows(((Project) node).child());
    }
    return pathFlows(node);
  }

  /**
   * The protection of a table for the principal whose view its scan returns. This is the one place
   * that asks: protection bound to the session principal at scan time changes only this.
   */
  static ProtectionSpec protectionOf(ProtectedTable table) {
    return table.protection();
  }

  private static List<Set<Flow>> tableFlows(DataSourceV2Relation relation) {
    ProtectedTable table = (ProtectedTable) relation.table();
    ProtectionSpec spec = protectionOf(table);
    // a decrypt-rewrite reads retired columns in clear to store them unprotected, as the policy
    // says
    boolean decrypting = Boolean.parseBoolean(relation.options().get(RewriteRequest.DECRYPT));
    FlowSource source =
        new FlowSource(
            "table",
            relation.name(),
            spec.policy().table(spec.tableName()).orElseThrow(),
            spec.policy(),
            spec.principal(),
            spec.kms());
    Schema schema = table.table().schema();
    List<Set<Flow>> out = new ArrayList<>();
    for (Attribute attribute : CollectionConverters.asJava(relation.output())) {
      Set<Flow> flows = new LinkedHashSet<>();
      for (ColumnProtection column : spec.columns().values()) {
        boolean retired = spec.retiredFieldIds().contains(column.fieldId());
        List<String> path = shortPath(schema, column.fieldId());
        if ((retired && decrypting)
            || path.isEmpty()
            || !path.get(0).equalsIgnoreCase(attribute.name())) {
          continue;
        }
        flows.add(
            new Flow(
                source,
                column.path(),
                column.policyPath(),
                column.level(),
                column.mask() == null ? null : column.mask().spec(),
                path.subList(1, path.size())));
      }
      out.add(flows);
    }
    return out;
  }

  /** A field's path without the {@code element} / {@code value} steps through lists and maps. */
  private static List<String> shortPath(Schema schema, int fieldId) {
    String name = schema.findColumnName(fieldId);
    if (name == null) {
      return List.of();
    }
    List<String> parts = Arrays.asList(name.split("\\."));
    List<String> out = new ArrayList<>();
    Type type = schema.asStruct();
    for (String part : parts) {
      if (type instanceof Types.ListType || type instanceof Types.MapType) {
        type = ((Type.NestedType) type).fieldType(part);
        continue; // Spark addresses the list's struct fields directly
      }
      out.add(part);
      type = type != null && type.isNestedType() ? type.asNestedType().fieldType(part) : null;
    }
    return out;
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
    Optional<TablePolicy> entry = PathProtection.governingEntry(relation, scope);
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
    for (Attribute attribute : CollectionConverters.asJava(relation.output())) {
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
