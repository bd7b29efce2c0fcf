/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.spark.analysis;

import io.icebergprotector.spark.compat.ScalaCollections;
import io.icebergprotector.spark.core.ProtectedLayout;
import io.icebergprotector.spark.table.ProtectedTable;
import io.icebergprotector.spark.table.TableAdmin;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.iceberg.Schema;
import org.apache.iceberg.expressions.Term;
import org.apache.iceberg.expressions.Unbound;
import org.apache.iceberg.expressions.UnboundTransform;
import org.apache.iceberg.spark.Spark3Util;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.plans.logical.AddPartitionField;
import org.apache.spark.sql.catalyst.plans.logical.CreateOrReplaceBranch;
import org.apache.spark.sql.catalyst.plans.logical.CreateOrReplaceTag;
import org.apache.spark.sql.catalyst.plans.logical.DropBranch;
import org.apache.spark.sql.catalyst.plans.logical.DropIdentifierFields;
import org.apache.spark.sql.catalyst.plans.logical.DropPartitionField;
import org.apache.spark.sql.catalyst.plans.logical.DropTag;
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan;
import org.apache.spark.sql.catalyst.plans.logical.ReplacePartitionField;
import org.apache.spark.sql.catalyst.plans.logical.SetIdentifierFields;
import org.apache.spark.sql.catalyst.plans.logical.SetWriteDistributionAndOrdering;
import org.apache.spark.sql.connector.expressions.NamedReference;
import org.apache.spark.sql.connector.expressions.Transform;
import scala.Tuple3;
import scala.collection.Seq;

/**
 * Checks the table commands of Iceberg's SQL extensions before they run. Their executors load the
 * table and change it through the Iceberg API, bypassing {@code TableCatalog.alterTable}, so this
 * check rule is where they are guarded. On a protected table every one of them needs a writer role
 * ({@link TableAdmin}); partition sources, sort orders and identifier fields are resolved in the
 * table's current schema to field ids and refused on protected columns ({@link ProtectedLayout}).
 */
public final class IcebergCommandCheck {
  private IcebergCommandCheck() {}

  public static void checkPlan(SparkSession session, LogicalPlan plan) {
    if (plan instanceof AddPartitionField) {
      AddPartitionField add = (AddPartitionField) plan;
      guarded(
              session,
              add.table(),
              "ALTER TABLE ... ADD PARTITION FIELD " + add.transform().describe())
          .ifPresent(t -> checkPartitionSource(t, add.transform()));
    } else if (plan instanceof ReplacePartitionField) {
      ReplacePartitionField replace = (ReplacePartitionField) plan;
      guarded(
              session,
              replace.table(),
              "ALTER TABLE ... REPLACE PARTITION FIELD "
                  + replace.transformFrom().describe()
                  + " WITH "
                  + replace.transformTo().describe())
          .ifPresent(t -> checkPartitionSource(t, replace.transformTo()));
    } else if (plan instanceof DropPartitionField) {
      DropPartitionField drop = (DropPartitionField) plan;
      guarded(
          session,
          drop.table(),
          "ALTER TABLE ... DROP PARTITION FIELD " + drop.transform().describe());
    } else if (plan instanceof SetWriteDistributionAndOrdering) {
      SetWriteDistributionAndOrdering order = (SetWriteDistributionAndOrdering) plan;
      String what = describe(order);
      guarded(session, order.table(), "ALTER TABLE ... " + what)
          .ifPresent(t -> checkOrdering(t, order, what));
    } else if (plan instanceof SetIdentifierFields) {
      SetIdentifierFields set = (SetIdentifierFields) plan;
      List<String> fields = ScalaCollections.asJava(set.fields());
      guarded(
              session,
              set.table(),
              "ALTER TABLE ... SET IDENTIFIER FIELDS " + String.join(", ", fields))
          .ifPresent(
              t ->
                  ProtectedLayout.checkIdentifierFields(
                      t.protection(), schema(t), fields, t.table().name()));
    } else if (plan instanceof DropIdentifierFields) {
      DropIdentifierFields drop = (DropIdentifierFields) plan;
      guarded(
          session,
          drop.table(),
          "ALTER TABLE ... DROP IDENTIFIER FIELDS "
              + String.join(", ", ScalaCollections.asJava(drop.fields())));
    } else if (plan instanceof CreateOrReplaceBranch) {
      CreateOrReplaceBranch branch = (CreateOrReplaceBranch) plan;
      guarded(
          session,
          branch.table(),
          verb(branch.create(), branch.replace()) + " BRANCH " + branch.branch());
    } else if (plan instanceof CreateOrReplaceTag) {
      CreateOrReplaceTag tag = (CreateOrReplaceTag) plan;
      guarded(session, tag.table(), verb(tag.create(), tag.replace()) + " TAG " + tag.tag());
    } else if (plan instanceof DropBranch) {
      DropBranch branch = (DropBranch) plan;
      guarded(session, branch.table(), "ALTER TABLE ... DROP BRANCH " + branch.branch());
    } else if (plan instanceof DropTag) {
      DropTag tag = (DropTag) plan;
      guarded(session, tag.table(), "ALTER TABLE ... DROP TAG " + tag.tag());
    }
  }

