/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.spark.flow;

import io.icebergprotector.policy.TablePolicy;
import io.icebergprotector.spark.compat.ScalaCollections;
import io.icebergprotector.spark.paths.PathScope;
import java.lang.reflect.Method;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.analysis.NamedRelation;
import org.apache.spark.sql.catalyst.analysis.ResolvedIdentifier;
import org.apache.spark.sql.catalyst.catalog.CatalogTable;
import org.apache.spark.sql.catalyst.expressions.Attribute;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.plans.logical.CreateTableAsSelect;
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan;
import org.apache.spark.sql.catalyst.plans.logical.ReplaceData;
import org.apache.spark.sql.catalyst.plans.logical.ReplaceTableAsSelect;
import org.apache.spark.sql.catalyst.plans.logical.TableSpecBase;
import org.apache.spark.sql.catalyst.plans.logical.V2WriteCommand;
import org.apache.spark.sql.catalyst.plans.logical.WriteDelta;
import org.apache.spark.sql.connector.catalog.CatalogPlugin;
import org.apache.spark.sql.connector.catalog.Identifier;
import org.apache.spark.sql.connector.catalog.Table;
import org.apache.spark.sql.execution.command.CreateDataSourceTableAsSelectCommand;
import org.apache.spark.sql.execution.command.DataWritingCommand;
import org.apache.spark.sql.execution.command.InsertIntoDataSourceDirCommand;
import org.apache.spark.sql.execution.datasources.DataSource$;
import org.apache.spark.sql.execution.datasources.InsertIntoDataSourceCommand;
import org.apache.spark.sql.execution.datasources.InsertIntoHadoopFsRelationCommand;
import org.apache.spark.sql.execution.datasources.SaveIntoDataSourceCommand;
import org.apache.spark.sql.execution.datasources.parquet.ParquetFileFormat;
import org.apache.spark.sql.execution.datasources.v2.DataSourceV2Relation;
import scala.runtime.BoxedUnit;

/**
 * The writes in an analyzed plan: what each stores (its query), under which column names, and
 * where. V2 writes (INSERT, {@code writeTo}, CTAS/RTAS, MERGE/UPDATE rewrites) and V1 writes
 * ({@code df.write.parquet}, {@code saveAsTable}, {@code INSERT} into a file table, {@code INSERT
 * OVERWRITE DIRECTORY}, other data sources, and Hive's commands through {@link
 * DataWritingCommand}).
 */
final class PlanWrites {
  /**
   * One write: column i of {@code query} is stored as {@code columns.get(i)} (null: not data).
   *
   * @param anchor a node of this write command that stays the same instance when Spark analyzes the
   *     command again to run it (Spark may copy the command itself), and is new in every other
   *     write: the target relation of a V2 write, the resolved name of a CTAS, else the command
   */
  /**
   * A write of {@code query}'s columns into {@code destination}. {@code rowConditions} are the
   * conditions that select the rows a DELETE, UPDATE or MERGE changes: Spark's rewrite of an UPDATE
   * puts them into an {@code IF} around every column, where they pick rows, as a WHERE does, and
   * carry no value.
   */
  record Write(
      LogicalPlan anchor,
      LogicalPlan query,
      List<String> columns,
      WriteDestination destination,
      List<Expression> rowConditions) {
    Write(
        LogicalPlan anchor, LogicalPlan query, List<String> columns, WriteDestination destination) {
      this(anchor, query, columns, destination, List.of());
    }
  }

  private static final String NOOP_TABLE =
      "org.apache.spark.sql.execution.datasources.noop.NoopTable";

  private final SparkSession session;
  private final Supplier<Optional<PathScope>> pathScope;

  PlanWrites(SparkSession session, Supplier<Optional<PathScope>> pathScope) {
    this.session = session;
    this.pathScope = pathScope;
  }

  /** Whether {@code plan} holds a write this class understands. */
  static boolean hasWrite(LogicalPlan plan) {
    return plan.find(PlanWrites::isWrite).isDefined();
  }

  private static boolean isWrite(LogicalPlan node) {
    return node instanceof V2WriteCommand
        || node instanceof CreateTableAsSelect
        || node instanceof ReplaceTableAsSelect
        || node instanceof DataWritingCommand
        || node instanceof CreateDataSourceTableAsSelectCommand
        || node instanceof InsertIntoDataSourceCommand
        || node instanceof InsertIntoDataSourceDirCommand
        || node instanceof SaveIntoDataSourceCommand;
  }

