/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.spark.analysis;

import io.icebergprotector.policy.TablePolicy;
import io.icebergprotector.spark.compat.ScalaCollections;
import io.icebergprotector.spark.core.ProtectorException;
import io.icebergprotector.spark.paths.PathScope;
import io.icebergprotector.spark.table.ProtectingCatalog;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import org.apache.hadoop.fs.Path;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.TableIdentifier;
import org.apache.spark.sql.catalyst.catalog.CatalogTable;
import org.apache.spark.sql.catalyst.catalog.CatalogTableType;
import org.apache.spark.sql.catalyst.catalog.SessionCatalog;
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan;
import org.apache.spark.sql.execution.command.AlterTableRenameCommand;
import org.apache.spark.sql.execution.command.CreateTableLikeCommand;
import org.apache.spark.sql.execution.datasources.InsertIntoHadoopFsRelationCommand;
import org.apache.spark.sql.execution.datasources.LogicalRelation;
import scala.Option;

/**
 * Non-Iceberg tables of the session catalog whose names the policy lists. The protector protects
 * Iceberg tables (and Parquet files under the policy's {@code paths} prefixes); a {@code USING
 * parquet} table under a protected table's name would store and serve its protected columns in
 * plaintext. With {@code ProtectingSessionCatalog} as {@code spark_catalog}, creating, writing and
 * reading such a table is refused, unless its location is under a protected {@code paths} prefix of
 * the session's {@code spark.protector.*} settings (then path protection applies).
 *
 * <p>Spark runs most of these operations as V1 commands that bypass the catalog ({@code
 * CreateDataSourceTableCommand}, {@code CreateDataSourceTableAsSelectCommand}, {@code
 * InsertIntoHadoopFsRelationCommand}, {@code InsertIntoDataSourceCommand}, Hive's commands), so
 * {@link #checkPlan} looks for every {@link CatalogTable} in the analyzed plan; the catalog checks
 * what does reach it ({@link #check}).
 */
public final class NonIcebergTables {
  private NonIcebergTables() {}

  /** Refuses {@code operation} on a non-Iceberg table the policy lists, unless path-protected. */
  public static void check(
      SparkSession session,
      ProtectingCatalog protecting,
      String tableName,
      String provider,
      String location,
      String operation) {
    if (provider != null && provider.trim().equalsIgnoreCase("iceberg")) {
      return;
    }
    Optional<TablePolicy> entry = protecting.protectorContext().policy().table(tableName);
    if (entry.isEmpty() || pathProtected(session, location)) {
      return;
    }
    String shown = provider == null ? "non-Iceberg" : provider.toLowerCase(Locale.ROOT);
    throw new ProtectorException(
        String.format(
            "Cannot %s %s.%s: the policy %s lists it as a protected table, but it is a %s table"
                + " (location %s), whose protected columns %s would be stored and read in"
                + " plaintext. Create it USING iceberg (drop it first if it exists), or locate it"
                + " under a protected `paths` prefix of the spark.protector.* settings",
            operation,
            protecting.catalogName(),
            entry.get().name(),
            protecting.protectorContext().policy().origin(),
            shown,
            location,
            entry.get().columns().stream().map(c -> c.path()).toList()));
  }

  private static boolean pathProtected(SparkSession session, String location) {
    if (location == null) {
      return false;
    }
    Optional<PathScope> scope = PathScope.fromSession(session);
    return scope.isPresent() && scope.get().policyFor(location).isPresent();
  }

  /** The check rule: every session-catalog table a plan creates, writes or reads. */
  public static void checkPlan(SparkSession session, LogicalPlan plan) {
    ProtectingCatalog protecting =
        ProtectingCatalog.unwrap(session.sessionState().catalogManager().v2SessionCatalog());
    if (protecting == null) {
      return;
    }
    visit(session, protecting, plan);
  }

  private static void visit(SparkSession session, ProtectingCatalog protecting, LogicalPlan node) {
    String operation = operation(node);
    java.util.Iterator<Object> elements = ScalaCollections.asJava(node.productIterator());
    while (elements.hasNext()) {
      Object element = elements.next();
      Object value =
          element instanceof Option && ((Option<?>) element).isDefined()
              ? ((Option<?>) element).get()
              : element;
      if (value instanceof CatalogTable) {
        check(session, protecting, (CatalogTable) value, operation);
      } else if (value instanceof LogicalRelation && !node.children().contains(value)) {
        visit(session, protecting, (LogicalRelation) value); // InsertIntoDataSourceCommand
      }
    }
    if (node instanceof CreateTableLikeCommand) {
      checkCreateLike(session, protecting, (CreateTableLikeCommand) node);
    } else if (node instanceof AlterTableRenameCommand
        && !((AlterTableRenameCommand) node).isView()) {
      checkRename(session, protecting, (AlterTableRenameCommand) node);
    } else if (node instanceof InsertIntoHadoopFsRelationCommand
        && ((InsertIntoHadoopFsRelationCommand) node).catalogTable().isEmpty()) {
      checkPathWrite(session, protecting, ((InsertIntoHadoopFsRelationCommand) node).outputPath());
    }
    List<LogicalPlan> next = new ArrayList<>(ScalaCollections.asJava(node.children()));
    for (Object inner : ScalaCollections.asJava(node.innerChildren())) {
      if (inner instanceof LogicalPlan) {
        next.add((LogicalPlan) inner); // e.g. the query of CreateDataSourceTableAsSelectCommand
      }
    }
    next.addAll(ScalaCollections.asJava(node.subqueries()));
    for (LogicalPlan child : next) {
      visit(session, protecting, child);
    }
  }

