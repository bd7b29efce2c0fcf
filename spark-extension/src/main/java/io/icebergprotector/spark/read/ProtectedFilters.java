/*
 * Copyright 2026 The Iceberg Protector contributors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.icebergprotector.spark.read;

import io.icebergprotector.spark.core.ExpressionRedactor;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.apache.iceberg.Schema;
import org.apache.iceberg.expressions.Binder;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.spark.SparkV2Filters;
import org.apache.spark.sql.connector.expressions.filter.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Decides which Spark predicates may reach Iceberg: for file pruning in planning and row-group
 * pruning in the readers. A predicate on a column the principal does not see in clear (denied or
 * masked, or anything below such a column) is never pushed, because pruning on it would reveal
 * facts about the hidden values through row counts. Spark evaluates every predicate again on the
 * rows returned, so a predicate on a denied column behaves like one on NULLs, and one on a masked
 * column sees the masked values.
 */
public final class ProtectedFilters {
  private static final Logger LOG = LoggerFactory.getLogger(ProtectedFilters.class);

  private final Predicate[] pushed;
  private final Predicate[] withheld;
  private final List<Expression> expressions;

  private ProtectedFilters(Predicate[] pushed, Predicate[] withheld, List<Expression> expressions) {
    this.pushed = pushed;
    this.withheld = withheld;
    this.expressions = expressions;
  }

  /** No predicates. */
  public static ProtectedFilters none() {
    return new ProtectedFilters(new Predicate[0], new Predicate[0], List.of());
  }

  /**
   * Splits {@code predicates}.
   *
   * @param schema the schema the scan reads (predicates bind to it)
   * @param hiddenIds field ids no pushed predicate may reference, see {@link
   *     ProtectedProjection#hiddenFieldIds}
   */
  public static ProtectedFilters split(
      Predicate[] predicates, Schema schema, Set<Integer> hiddenIds, boolean caseSensitive) {
    List<Predicate> pushed = new ArrayList<>();
    List<Predicate> withheld = new ArrayList<>();
    List<Expression> expressions = new ArrayList<>();
    for (Predicate predicate : predicates) {
      Expression expr = convert(predicate);
      if (expr == null) {
        withheld.add(predicate);
        continue;
      }
      Set<Integer> refs;
      try {
        refs = Binder.boundReferences(schema.asStruct(), List.of(expr), caseSensitive);
      } catch (RuntimeException e) {
        // does not bind (unknown column, type mismatch): Spark alone evaluates it
        // the binding error may quote the literal
        LOG.debug(
            "Not pushing a predicate that does not bind ({}): {}",
            e.getClass().getSimpleName(),
            ExpressionRedactor.all().redact(expr));
        withheld.add(predicate);
        continue;
      }
      if (refs.stream().anyMatch(hiddenIds::contains)) {
        withheld.add(predicate);
      } else {
        pushed.add(predicate);
        expressions.add(expr);
      }
    }
    return new ProtectedFilters(
        pushed.toArray(new Predicate[0]), withheld.toArray(new Predicate[0]), expressions);
  }

  /**
   * Field ids of {@code schema} that {@code predicates} refer to, whether or not they can be pushed
   * (a reference Iceberg cannot bind is looked up by name; a field of a struct counts as that
   * field).
   */
  public static Set<Integer> references(
      Predicate[] predicates, Schema schema, boolean caseSensitive) {
    Set<Integer> ids = new java.util.LinkedHashSet<>();
    for (Predicate predicate : predicates) {
      for (org.apache.spark.sql.connector.expressions.NamedReference ref : predicate.references()) {
        String name = String.join(".", ref.fieldNames());
        org.apache.iceberg.types.Types.NestedField field =
            caseSensitive ? schema.findField(name) : schema.caseInsensitiveFindField(name);
        if (field != null) {
          ids.add(field.fieldId());
        }
      }
    }
    return ids;
  }

  private static Expression convert(Predicate predicate) {
    try {
      return SparkV2Filters.convert(predicate);
    } catch (RuntimeException e) {
      return null;
    }
  }

  /** Predicates pushed to Iceberg (as {@link #expression()}). Spark still evaluates them too. */
  public Predicate[] pushed() {
    return pushed.clone();
  }

  /** Predicates Iceberg never sees: on hidden columns, or not convertible. */
  public Predicate[] withheld() {
    return withheld.clone();
  }

  /** The pushed predicates as Iceberg expressions. */
  public List<Expression> expressions() {
    return expressions;
  }

  /** The conjunction of the pushed predicates ({@code alwaysTrue} when none). */
  public Expression expression() {
    return expressions.stream().reduce(Expressions.alwaysTrue(), Expressions::and);
  }
}
