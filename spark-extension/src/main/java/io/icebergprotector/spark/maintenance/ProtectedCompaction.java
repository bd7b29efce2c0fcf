/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.spark.maintenance;

import io.icebergprotector.spark.access.MaintenanceAccess;
import io.icebergprotector.spark.binding.BindingBoundary;
import io.icebergprotector.spark.core.ProtectedLayout;
import io.icebergprotector.spark.core.ProtectionSpec;
import io.icebergprotector.spark.table.ProtectedTable;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.expressions.Term;
import org.apache.iceberg.expressions.UnboundTerm;
import org.apache.iceberg.expressions.Zorder;
import org.apache.iceberg.spark.ExtendedParser;
import org.apache.iceberg.spark.SparkUtil;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.parser.ParseException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Prepares Iceberg's own {@code rewrite_data_files} (compaction) for a protected table. Iceberg's
 * action then plans the file groups and commits them with its conflict handling and partial
 * progress; each group is read and written through the protected paths ({@link
 * ProtectingCachedTableCatalog}: the scan reads exactly the staged tasks, the write stages new
 * protected, bound files). Before anything is written:
 *
 * <ul>
 *   <li>the principal must read every protected column in clear and be a writer ({@link
 *       MaintenanceAccess}); the table may hold no column whose protection was removed;
 *   <li>no sort order ({@code sort_order}, the table's for {@code strategy => 'sort'}) or z-order
 *       may order rows by a protected column ({@link ProtectedLayout});
 *   <li>the {@code where} condition is widened so that its parts on protected columns select every
 *       file ({@link ConditionWidening}): they are never evaluated on manifest metrics.
 * </ul>
 */
final class ProtectedCompaction {
  private static final Logger LOG = LoggerFactory.getLogger(ProtectedCompaction.class);

  private ProtectedCompaction() {}

  /**
   * Checks a call and returns its {@code where} argument as Iceberg should see it (null for none).
   *
   * @param displayName the table as messages name it, e.g. {@code prot.db.customers}
   * @param operation the call as the user wrote it, e.g. {@code CALL
   *     prot.system.rewrite_data_files}
   */
  static String prepare(
      SparkSession spark,
      ProtectedTable protectedTable,
      String displayName,
      String operation,
      String strategy,
      String sortOrder,
      String where) {
    ProtectionSpec spec = protectedTable.protectionFor(spark);
    MaintenanceAccess.requireRewrite(spec, operation);
    Table table = protectedTable.table();
    Schema schema = table.schema();
    spec.checkWritable(schema);

    if (sortOrder != null) {
      ProtectedLayout.checkOrderingColumns(
          spec,
          schema,
          orderingColumns(spark, sortOrder),
          displayName,
          "sort_order => '" + sortOrder + "'");
    } else if (strategy != null && strategy.toLowerCase(Locale.ROOT).equals("sort")) {
      ProtectedLayout.checkSortOrder(spec, table.sortOrder(), schema, displayName);
    }

    String condition = where;
    if (where != null) {
      ConditionWidening widening =
          new ConditionWidening(
              schema, spec.protectedFieldIds(schema), SparkUtil.caseSensitive(spark));
      Expression widened = widening.widen(parse(spark, where, displayName));
      if (!widening.widenedColumns().isEmpty()) {
        // names only: the condition's literals may be protected values
        LOG.info(
            "Compaction of {}: the condition's parts on protected column(s) {} select every file;"
                + " protected columns are never compared with manifest metrics",
            displayName,
            widening.widenedColumns());
        condition = ConditionWidening.isTrue(widened) ? null : widened.sql();
      }
    }

    ProtectingCachedTableCatalog.install(spark);
    // once, before Iceberg's file groups write in parallel
    BindingBoundary.record(table);
    return condition;
  }

  private static Expression parse(SparkSession spark, String where, String displayName) {
    try {
      return spark.sessionState().sqlParser().parseExpression(where);
    } catch (ParseException e) {
      // the parser's message quotes the condition, whose literals may be protected values
      throw new IllegalArgumentException(
          String.format(
              "Cannot parse the where condition of rewrite_data_files on %s (%s at line %s,"
                  + " position %s)",
              displayName,
              e.getErrorClass(),
              e.line().getOrElse(() -> null),
              e.startPosition().getOrElse(() -> null)));
    }
  }

  /** The columns a {@code sort_order} argument orders by, z-order terms included. */
  private static List<String> orderingColumns(SparkSession spark, String sortOrder) {
    List<String> columns = new ArrayList<>();
    for (ExtendedParser.RawOrderField field : ExtendedParser.parseSortOrder(spark, sortOrder)) {
      Term term = field.term();
      if (term instanceof Zorder) {
        ((Zorder) term).refs().forEach(ref -> columns.add(ref.name()));
      } else if (term instanceof UnboundTerm) {
        columns.add(((UnboundTerm<?>) term).ref().name());
      }
    }
    return columns;
  }
}