  /**
   * Resolves the command's table as Iceberg's strategy does, and, when it is protected, requires a
   * writer role for {@code operation}.
   */
  private static Optional<ProtectedTable> guarded(
      SparkSession session, Seq<String> nameParts, String operation) {
    Spark3Util.CatalogAndIdentifier resolved =
        Spark3Util.catalogAndIdentifier(session, ScalaCollections.asJava(nameParts));
    Optional<TableAdmin.Governed> governed =
        TableAdmin.governed(resolved.catalog(), resolved.identifier());
    if (governed.isEmpty()) {
      return Optional.empty();
    }
    governed.get().requireWriter(operation);
    return governed.get().table() instanceof ProtectedTable
        ? Optional.of((ProtectedTable) governed.get().table())
        : Optional.empty();
  }

  private static void checkPartitionSource(ProtectedTable table, Transform transform) {
    List<String> columns = new ArrayList<>();
    for (NamedReference ref : transform.references()) {
      columns.add(String.join(".", ref.fieldNames()));
    }
    ProtectedLayout.checkPartitionSources(
        table.protection(), schema(table), columns, table.table().name(), transform.describe());
  }

  private static void checkOrdering(
      ProtectedTable table, SetWriteDistributionAndOrdering order, String what) {
    List<String> columns = new ArrayList<>();
    for (Tuple3<Term, ?, ?> field : ScalaCollections.asJava(order.sortOrder())) {
      if (field._1() instanceof Unbound) {
        columns.add(((Unbound<?, ?>) field._1()).ref().name());
      }
    }
    ProtectedLayout.checkOrderingColumns(
        table.protection(), schema(table), columns, table.table().name(), what);
  }

  private static Schema schema(ProtectedTable table) {
    return table.table().schema();
  }

  private static String describe(SetWriteDistributionAndOrdering order) {
    List<String> terms = new ArrayList<>();
    for (Tuple3<Term, ?, ?> field : ScalaCollections.asJava(order.sortOrder())) {
      terms.add(text(field._1()) + " " + field._2() + " " + field._3());
    }
    String ordering =
        terms.isEmpty() ? "WRITE UNORDERED" : "WRITE ORDERED BY " + String.join(", ", terms);
    return order.distributionMode().isDefined()
        ? ordering + " (distribution mode " + order.distributionMode().get().modeName() + ")"
        : ordering;
  }

  /** {@code ssn} or {@code bucket[4](id)}. */
  private static String text(Term term) {
    if (term instanceof UnboundTransform) {
      UnboundTransform<?, ?> transform = (UnboundTransform<?, ?>) term;
      return transform.transform() + "(" + transform.ref().name() + ")";
    } else if (term instanceof Unbound) {
      return ((Unbound<?, ?>) term).ref().name();
    }
    return String.valueOf(term);
  }

  private static String verb(boolean create, boolean replace) {
    return "ALTER TABLE ... "
        + (create && replace ? "CREATE OR REPLACE" : create ? "CREATE" : "REPLACE");
  }
}