  List<Write> find(LogicalPlan plan) {
    List<Write> writes = new ArrayList<>();
    plan.foreach(
        node -> {
          if (isWrite(node)) {
            Write write = describe(node);
            if (write != null) {
              writes.add(write);
            }
          }
          return BoxedUnit.UNIT;
        });
    return writes;
  }

  private Write describe(LogicalPlan node) {
    if (node instanceof V2WriteCommand) {
      return v2Write((V2WriteCommand) node);
    } else if (node instanceof CreateTableAsSelect) {
      CreateTableAsSelect ctas = (CreateTableAsSelect) node;
      return createAsSelect(ctas.name(), ctas.tableSpec(), ctas.query());
    } else if (node instanceof ReplaceTableAsSelect) {
      ReplaceTableAsSelect rtas = (ReplaceTableAsSelect) node;
      return createAsSelect(rtas.name(), rtas.tableSpec(), rtas.query());
    } else if (node instanceof InsertIntoHadoopFsRelationCommand) {
      InsertIntoHadoopFsRelationCommand insert = (InsertIntoHadoopFsRelationCommand) node;
      boolean parquet = insert.fileFormat() instanceof ParquetFileFormat;
      String location = insert.outputPath().toString();
      String what =
          insert.catalogTable().isDefined()
              ? "table "
                  + insert.catalogTable().get().identifier().unquotedString()
                  + " at "
                  + location
              : "path " + location;
      return new Write(
          node,
          insert.query(),
          names(insert.outputColumnNames()),
          fileDestination(what, location, parquet));
    } else if (node instanceof CreateDataSourceTableAsSelectCommand) {
      CreateDataSourceTableAsSelectCommand ctas = (CreateDataSourceTableAsSelectCommand) node;
      CatalogTable table = ctas.table();
      URI location =
          table.storage().locationUri().isDefined()
              ? table.storage().locationUri().get()
              : session.sessionState().catalog().defaultTablePath(table.identifier());
      String provider = table.provider().isDefined() ? table.provider().get() : "";
      String what =
          "table "
              + table.identifier().unquotedString()
              + " (USING "
              + provider
              + ") at "
              + location;
      return new Write(
          node,
          ctas.query(),
          names(ctas.outputColumnNames()),
          fileDestination(what, location.toString(), isParquet(provider)));
    } else if (node instanceof InsertIntoDataSourceDirCommand) {
      InsertIntoDataSourceDirCommand insert = (InsertIntoDataSourceDirCommand) node;
      String location =
          insert.storage().locationUri().isDefined()
              ? insert.storage().locationUri().get().toString()
              : "";
      return new Write(
          node,
          insert.query(),
          outputNames(insert.query()),
          fileDestination("directory " + location, location, isParquet(insert.provider())));
    } else if (node instanceof InsertIntoDataSourceCommand) {
      InsertIntoDataSourceCommand insert = (InsertIntoDataSourceCommand) node;
      return new Write(
          node,
          insert.query(),
          outputNames(insert.logicalRelation()),
          WriteDestination.unprotected(
              "data source relation "
                  + insert.logicalRelation().relation()
                  + ", which protects nothing"));
    } else if (node instanceof SaveIntoDataSourceCommand) {
      SaveIntoDataSourceCommand save = (SaveIntoDataSourceCommand) node;
      return new Write(
          node,
          save.query(),
          outputNames(save.query()),
          WriteDestination.unprotected(
              "data source "
                  + save.dataSource().getClass().getName()
                  + ", which protects nothing"));
    } else if (node instanceof DataWritingCommand) {
      // Hive's commands and others: none of them applies the protector's encryption
      DataWritingCommand write = (DataWritingCommand) node;
      return new Write(
          node,
          write.query(),
          names(write.outputColumnNames()),
          WriteDestination.unprotected(
              node.nodeName() + " " + tableOf(node).orElse("") + ", which protects nothing"));
    }
    return null;
  }