  private static String operation(LogicalPlan node) {
    String name = node.nodeName();
    if (name.contains("Create")) {
      return "create";
    } else if (name.contains("Insert") || name.contains("Save")) {
      return "write to";
    }
    return "read";
  }

  private static void check(
      SparkSession session, ProtectingCatalog protecting, CatalogTable table, String operation) {
    checkNamed(
        session,
        protecting,
        table.identifier(),
        table.storage().locationUri(),
        table.provider(),
        operation);
  }

  private static void checkCreateLike(
      SparkSession session, ProtectingCatalog protecting, CreateTableLikeCommand create) {
    // without USING, the new table takes the source table's provider
    Option<String> provider = create.provider();
    SessionCatalog catalog = session.sessionState().catalog();
    if (provider.isEmpty() && catalog.tableExists(create.sourceTable())) {
      try {
        provider = catalog.getTableMetadata(create.sourceTable()).provider();
      } catch (Exception e) {
        // dropped meanwhile: Spark fails the command itself
      }
    }
    checkNamed(
        session,
        protecting,
        create.targetTable(),
        create.fileFormat().locationUri(),
        provider,
        "create");
  }

  /** Renaming a non-Iceberg table to a name the policy lists would make it a "protected" table. */
  private static void checkRename(
      SparkSession session, ProtectingCatalog protecting, AlterTableRenameCommand rename) {
    SessionCatalog catalog = session.sessionState().catalog();
    if (!catalog.tableExists(rename.oldName())) {
      return; // not a V1 table: Spark fails the rename itself
    }
    CatalogTable old;
    try {
      old = catalog.getTableMetadata(rename.oldName());
    } catch (Exception e) {
      return;
    }
    TableIdentifier target =
        rename.newName().database().isDefined()
            ? rename.newName()
            : new TableIdentifier(rename.newName().table(), old.identifier().database());
    // a managed table moves to the new name's default path
    Option<URI> location =
        old.tableType() == CatalogTableType.MANAGED()
            ? Option.empty()
            : old.storage().locationUri();
    checkNamed(session, protecting, target, location, old.provider(), "rename a table to");
  }

  /** A session-catalog table by name; without a location it lives at the default table path. */
  private static void checkNamed(
      SparkSession session,
      ProtectingCatalog protecting,
      TableIdentifier ident,
      Option<URI> location,
      Option<String> provider,
      String operation) {
    SessionCatalog catalog = session.sessionState().catalog();
    String database =
        ident.database().isDefined() ? ident.database().get() : catalog.getCurrentDatabase();
    URI where =
        location.isDefined()
            ? location.get()
            : catalog.defaultTablePath(new TableIdentifier(ident.table(), Option.apply(database)));
    check(
        session,
        protecting,
        database + "." + ident.table(),
        provider.isDefined() ? provider.get() : null,
        qualified(where.toString()),
        operation);
  }

  /** A path write into the location of a listed non-Iceberg table writes that table. */
  private static void checkPathWrite(
      SparkSession session, ProtectingCatalog protecting, Path outputPath) {
    SessionCatalog catalog = session.sessionState().catalog();
    String output = qualified(outputPath.toString());
    for (TablePolicy entry : protecting.protectorContext().policy().tables().values()) {
      String[] parts = entry.name().split("\\.");
      if (parts.length != 2) {
        continue; // the session catalog has one namespace level
      }
      TableIdentifier ident = new TableIdentifier(parts[1], Option.apply(parts[0]));
      if (!catalog.tableExists(ident)) {
        continue;
      }
      CatalogTable table;
      try {
        table = catalog.getTableMetadata(ident);
      } catch (Exception e) {
        continue; // dropped meanwhile
      }
      String location = qualified(table.location().toString());
      if (output.equals(location) || output.startsWith(location + "/")) {
        check(
            session,
            protecting,
            entry.name(),
            table.provider().isDefined() ? table.provider().get() : null,
            location,
            "write files (" + output + ") into the location of");
      }
    }
  }

  /** {@code file:/x} for local paths however written; other URIs as Hadoop prints them. */
  public static String qualified(String location) {
    String path = new Path(location).toString();
    if (path.startsWith("/")) {
      return "file:" + path;
    }
    if (path.endsWith("/") && path.length() > 1) {
      path = path.substring(0, path.length() - 1);
    }
    return path;
  }
}