  private Write v2Write(V2WriteCommand write) {
    NamedRelation target = write.table();
    if (!(target instanceof DataSourceV2Relation)) {
      return null;
    }
    DataSourceV2Relation relation = (DataSourceV2Relation) target;
    Table table = relation.table();
    if (table instanceof org.apache.spark.sql.connector.write.RowLevelOperationTable) {
      table = ((org.apache.spark.sql.connector.write.RowLevelOperationTable) table).table();
    }
    if (table.getClass().getName().equals(NOOP_TABLE)) {
      return null; // the noop source stores nothing
    }
    WriteDestination destination =
        IcebergFlows.INSTANCE != null
            ? IcebergFlows.INSTANCE.destination(table, relation.name(), session)
            : null;
    if (destination == null) {
      destination =
          WriteDestination.unprotected(
              "table " + relation.name() + ", which the policy does not protect");
    }
    List<String> tableColumns = outputNames(relation);
    List<Attribute> output = ScalaCollections.asJava(write.query().output());
    List<String> columns = new ArrayList<>();
    if (output.size() == tableColumns.size()) {
      columns.addAll(tableColumns);
    } else {
      // row-level writes add operation and metadata columns: match data columns by name
      for (Attribute attribute : output) {
        columns.add(
            tableColumns.stream()
                .filter(c -> c.equalsIgnoreCase(attribute.name()))
                .findFirst()
                .orElse(null));
      }
    }
    List<Expression> rowConditions = new ArrayList<>();
    if (write instanceof ReplaceData) {
      rowConditions.add(((ReplaceData) write).condition());
    } else if (write instanceof WriteDelta) {
      rowConditions.add(((WriteDelta) write).condition());
    }
    return new Write(relation, write.query(), columns, destination, rowConditions);
  }

  private Write createAsSelect(LogicalPlan name, TableSpecBase spec, LogicalPlan query) {
    if (!(name instanceof ResolvedIdentifier)) {
      return null;
    }
    ResolvedIdentifier resolved = (ResolvedIdentifier) name;
    CatalogPlugin catalog = resolved.catalog();
    Identifier ident = resolved.identifier();
    String tableName = String.join(".", ident.namespace()) + "." + ident.name();
    String display = catalog.name() + "." + tableName;
    Optional<TablePolicy> entry =
        IcebergFlows.INSTANCE != null
            ? IcebergFlows.INSTANCE.createdTableEntry(catalog, tableName, spec.provider())
            : Optional.empty();
    WriteDestination destination =
        entry.isPresent()
            ? WriteDestination.policyEntry("protected table " + display, entry.get())
            : WriteDestination.unprotected(
                "new table " + display + ", which the policy does not protect");
    return new Write(name, query, outputNames(query), destination);
  }

  private WriteDestination fileDestination(String what, String location, boolean parquet) {
    Optional<PathScope> scope = pathScope.get();
    Optional<TablePolicy> entry =
        scope.isPresent() ? scope.get().policyFor(location) : Optional.empty();
    if (entry.isPresent() && parquet) {
      return WriteDestination.policyEntry(
          what + " (protected path prefix " + entry.get().name() + ")", entry.get());
    }
    if (entry.isPresent()) {
      return WriteDestination.unprotected(
          what
              + ", under protected prefix "
              + entry.get().name()
              + " but not Parquet, so nothing there is encrypted");
    }
    return WriteDestination.unprotected(what + ", outside every protected path prefix");
  }

  private boolean isParquet(String provider) {
    if (provider == null || provider.isBlank()) {
      return false;
    }
    try {
      Class<?> format =
          DataSource$.MODULE$.lookupDataSource(provider, session.sessionState().conf());
      return ParquetFileFormat.class.isAssignableFrom(format);
    } catch (RuntimeException e) {
      return false;
    }
  }

  /** The table a command names, found by reflection (Hive's commands are optional classes). */
  private static Optional<String> tableOf(LogicalPlan command) {
    for (String accessor : List.of("table", "tableDesc")) {
      try {
        Method method = command.getClass().getMethod(accessor);
        Object value = method.invoke(command);
        if (value instanceof CatalogTable) {
          return Optional.of(((CatalogTable) value).identifier().unquotedString());
        }
      } catch (ReflectiveOperationException e) {
        // this command has no such accessor
      }
    }
    return Optional.empty();
  }

  private static List<String> outputNames(LogicalPlan plan) {
    List<String> out = new ArrayList<>();
    for (Attribute attribute : ScalaCollections.asJava(plan.output())) {
      out.add(attribute.name());
    }
    return out;
  }

  private static List<String> names(scala.collection.Seq<String> names) {
    return new ArrayList<>(ScalaCollections.asJava(names));
  }
}
